"""The provider's resources: what each endpoint does to the emulator's state."""
