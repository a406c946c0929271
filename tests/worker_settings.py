"""Settings of the ``db_worker`` processes that ``test_notifications_workers`` starts.

The tests' own settings, on the database the test runs on (its name in
``ORDERPAY_TEST_DATABASE``), with the ``ORDERPAY`` dict the test uses (JSON in
``ORDERPAY_TEST_SETTINGS``: the emulator it serves, its token) and the
database queue as the tasks backend.
"""

from __future__ import annotations

import json
import os

from tests.settings import *  # noqa: F403
from tests.settings import DATABASES

DATABASES["default"]["NAME"] = os.environ["ORDERPAY_TEST_DATABASE"]
ORDERPAY = json.loads(os.environ["ORDERPAY_TEST_SETTINGS"])
TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
# The emulator is the provider here, as the check's hint allows for CI.
SILENCED_SYSTEM_CHECKS = ["orderpay.E002"]
