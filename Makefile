# Two commands for a fresh machine:  `make run` (the app)  and  `make test` (the whole suite).
# Both create .venv on first use. llama-cpp-python is compiled from source there with
# GGML_NATIVE=OFF: the native build picks CPU code paths (AMX) that crash on some CPUs.

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
export CMAKE_ARGS ?= -DGGML_NATIVE=OFF

.PHONY: run test setup bench clean translations

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

clean:
	rm -rf $(VENV) .cache
