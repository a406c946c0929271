"""pytest plugin for shops' own tests (registered through the pytest11 entry point)."""
