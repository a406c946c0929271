"""The control plane (/_emulator/): reset, faults, notifications, the clock."""
