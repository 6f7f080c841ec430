# botwars — two commands do all set-up on a fresh machine with Python 3.11:
#   make run    create .venv, install, install bubblewrap (the bot sandbox) when missing, play a demo
#               arena match, then start the server (isolation level and lobby URL printed)
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
	@# bots run in bubblewrap (docs/sandbox.md): install it when missing, as the tests do; without
	@# it the server still runs, says its isolation level at start, and refuses league uploads
	@bash scripts/ensure-bubblewrap.sh >/dev/null || echo "make run: bubblewrap could not be installed (needs root or sudo); bots run at a lower isolation level and league uploads are off ('botwars sandbox check' says why)"
	$(BOTWARS) match arena builtin:hunter builtin:swarm --seed 1 --replay replays/demo-arena.jsonl
	$(BOTWARS) serve --host 127.0.0.1 --port $(PORT)

test: venv
	$(PY) -m pytest -n 2 tests

bench: venv
	$(PY) benchmarks/arena_throughput.py

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info
