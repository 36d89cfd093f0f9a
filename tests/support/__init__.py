"""Helpers the test modules share (imported as `support.*`; fixtures live in conftest.py)."""
