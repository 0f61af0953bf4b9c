"""Helpers the test modules share. A test module imports from here, never from another test
module or a conftest.py (tests/test_layout.py checks it)."""
