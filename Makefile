# botwars — two commands do all set-up on a fresh machine with Python 3.11:
#   make run    create .venv, install, play a demo arena match
#   make test   create .venv with test extras, run the whole suite
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
BOTWARS := $(VENV)/bin/botwars

.PHONY: run test venv clean bench

$(VENV)/.stamp: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $@

venv: $(VENV)/.stamp

run: venv
	$(BOTWARS) match arena builtin:hunter builtin:swarm --seed 1 --replay replays/demo-arena.jsonl

test: venv
	$(PY) -m pytest -n 2 tests

bench: venv
	$(PY) benchmarks/arena_throughput.py

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info
