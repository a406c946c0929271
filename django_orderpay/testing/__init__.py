"""The testing kit for shops: samples, factories, provider JSON, the ``orderpay_emulator`` fixture.

- :mod:`django_orderpay.testing.samples`: the wire samples' request and answer
  bodies as fresh dicts (no Django needed);
- :mod:`django_orderpay.testing.factories`: factory-boy factories for every model;
- :mod:`django_orderpay.testing.provider_json`: provider answers to feed ``sync``;
- :mod:`django_orderpay.testing.plugin`: the pytest plugin (on by itself once the
  package is installed) with the ``orderpay_emulator`` fixture.

Import the submodules you need: this package imports nothing at load time,
because pytest loads the plugin before Django is set up.
"""
