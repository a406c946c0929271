from __future__ import annotations

import django_orderpay


def test_package_exposes_its_version() -> None:
    assert django_orderpay.__version__.count(".") == 2
