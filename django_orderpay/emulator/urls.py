"""The emulator as a Django URLconf, for a project's demo or its own tests.

Mount it with ``path("emulator/", include("django_orderpay.emulator.urls"))``;
the provider's API is then served under that prefix (``/emulator/orders``, ...)
by one process-wide emulator (``django_view.get_emulator()``).
"""

from __future__ import annotations

from django.urls import re_path

from .serving.django_view import emulator_view

app_name = "orderpay_emulator"

urlpatterns = [
    re_path(r"^(?P<path>.*)$", emulator_view, name="root"),
]
