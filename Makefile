# botwars — two commands do all set-up on a fresh machine with Python 3.11:
#   make run    create .venv, install, play a demo arena match, then start the server (lobby URL printed)
#   make test   create .venv with test extras, run the whole suite
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
BOTWARS := $(VENV)/bin/botwars
PORT ?= 8000

.PHONY: run test venv clean bench

$(VENV)/.stamp: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test]'
	touch $@

venv: $(VENV)/.stamp

run: venv
	$(BOTWARS) match arena builtin:hunter builtin:swarm --seed 1 --replay replays/demo-arena.jsonl
	$(BOTWARS) serve --host 127.0.0.1 --port $(PORT)

test: venv
	$(PY) -m pytest -n 2 tests

bench: venv
	$(PY) benchmarks/arena_throughput.py

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info
