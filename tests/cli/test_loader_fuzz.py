"""Fuzzing the file loaders of every game (issue 11, audits): scenario files and board/map files.

Whatever the input, a loader either works (a scenario returns its failure lines, a board check
its problem lines) or raises :class:`ConfigError`, whose message is one line: never another
exception, which the command line would show as a traceback.  Inputs are the project's own
valid files mutated at random (a value replaced by a random YAML value of any type, a key
removed, a token or line of a board changed) and random documents and texts.
"""

from __future__ import annotations

import copy
import glob
import os
import tempfile
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from botwars.engine.errors import ConfigError
from botwars.engine.ruleset import get_ruleset
from botwars.engine.scenario import check_file

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GAMES = ["arena", "dadoed", "factory", "geeko", "submarine"]
TMP = tempfile.mkdtemp(prefix="botwars-fuzz-")
FUZZ = settings(max_examples=int(os.environ.get("BOTWARS_FUZZ_EXAMPLES", "200")), deadline=None,
                suppress_health_check=list(HealthCheck), derandomize="BOTWARS_FUZZ_EXAMPLES" not in os.environ)


def scenario_docs(game: str) -> list[dict[str, Any]]:
    out = []
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "scenarios", game, "*.yaml"))):
        with open(path, encoding="utf-8") as f:
            out.append(yaml.safe_load(f))
    return out


DOCS = {g: scenario_docs(g) for g in GAMES}

# values a scenario might hold: every YAML type, and texts that look like the games' notations
WORDS = ["", "x", "r1c1", "r99c99", "A1", "H8", "Z9", "D4", "7:8", "FWD1 500", "FWD1 501", "RT90", "stage 1",
         "stage 9", "end", "turn", "default", "hand", "destroyed", "removed", "real", "virtual", "p1", "p3",
         "spectator", "blue", "a", "A", "B", "1a", "N", "Q", "SG1", "CR24SG3", "torpedo", "a move N", "\n", "é",
         "r2 . .\nr1 . ."]
LEAF = (st.none() | st.booleans() | st.integers(-3, 12) | st.sampled_from([10**12, -10**12, 2**63])
        | st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from(WORDS) | st.text(max_size=8))
VALUE = st.recursive(LEAF, lambda kids: st.lists(kids, max_size=3)
                     | st.dictionaries(st.sampled_from(WORDS) | st.integers(0, 9), kids, max_size=3), max_leaves=8)


