"""Added latency: every provider answer held back as a real provider's would be.

The emulator answers on loopback in a fraction of a millisecond; the real
API takes tens to hundreds. A latency makes the difference visible: how long
``orderpay_sync`` takes over a thousand orders, whether a request handler
holds a lock across a provider call. It is set on the control plane
(``POST /_emulator/latency``) or when building the emulator, applies to the
provider's routes only (never to ``/_emulator/`` itself), and is added to
the answer's ``delay``, which the HTTP adapter sleeps outside the emulator's
lock: answers are delayed side by side, not one after the other.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

#: Longest latency accepted (seconds): past every client's timeout.
MAX_LATENCY = 60.0


@dataclass(frozen=True)
class Latency:
    """``seconds`` added to each answer whose path starts with ``path_prefix`` (None: all)."""

    seconds: float = 0.0
    path_prefix: str | None = None

    def __post_init__(self) -> None:
        seconds = self.seconds
        if isinstance(seconds, bool) or not isinstance(seconds, int | float):
            raise ValueError("latency seconds must be a number")
        if not math.isfinite(seconds) or not 0 <= seconds <= MAX_LATENCY:
            raise ValueError(f"latency seconds must be 0 to {MAX_LATENCY:g}")
        if self.path_prefix is not None and not (
            isinstance(self.path_prefix, str) and self.path_prefix.startswith("/")
        ):
            raise ValueError("latency path_prefix must be a path starting with /")

    def applies_to(self, request_path: str) -> bool:
        if self.seconds <= 0:
            return False
        return self.path_prefix is None or request_path.startswith(self.path_prefix)

    def as_json(self) -> dict[str, Any]:
        return {"seconds": self.seconds, "path_prefix": self.path_prefix}
