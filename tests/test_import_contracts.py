"""Imports run one way (issue 11, item 3): the import-linter contracts of pyproject.toml hold, and
they do catch a breach.

- ``layers``: cli > web > server > store | agents | games > render > engine;
- ``registry``: nothing outside ``botwars.games`` imports a game (games are found through the
  ``botwars.games`` entry points);
- ``acyclic``: no import cycle between packages or between the modules of one package or game;
- ``games-independent``: a game imports no other game (geeko, the declared factory variant, aside).
  This contract is not written in pyproject.toml: :func:`contracts_config` generates it from the
  registered games (every ``Game`` the registry knows, entry points and ``register_game`` alike:
  its :meth:`~botwars.engine.plugin.Game.package`, and ``variant_of`` for the one allowed
  exception), so a sixth game is covered the moment it is registered (issue 26 item 4).
"""

from __future__ import annotations

import configparser
import importlib.util
import os
import shutil
import subprocess
import sys
import tomllib

from botwars.engine.plugin import Game, games

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINT = [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command; "
                              "sys.exit(lint_imports_command())", "--no-cache"]


def game_packages(registered: dict[str, Game]) -> dict[str, str]:
    """Game id → the package that holds the game, for the ``registered`` games that live in a
    package (a toy rule set a test defines in its own module has no folder to keep apart)."""
    out = {}
    for gid, g in registered.items():
        pkg = g.package()
        spec = importlib.util.find_spec(pkg)
        if spec is not None and spec.submodule_search_locations is not None:
            out[gid] = pkg
    return out


def independence_contract(registered: dict[str, Game]) -> dict:
    """The ``games-independent`` contract for the ``registered`` games: their packages are
    independent of each other, save each declared variant's imports of its original."""
    packages = game_packages(registered)
    ignore = [f"{packages[gid]}.** -> {packages[g.variant_of]}.**"
              for gid, g in registered.items() if g.variant_of in packages]
    return {"id": "games-independent", "type": "independence",
            "name": "A game imports no other game (generated from the registered games; a declared variant "
                    "may import its original: geeko.md, preamble)",
            "modules": sorted(packages.values()), "ignore_imports": ignore}


def contracts_config(path: str, pyproject: str, registered: dict[str, Game] | None = None) -> str:
    """Write to ``path`` an import-linter INI configuration: the contracts of ``pyproject``'s
    ``[tool.importlinter]`` plus :func:`independence_contract` of the ``registered`` games
    (default: every game the registry knows), with every game's top-level package among the
    root packages. Returns ``path``."""
    with open(pyproject, "rb") as f:
        cfg = tomllib.load(f)["tool"]["importlinter"]
    registered = games() if registered is None else registered
    contracts = [c for c in cfg["contracts"] if c["id"] != "games-independent"]
    contracts.append(independence_contract(registered))
    roots = [cfg["root_package"]] + sorted({p.split(".")[0] for p in game_packages(registered).values()}
                                           - {cfg["root_package"]})
    ini = configparser.ConfigParser(interpolation=None)

    def text(value) -> str:
        return "\n".join(map(str, value)) if isinstance(value, list) else str(value)
    ini["importlinter"] = {"root_packages": text(roots)}
    for c in contracts:
        ini[f"importlinter:contract:{c['id']}"] = {k: text(v) for k, v in c.items() if k != "id" and v != []}
    with open(path, "w") as f:
        ini.write(f)
    return path


def lint(cwd: str, src: str, registered: dict[str, Game] | None = None, pyproject: str | None = None,
         extra_path: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    """``lint-imports`` on the contracts :func:`contracts_config` generates, with ``src`` (and
    ``extra_path``, plus where each registered game's package lies) on the import path."""
    registered = games() if registered is None else registered
    config = contracts_config(os.path.join(cwd, ".importlinter-generated"),
                              pyproject or os.path.join(cwd, "pyproject.toml"), registered)
    tops = {p.split(".")[0] for p in game_packages(registered).values()} - {"botwars"}
    where = [os.path.dirname(os.path.dirname(os.path.abspath(importlib.util.find_spec(top).origin))) for top in tops]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([src, *extra_path, *where]))
    return subprocess.run(LINT + ["--config", config], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)


def test_pyproject_declares_three_contracts_and_the_fourth_is_generated_from_the_registry():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        cfg = tomllib.load(f)["tool"]["importlinter"]
    assert cfg["root_package"] == "botwars"
    kinds = {c["id"]: c["type"] for c in cfg["contracts"]}
    assert kinds == {"layers": "layers", "registry": "forbidden", "acyclic": "acyclic_siblings"}
    contract = independence_contract(games())
    assert set(contract["modules"]) >= {"botwars.games.arena", "botwars.games.dadoed", "botwars.games.factory",
                                        "botwars.games.geeko", "botwars.games.submarine", "botwars_minigame"}
    assert contract["ignore_imports"] == ["botwars.games.geeko.** -> botwars.games.factory.**"]


def test_the_import_contracts_are_kept(tmp_path):
    r = lint(str(tmp_path), os.path.join(ROOT, "src"), pyproject=os.path.join(ROOT, "pyproject.toml"))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "4 kept, 0 broken" in r.stdout


def test_a_registered_sixth_game_importing_another_games_internals_breaks_the_generated_contract(tmp_path,
                                                                                                flagrace_copy):
    """The sixth game (tests/plugins/sixth), registered, with one line that reaches into the
    factory's internals: the contract generated from the registry catches it."""
    game, folder = flagrace_copy
    with open(os.path.join(folder, "flagrace", "draw.py"), "a") as f:
        f.write("\n\ndef _borrowed():\n    from botwars.games.factory import symbols  # another game's internals\n"
                "    return symbols\n")
    registered = {**games(), game.id: game}
    assert "flagrace" in independence_contract(registered)["modules"]
    r = lint(str(tmp_path), os.path.join(ROOT, "src"), registered, pyproject=os.path.join(ROOT, "pyproject.toml"),
             extra_path=(folder,))
    assert r.returncode == 1, r.stdout + r.stderr
    assert "A game imports no other game" in r.stdout and "BROKEN" in r.stdout
    assert "flagrace.draw -> botwars.games.factory.symbols" in r.stdout


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
