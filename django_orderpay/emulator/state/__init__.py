"""The emulator's state and the rules every endpoint shares.

Validation, ids, the clock, the card key pair, errors in the provider's shapes, idempotency.
"""
