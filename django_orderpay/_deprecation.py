"""Old public names kept working for a while, each with a ``DeprecationWarning``.

A module lists its old names in ``DEPRECATED = {old: (new_name, why)}`` and
sets ``__getattr__ = deprecated_getattr(__name__, DEPRECATED, globals())``:
reading ``module.old`` (or ``from module import old``) warns and answers
the new object. The decisions are in docs/names.md.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from typing import Any


def deprecated_getattr(
    module: str, names: Mapping[str, tuple[str, str]], namespace: Mapping[str, Any]
) -> Callable[[str], Any]:
    """A module ``__getattr__`` answering each old name with its new object, warning."""

    def __getattr__(name: str) -> Any:
        if name not in names:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        new, why = names[name]
        warnings.warn(
            f"{module}.{name} is deprecated: use {module}.{new} ({why})",
            DeprecationWarning,
            stacklevel=2,
        )
        return namespace[new]

    return __getattr__
