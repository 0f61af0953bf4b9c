"""Engine-level Gheos tests run on both engines: a module that marks itself with
``pytest.mark.usefixtures("engine")`` (the fixture of tests/conftest.py) runs each test on the
Python reference and on the native core."""
