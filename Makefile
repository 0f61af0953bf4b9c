# Quick start: `make play` and `make test` create .venv and install everything themselves.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
JOBS ?= 2

.PHONY: play test lint typecheck unit bench clean system-packages

# Debian packages the play server's tests need (a real PostgreSQL, a browser for Playwright);
# apt-get runs only when one is missing, as root or through sudo.
SYSTEM_PACKAGES := chromium postgresql
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

system-packages:
	@missing=""; for p in $(SYSTEM_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing Debian packages:$$missing"; \
		$(SUDO) apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,server,openspiel,pettingzoo,ai,ray]'
	touch $(STAMP)

play: $(STAMP) system-packages
	$(BIN)/cradle serve

lint: $(STAMP)
	$(BIN)/ruff check src tests
	$(BIN)/ruff format --check src tests

typecheck: $(STAMP)
	$(BIN)/mypy

unit: $(STAMP) system-packages
	$(BIN)/pytest -q -n $(JOBS)

test: lint typecheck unit

bench: $(STAMP)
	$(BIN)/cradle bench

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache .hypothesis
