# Quick start: `make play` and `make test` create .venv and install what each needs themselves:
# `make play` only what playing needs (the server, maturin for the native engines, and Debian's
# ICU headers to build PyICU with); `make test` every test tool too, Debian's Chromium,
# PostgreSQL and nginx for the browser and server tests, and Debian's TypeScript compiler for
# the web client's type check.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PLAY_STAMP := $(VENV)/.installed-play
WHEEL_STAMP := $(VENV)/.installed-wheel
PLAY_EXTRAS := build,server
TEST_EXTRAS := build,dev,server,openspiel,pettingzoo,ai,ray,learn
WHEEL_EXTRAS := build,wheel
# Every install takes its versions from constraints.txt (the app's lock); pyproject.toml has
# the ranges library users get.
PIP_INSTALL = $(BIN)/python -m pip install --quiet -c constraints.txt
JOBS ?= 2
# The unit run's pytest workers, one per core: a third cost each worker's start (its
# collection, compiling on a fresh clone, a browser, a shared server) for 30 s less wall time
# (docs/testing.md).
UNIT_JOBS ?= 2

.PHONY: wheel play test quick test-long ladder models mutation lint typecheck wire-types unit bench clean system-packages build-packages native native-optional rust-test catalogues

# The native rules cores (native/, Rust + PyO3) built by maturin into src/cradle/_native*.so.
EXT_SUFFIX := $(shell $(PYTHON) -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
NATIVE := src/cradle/_native$(EXT_SUFFIX)
NATIVE_SOURCES := native/Cargo.toml native/Cargo.lock native/pyproject.toml $(shell find native/src -name '*.rs' 2>/dev/null)
CARGO := $(shell command -v cargo 2>/dev/null)
# Under `make test`'s -j, MAKEFLAGS names make's job server, which make passes to recursive makes
# only: cargo (and rustdoc) would warn that they cannot use it. They keep their own.
OWN_JOBS := env -u MAKEFLAGS -u MFLAGS

# Debian packages the play server's tests need (a real PostgreSQL, a browser for Playwright, a
# reverse proxy with TLS) and the web client's type check (tsc, run by node); apt-get runs only
# when one is missing, as root or through sudo. `make play` needs only BUILD_PACKAGES: what pip
# builds PyICU with (the names' Unicode rules, cradle/server/text.py).
BUILD_PACKAGES := libicu-dev pkg-config g++
SYSTEM_PACKAGES := $(BUILD_PACKAGES) chromium-headless-shell postgresql nodejs node-typescript nginx openssl
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

define install_missing
	@missing=""; for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing Debian packages:$$missing"; \
		$(SUDO) apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi
endef

system-packages:
	$(call install_missing,$(SYSTEM_PACKAGES))

build-packages:
	$(call install_missing,$(BUILD_PACKAGES))

# Everything `make test` needs (a superset of what playing needs). Without pip's bytecode: it
# would compile all ~12,000 modules of the tools (JAX, Ray, SciPy, ...), while the unit run
# compiles the few thousand it imports, once (it keeps bytecode caches; docs/testing.md).
$(STAMP): pyproject.toml constraints.txt | build-packages
	@echo "installing the test tools into $(VENV) (several minutes the first time)"
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(PIP_INSTALL) --no-compile -e '.[$(TEST_EXTRAS)]'
	touch $(STAMP)

# What `make play` needs; nothing more when the test install is already there and current.
$(PLAY_STAMP): pyproject.toml constraints.txt | build-packages
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@if [ -f $(STAMP) ] && [ $(STAMP) -nt pyproject.toml ] && [ $(STAMP) -nt constraints.txt ]; then :; else \
		echo "installing what playing needs into $(VENV) (a minute or two the first time)"; \
		$(BIN)/python -m pip install --quiet --upgrade pip && \
		$(PIP_INSTALL) -e '.[$(PLAY_EXTRAS)]'; \
	fi
	touch $(PLAY_STAMP)

# What `make wheel` needs: maturin and zig (its linker for an older glibc), not the server.
$(WHEEL_STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(PIP_INSTALL) -e '.[$(WHEEL_EXTRAS)]'
	touch $(WHEEL_STAMP)

$(NATIVE): $(NATIVE_SOURCES) | $(PLAY_STAMP)
	@echo "building the native engines (Rust, optimised): 3-6 minutes on 2 cores the first time, seconds after a small change"
	rm -rf native/target/wheels native/target/wheel
	$(OWN_JOBS) $(BIN)/maturin build --release --locked -m native/Cargo.toml -i $(BIN)/python -o native/target/wheels
	$(BIN)/python -m zipfile -e native/target/wheels/*.whl native/target/wheel
	# Replaced by a rename: a process that has the old module loaded keeps its file intact.
	cp native/target/wheel/_native/_native*$(EXT_SUFFIX) $@.tmp
	mv -f $@.tmp $@

# One wheel with the Python package and the native engines (CPython's stable ABI, 3.11 on):
# `pip install dist/cradle_games-*.whl` needs no Rust. Built by maturin from a copy of src/
# (without the development module) beside native/, with the pyproject.toml
# packaging/wheel_pyproject.py writes from the root's metadata (docs/research.md). Linked by
# zig against glibc 2.28, so the wheel is manylinux_2_28 whatever glibc builds it (maturin runs
# zig as `python3 -m ziglang`: the venv's bin/ comes first in its PATH).
WHEEL_DIR := build/wheel
WHEEL_PLATFORM := manylinux_2_28
wheel: $(WHEEL_STAMP)
	rm -rf $(WHEEL_DIR) dist
	mkdir -p $(WHEEL_DIR)
	cp -r src $(WHEEL_DIR)/src
	rm -f $(WHEEL_DIR)/src/cradle/_native*.so
	find $(WHEEL_DIR)/src -name __pycache__ -prune -exec rm -rf {} +
	$(BIN)/python packaging/wheel_pyproject.py pyproject.toml $(WHEEL_DIR)/pyproject.toml
	cp README.md LICENSE $(WHEEL_DIR)/
	ln -s ../../native $(WHEEL_DIR)/native
	cd $(WHEEL_DIR) && PATH="$(abspath $(BIN)):$$PATH" $(abspath $(BIN))/maturin build --release \
		--locked --zig --compatibility $(WHEEL_PLATFORM) -o ../../dist
	ls dist/*.whl

# Required by `make test`; `make play` works without cargo on the Python engines.
native: $(NATIVE)

native-optional: $(PLAY_STAMP)
ifdef CARGO
	@$(MAKE) --no-print-directory native
else
	@echo "cargo not found: the native engines are not built; playing on the slower Python engines"
endif

# The lib's tests only: the examples are checked by clippy (`make lint`), and an integration
# test would build the crate a second time.
rust-test:
	$(OWN_JOBS) cargo test --quiet --locked --manifest-path native/Cargo.toml --lib

play: $(PLAY_STAMP) native-optional
	$(BIN)/cradle serve

# The web client (src/cradle/web, plain ES modules with JSDoc types) is type-checked by tsc
# against tsconfig.json: checkJs, strict, nothing emitted; its wire types (web/wire.d.ts) are
# made from the server's models and the games' Presentations, and must be current. `make test`
# sets CLIENT_CHECKED_BY_TESTS: there tests/web runs tsc on a copy of the client with three
# faults put in, which must find those and nothing else, so the client is checked once.
lint: $(STAMP) system-packages
	$(BIN)/python packaging/check_catalogues.py
	$(BIN)/ruff check src tests lab packaging
	$(BIN)/ruff format --check src tests lab packaging
	$(BIN)/lint-imports --no-cache
	$(BIN)/python packaging/wire_types.py --check
	$(if $(CLIENT_CHECKED_BY_TESTS),@echo "tsc: the web client is checked by tests/web in the unit run",tsc --project tsconfig.json)
	cargo fmt --manifest-path native/Cargo.toml --check
	$(OWN_JOBS) cargo clippy --quiet --locked --manifest-path native/Cargo.toml --all-targets \
		--features python -- -D warnings

# The Python translation catalogues (docs/translating.md): the template from the sources, each
# language's catalogue brought up to it, and the compiled .mo files beside them (committed, so
# that a fresh clone plays and the wheel carries them; `make lint` fails when any is stale).
LOCALES := src/cradle/locale
catalogues: $(STAMP)
	$(BIN)/pybabel -q extract -F babel.cfg -k NP_:1c,2 --no-location --sort-output \
		--project cradle --copyright-holder "cradle's authors" -o $(LOCALES)/cradle.pot .
	$(BIN)/pybabel -q update -i $(LOCALES)/cradle.pot -d $(LOCALES) -D cradle \
		--no-fuzzy-matching --ignore-obsolete --no-wrap
	$(BIN)/pybabel -q compile -d $(LOCALES) -D cradle
	$(BIN)/python packaging/web_reasons.py

typecheck: $(STAMP)
	$(BIN)/mypy

# Write src/cradle/web/wire.d.ts again from the server's models and the games' Presentations
# (after changing either; `make lint` fails while it is stale).
wire-types: $(STAMP)
	$(BIN)/python packaging/wire_types.py

# Python keeps its bytecode caches (__pycache__, git-ignored) even where the environment asks
# it not to write them (PYTHONDONTWRITEBYTECODE): the run starts hundreds of Python processes
# (servers, bot workers, the CLI, multiprocessing's children), each compiling the package anew
# without them, and each pytest worker its test modules.
unit: $(STAMP) native system-packages
	env -u PYTHONDONTWRITEBYTECODE CRADLE_REQUIRE_NATIVE=1 $(BIN)/pytest -q -n $(UNIT_JOBS) \
		--dist worksteal --durations=20

# The install first; then the checks and the native build side by side, $(JOBS) at a time (mypy
# and the release build's link use one core each; -O prints each one's output whole when it
# ends, and the first failure fails it); then the unit run.
test: $(STAMP) system-packages
	@$(MAKE) --no-print-directory -j$(JOBS) -O lint typecheck rust-test native CLIENT_CHECKED_BY_TESTS=1
	@$(MAKE) --no-print-directory unit

# The quick loop (under a minute; docs/testing.md): the rules tests, the conformance suite and
# core on the Python engine only, without the native engine's runs and the lockstep tests, and
# with fewer random games and state-machine games than make test plays. Needs neither cargo
# nor the native module.
QUICK_SIZES := CRADLE_PROPERTY_GAMES=10 CRADLE_PROPERTY_GAMES_PER_OPTIONS=1 CRADLE_STATEFUL_EXAMPLES=10
quick: $(STAMP)
	CRADLE_ENGINE=python $(QUICK_SIZES) $(BIN)/pytest -q -n $(JOBS) -k "not native and not lockstep" \
		tests/tigris tests/gheos tests/conformance tests/core

# What CI does not run: statistical and long tests (pytest -m long); see also `make ladder`.
test-long: $(STAMP) native system-packages
	CRADLE_REQUIRE_NATIVE=1 $(BIN)/pytest -q -n $(JOBS) -m long

# Beside test-long (hours, not in CI): hard against expert-rules, greedy, pimc and OpenSpiel's
# ISMCTSBot (4x the iterations) in 2- and 4-player Tigris and Gheos (lab/ladder.py); ratings
# and head-to-head intervals go to results/ladder/ladder.json and ladder.md. Resumable:
# results/ladder/ladder.jsonl is re-read.
LADDER_ITERATIONS ?= 500
LADDER_ROUNDS ?= 2
ladder: $(STAMP) native
	$(BIN)/python -m lab ladder --iterations $(LADDER_ITERATIONS) --rounds $(LADDER_ROUNDS) \
		--workers $(JOBS) --out results/ladder

# The learned evaluations (docs/ai.md, "The learned evaluation"; lab/training.py): native
# self-play games of each game, a pairwise logistic fit, the model files
# src/cradle/ai/models/<game>-v<N>.json.
MODEL_GAMES_TIGRIS ?= 700
MODEL_GAMES_GHEOS ?= 2400
models: $(STAMP) native
	$(BIN)/python -m lab training --game tigris --games $(MODEL_GAMES_TIGRIS) --workers $(JOBS)
	$(BIN)/python -m lab training --game gheos --games $(MODEL_GAMES_GHEOS) --workers $(JOBS)

# Mutation testing of the rules (docs/testing.md), not in CI: mutmut mutates the two Python
# reference engines' state.py ([tool.mutmut] in pyproject.toml) and runs the fast rules tests
# against every mutant; an hour or more on two shared cores. Prints the score per file.
MUTATION_CHILDREN ?= 2
mutation: $(STAMP)
	rm -rf mutants
	CRADLE_ENGINE=python $(BIN)/mutmut run --max-children $(MUTATION_CHILDREN)
	$(BIN)/python tests/mutation_score.py

bench: $(STAMP)
	$(BIN)/cradle bench

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache .hypothesis native/target $(NATIVE) mutants
