"""The provider's notifications: receive, verify, record, process.

- :mod:`.views`: ``NotificationView``, the endpoint (DRF);
- :mod:`.verification`: the authenticity and shape checks;
- :mod:`.recording`: the delivery log, written outside processing;
- :mod:`.processing`: ``process_delivery(delivery) -> Result``;
- :mod:`.tasks`: background processing through Django's tasks framework.

Import the view from :mod:`.views` (this package imports no models, so the
app registry need not be ready to import it).
"""

from __future__ import annotations
