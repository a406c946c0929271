"""The testing kit for shops: factories, provider JSON and the ``orderpay_emulator`` fixture.

- :mod:`django_orderpay.testing.factories`: factory-boy factories for every model;
- :mod:`django_orderpay.testing.provider_json`: provider answers to feed ``sync``;
- :mod:`django_orderpay.testing.plugin`: the pytest plugin (on by itself once the
  package is installed) with the ``orderpay_emulator`` fixture.

Import the submodules you need: this package imports nothing at load time,
because pytest loads the plugin before Django is set up.
"""
