"""A game is one folder (issue 26 item 4): what belongs to a game is in its package or declared by
its plug-in, and the platform finds it there.

- every shipped game's package holds its rules page (``rules_page``, served at ``/rules/ID``)
  and its How-to-play page, and its declaration names its docs and its test folders (its
  scenario files among them) relative to its project root, all of which exist;
- no test file and no docs page that names a game in its path lies outside that game's
  declared folders (the SVG tests moved from tests/render into each game's test folder);
- the web package holds no rules of its own any more (``web/rules`` is gone).

The import contract that keeps game folders apart is generated from the registered games
(tests/test_import_contracts.py); the sixth game shows the whole contract
(tests/plugins/test_sixth_game.py)."""

from __future__ import annotations

import os
import re

import pytest

from botwars.engine.plugin import games

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHIPPED = sorted(gid for gid, g in games().items() if g.package().startswith("botwars.games."))


def test_the_five_games_are_shipped():
    assert SHIPPED == ["arena", "dadoed", "factory", "geeko", "submarine"]


@pytest.mark.parametrize("game_id", SHIPPED)
def test_a_shipped_game_declares_its_pages_docs_and_tests_and_they_exist(game_id):
    game = games()[game_id]
    assert game.package() == f"botwars.games.{game_id}"
    assert game.rules_page == f"botwars.games.{game_id}:rules.md"
    text = game.rules_text()
    assert text.startswith("# ") and len(text) > 2000  # the binding rules (equal to shared/rules: test_web_pages)
    assert game.how_to_play_text()
    paths = game.source_paths()
    assert paths["docs"] and paths["tests"]
    for p in paths["docs"] + paths["tests"]:
        assert p.startswith(ROOT + os.sep) and os.path.exists(p), p
    assert os.path.join(ROOT, "tests", game_id) in paths["tests"]
    assert os.path.join(ROOT, "tests", "scenarios", game_id) in paths["tests"]


def test_no_test_or_docs_page_naming_a_game_lies_outside_its_declared_folders():
    owned = {gid: games()[gid].source_paths() for gid in SHIPPED}
    strays = []
    candidates = [os.path.join(ROOT, "docs", n) for n in os.listdir(os.path.join(ROOT, "docs")) if n.endswith(".md")]
    for base, dirs, files in os.walk(os.path.join(ROOT, "tests")):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        candidates += [os.path.join(base, n) for n in files]
    for path in candidates:
        rel = os.path.relpath(path, ROOT)
        for gid in SHIPPED:
            if re.search(rf"(^|[/_.-]){gid}([/_.-]|$)", rel):
                mine = owned[gid]["docs"] + owned[gid]["tests"]
                if not any(path == p or path.startswith(p + os.sep) for p in mine):
                    strays.append(f"{rel} (names {gid})")
    assert strays == []


def test_the_web_package_holds_no_rules_of_its_own():
    assert not os.path.exists(os.path.join(ROOT, "src", "botwars", "web", "rules"))