def paths(node: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(node, dict):
        for k, v in node.items():
            out += paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out += paths(v, prefix + (i,))
    return out


@st.composite
def mutated(draw: Any, game: str) -> dict[str, Any]:
    doc = copy.deepcopy(draw(st.sampled_from(DOCS[game])))
    for _ in range(draw(st.integers(1, 3))):
        where = [p for p in paths(doc) if p and p != ("game",)]
        if not where:
            break
        p = draw(st.sampled_from(where))
        parent = doc
        for k in p[:-1]:
            parent = parent[k]
        if isinstance(parent, dict) and draw(st.booleans()) and draw(st.booleans()):
            del parent[p[-1]]
        else:
            parent[p[-1]] = draw(VALUE)
    return doc


def run_doc(doc: dict[str, Any]) -> list[str]:
    try:
        text = yaml.safe_dump(doc, allow_unicode=True)
    except yaml.YAMLError:
        assume(False)
    path = os.path.join(TMP, "s.yaml")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    try:
        out = check_file(path)
    except ConfigError as exc:
        assert "\n" not in exc.one_line(), exc.one_line()
        return []
    assert isinstance(out, list) and all(isinstance(x, str) for x in out)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_mutated_scenario_files_only_raise_config_error(game):
    @FUZZ
    @given(mutated(game))
    def check(doc):
        run_doc(doc)
    check()


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_random_scenario_documents_only_raise_config_error(game):
    keys = sorted({k for d in DOCS[game] for k in d} - {"game"})

    @FUZZ
    @given(st.dictionaries(st.sampled_from(keys), VALUE, max_size=5))
    def check(body):
        run_doc({"game": game, **body})
    check()


# ---- boards and maps --------------------------------------------------------------------------
def board_texts(game: str) -> list[str]:
    pattern = {"factory": "src/botwars/games/factory/boards/*.board", "geeko": "src/botwars/games/geeko/rooms/*.board",
               "arena": "src/botwars/games/arena/maps/*.map"}.get(game)
    if pattern is None:  # dadoed: the boards inside its scenario files
        return [d["board"] for d in DOCS["dadoed"] if isinstance(d.get("board"), str)][:20]
    out = []
    for path in sorted(glob.glob(os.path.join(ROOT, pattern)))[:6]:
        with open(path, encoding="utf-8") as f:
            out.append(f.read())
    return out


TOKENS = [".", "PT", "TD1+", "TD0+", "DBN1", "TPA", "TPA1+", "CYE", "GL", "CR24", "CR24SG3", "CR9SR1", "CR6", "SG1",
          "SR9", "F1", "F9", "W2", "UP", "ARFI", "ARML", "ARZZ", "GT", "GT1-", "./wN", "./pS24", "./lE3", "./eW1",
          "./bN1+", "./wNfN", "X", "#", "1", "2", "*", "O", "a", "end", "grid:", "rows: 0", "rows: 99", "start: r1c1 N",
          "start: r1c3 N, r1c5 N", "board: x", "r1", "r0", "\t", "", "é", "ABCDEFGH", "8 ........"]


@st.composite
def mutated_board(draw: Any, game: str) -> str:
    lines = draw(st.sampled_from(board_texts(game))).split("\n")
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, max(0, len(lines) - 1)))
        op = draw(st.sampled_from(["token", "delete", "duplicate", "insert", "chars"]))
        if not lines:
            lines = [""]
        if op == "token":
            toks = lines[i].split(" ")
            j = draw(st.integers(0, len(toks) - 1))
            toks[j] = draw(st.sampled_from(TOKENS))
            lines[i] = " ".join(toks)
        elif op == "delete":
            del lines[i]
        elif op == "duplicate":
            lines.insert(i, lines[i])
        elif op == "insert":
            lines.insert(i, draw(st.sampled_from(TOKENS)))
        else:
            k = draw(st.integers(0, len(lines[i])))
            lines[i] = lines[i][:k] + draw(st.text(max_size=3)) + lines[i][k + 1:]
    return "\n".join(lines)


RANDOM_TEXT = st.text(alphabet=st.sampled_from(list(" \n\t.#12*OXAaBbF+-:/rcNESWPTDGCRYBLUWS0123456789") + ["é", "\r"]),
                      max_size=200)


def check_board_text(game: str, text: str) -> None:
    rs = get_ruleset(game)
    modes = [False, True] if game == "geeko" else [False]
    for entry in modes:
        try:
            out = rs.check_board(text, "fuzz.board", entry=entry)
        except ConfigError as exc:
            assert "\n" not in exc.one_line(), exc.one_line()
            continue
        assert isinstance(out, list) and all(isinstance(x, str) and "\n" not in x for x in out), out
    if game == "geeko":  # the room-set loader behind --set rooms=FILE
        from botwars.games.geeko.board import load_rooms
        try:
            load_rooms(text + "\n")
        except ConfigError as exc:
            assert "\n" not in exc.one_line()


@pytest.mark.slow
@pytest.mark.parametrize("game", ["arena", "dadoed", "factory", "geeko"])
def test_mutated_boards_only_raise_config_error(game):
    @FUZZ
    @given(mutated_board(game))
    def check(text):
        check_board_text(game, text)
    check()


@pytest.mark.slow
@pytest.mark.parametrize("game", ["arena", "dadoed", "factory", "geeko"])
def test_random_board_texts_only_raise_config_error(game):
    @FUZZ
    @given(RANDOM_TEXT)
    def check(text):
        check_board_text(game, text)
    check()


def test_every_game_with_a_board_format_is_fuzzed():
    """Submarine has no board file (S-2: a fixed 7x7 sea); every other game's checker is fuzzed."""
    have = sorted(g for g in GAMES if getattr(get_ruleset(g), "check_board", None) is not None)
    assert have == ["arena", "dadoed", "factory", "geeko"]
