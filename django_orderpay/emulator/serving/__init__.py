"""How the emulator is served: WSGI (the CLI), a requests transport, a Django view."""
