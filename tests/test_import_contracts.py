"""Imports run one way (issue 11, item 3): the import-linter contracts of pyproject.toml hold, and
they do catch a breach.

- ``layers``: cli > web > server > store | agents | games > render > engine;
- ``registry``: nothing outside ``botwars.games`` imports a game (games are found through the
  ``botwars.games`` entry points);
- ``acyclic``: no import cycle between packages or between the modules of one package or game;
- ``games-independent``: a game imports no other game (geeko, the declared factory variant, aside).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINT = [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command; "
                              "sys.exit(lint_imports_command())", "--no-cache"]


def lint(cwd: str, src: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=src)
    return subprocess.run(LINT, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def test_pyproject_declares_the_four_contracts():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        cfg = tomllib.load(f)["tool"]["importlinter"]
    assert cfg["root_package"] == "botwars"
    kinds = {c["id"]: c["type"] for c in cfg["contracts"]}
    assert kinds == {"layers": "layers", "registry": "forbidden", "acyclic": "acyclic_siblings",
                     "games-independent": "independence"}


def test_the_import_contracts_are_kept():
    r = lint(ROOT, os.path.join(ROOT, "src"))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "4 kept, 0 broken" in r.stdout


def _copy(tmp_path) -> str:
    shutil.copy(os.path.join(ROOT, "pyproject.toml"), tmp_path / "pyproject.toml")
    shutil.copytree(os.path.join(ROOT, "src", "botwars"), tmp_path / "src" / "botwars",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return str(tmp_path / "src")


def test_a_server_module_naming_a_game_breaks_the_registry_contract(tmp_path):
    src = _copy(tmp_path)
    with open(os.path.join(src, "botwars", "server", "shortcut.py"), "w") as f:
        f.write("from botwars.games.arena.rules import ArenaRuleset  # bypasses the registry\n")
    r = lint(str(tmp_path), src)
    assert r.returncode == 1
    assert "Games are reached only through the plug-in registry" in r.stdout
    assert "botwars.server.shortcut -> botwars.games.arena.rules" in r.stdout


def test_a_late_import_inside_a_function_counts_and_a_cycle_in_a_game_is_caught(tmp_path):
    src = _copy(tmp_path)
    game = os.path.join(src, "botwars", "games", "dadoed")
    with open(os.path.join(game, "board.py"), "a") as f:
        f.write("\n\ndef _late():\n    from botwars.games.dadoed import rules  # a late import is an import\n"
                "    return rules\n")
    r = lint(str(tmp_path), src)
    assert r.returncode == 1
    assert "No cycles are allowed in botwars.games.dadoed" in r.stdout


def test_the_engine_importing_the_web_breaks_the_layers(tmp_path):
    src = _copy(tmp_path)
    with open(os.path.join(src, "botwars", "engine", "events.py"), "a") as f:
        f.write("\n\ndef _pages():\n    import botwars.web\n    return botwars.web\n")
    r = lint(str(tmp_path), src)
    assert r.returncode == 1
    assert "Layers: cli > web > server" in r.stdout and "BROKEN" in r.stdout
