# Types of the native extension (native/, built by maturin). Each game's part is kept beside
# its bindings (native/src/<game>/py.rs) and must list every name they register.

__version__: str
