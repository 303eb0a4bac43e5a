# Two commands for a fresh machine:  `make run` (the app)  and  `make test` (the whole suite).
# Both create .venv on first use. llama-cpp-python is compiled from source there with
# GGML_NATIVE=OFF: the native build picks CPU code paths (AMX) that crash on some CPUs.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
export CMAKE_ARGS ?= -DGGML_NATIVE=OFF

.PHONY: run test setup bench clean translations package package-check

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $@

setup: $(VENV)/.installed

run: setup
	$(VENV)/bin/engram $(ARGS)

test: setup
	$(VENV)/bin/ruff check desktop tests tools packaging
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports
	QT_QPA_PLATFORM=offscreen $(PY) -m pytest $(PYTEST_ARGS)

# After changing texts in desktop/engram/ui: new texts go into resources/translations/*.ts (translate
# the ones marked unfinished), then every .ts is compiled into the .qm the window loads.
translations: setup
	$(PY) tools/translations.py

# Installers (by hand, not in CI): packaging/build_linux.sh writes the .deb, the tar.gz and the AppImage
# to dist/, reusing the llama-cpp-python wheel pip's cache holds (`make setup` put it there).
# package-check then lists every library the bundle needs that it neither holds nor declares in the
# .deb's Depends/Recommends (failing on any), and starts the bundle in an empty home: models read in
# place, under 5 MB of per-user data.
VERSION := $(shell sed -n 's/^version = "\(.*\)"/\1/p' pyproject.toml)

package:
	packaging/build_linux.sh

package-check: package
	build/venv/bin/python packaging/check_bundle.py dist/engram dist/engram_$(VERSION)_$$(dpkg --print-architecture).deb
	packaging/check_first_start.sh dist/engram/engram

clean:
	rm -rf $(VENV) .cache
