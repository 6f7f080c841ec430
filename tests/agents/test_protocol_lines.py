"""The JSON-lines protocol's encoding (P1c): the engine's view lines and the Python host's
reading of them and its adapters' replies go through ``orjson`` where it gives exactly what
``json`` gives, and through ``json`` everywhere else (NaN, big integers, lone surrogates, ...).
Every expected value here is ``json``'s own."""

import json
import math

import pytest

from botwars.agents import pyhost
from botwars.agents.subprocess_agent import view_line
from botwars.engine.codes import FailureCode

JSON_VIEW = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)

VIEWS = [
    {"turn": 3, "max_turns": 100, "player": 2, "user_data": "",
     "robots": [{"side": "F", "x": 12, "y": 5, "hp": 100}, {"side": "E", "x": 5, "y": 5, "hp": 7}]},
    {"clock": {"p1": 1e-05, "p2": 12.5, "p3": 1e16, "p4": -0.0}, "text": "é ✓ \x01 \t \" \\ \u2028"},
    {"player": None, "flags": [True, False, None], "nested": [[[{"a": []}]]]},
    {"big": 2 ** 70, "neg": -(2 ** 63) - 1},       # beyond orjson's integers
    {1: "int key", 2.5: "float key", None: "x"},  # keys json turns into strings
    {"nan": float("nan"), "inf": [float("inf"), -math.inf]},
    "a bare string", 42, [1, 2.25, "three"],
]


def _same(a, b) -> bool:
    """Equal as JSON values, NaN equal to NaN and ``-0.0`` told from ``0.0``."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


@pytest.mark.parametrize("view", VIEWS)
def test_P1c_view_line_is_one_line_holding_the_value_json_gives(view):
    line = view_line(view)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert _same(json.loads(line), json.loads(JSON_VIEW.encode(view)))


def test_P1c_a_view_with_nan_or_infinity_is_written_as_json_writes_it():
    assert view_line({"x": float("nan"), "y": float("inf")}) == b'{"x":NaN,"y":Infinity}\n'


def test_P1c_a_view_that_is_not_json_raises_as_json_does():
    for bad in ({"s": {1, 2}}, {"o": object()}):
        with pytest.raises(TypeError):
            JSON_VIEW.encode(bad)
        with pytest.raises(TypeError):
            view_line(bad)


LINES = [JSON_VIEW.encode(v).encode() + b"\n" for v in VIEWS] + [
    b'{"a": 1, "a": 2}\n', b'{"s": "\\ud800 lone"}\n', b'[1e400, -1e400]\n', b'\xef\xbb\xbf{"bom": 1}\n',
    b'{"x": NaN, "y": -Infinity}\n', b'  {"sp": [ 1 , 2 ] }  \r\n', b'"\\u00e9\\n"\n', b'-0\n', b'12345678901234567890123\n',
]


@pytest.mark.parametrize("line", LINES)
def test_P1c_the_host_reads_a_view_line_as_json_loads_does(line):
    got = pyhost.read_view(line)
    want = json.loads(line)
    assert type(got) is type(want) and _same(got, want)
    if isinstance(want, dict):
        assert list(got) == list(want)  # key order too


@pytest.mark.parametrize("line", [b"", b"{", b"garbage\n", b'{"a": 1} {"b": 2}\n', b"\xff\xfe\x00\n"])
def test_P1c_a_line_that_is_not_json_is_refused_by_the_host_as_by_json(line):
    with pytest.raises(ValueError):
        json.loads(line)
    with pytest.raises(ValueError):
        pyhost.read_view(line)


REPLIES = [
    {"orders": [{"x": 12, "y": 12, "action": "D"}, {"x": 12, "y": 5, "action": "M", "dir": "N"}]},
    {"orders": [], "robot_errors": [{"x": 1, "y": 2, "code": FailureCode.CRASH,
                                     "detail": "robot at (0, 1): ValueError: é \x01 \"boom\" \\ (bot.py:3)"}]},
    {"orders": [], "robot_errors": [{"x": 1, "y": 2, "code": FailureCode.MALFORMED, "detail": "lone \ud800"}]},
]


@pytest.mark.parametrize("reply", REPLIES)
def test_P12_an_adapters_plain_reply_is_the_line_json_writes(reply):
    want = pyhost._ENCODE_REPLY(reply).encode("utf-8", "replace")
    assert pyhost.plain_reply_bytes(reply) == want


def test_P13_only_adapters_that_say_so_get_the_plain_encoder_never_a_bot_file(tmp_path):
    plain = tmp_path / "plain.py"
    plain.write_text("class A:\n    plain_replies = True\n    def act(self, view):\n        return {'orders': []}\n"
                     "def load(path, host):\n    return A()\n")
    bot = tmp_path / "bot.py"
    bot.write_text("class Bot:\n    plain_replies = True\n    def act(self, view):\n        return {'orders': []}\n")
    import sys
    sys.path.insert(0, str(tmp_path))
    try:
        adapted = pyhost.make_handler(str(bot), "plain:load", "arena", "p1", {}, 0)
        own = pyhost.make_handler(str(bot), None, "arena", "p1", {}, 0)
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("plain", None)
    assert getattr(adapted, "encode", None) is pyhost.plain_reply_bytes
    assert getattr(own, "encode", None) is None  # a bot's own return value: json, always


def test_P13_a_bot_value_that_json_refuses_is_still_malformed():
    import io
    out = io.BytesIO()
    assert pyhost.answer(out, b'{"turn": 1}\n', lambda view: {"orders": [], "x": float("nan")})
    reply = json.loads(out.getvalue())
    assert reply["code"] == "malformed" and "not JSON" in reply["botwars_error"]


def test_P11_arena_view_lines_are_byte_for_byte_the_compact_json_starters_scan():
    """The Rust, C++ and Java starters scan the engine's compact JSON (docs/bots.md): every
    arena view of a played match is written exactly as ``json`` writes it."""
    from botwars.engine.referee import Referee
    from botwars.engine.ruleset import get_ruleset
    from botwars.games.arena.bots import BUILTIN

    rs = get_ruleset("arena")
    cfg = rs.validate_config({"max_turns": 30})
    ref = Referee(rs, cfg, ["p1", "p2"], 5, clock=False, history=False)
    bots = {"p1": BUILTIN["hunter"](), "p2": BUILTIN["random"]()}
    for seat, b in bots.items():
        b.start("arena", seat, cfg, 5)
    seen = 0
    while not ref.over:
        for seat in ref.pending():
            view = ref.view(seat)
            assert view_line(view) == (JSON_VIEW.encode(view) + "\n").encode("utf-8")
            seen += 1
            ref.submit(seat, bots[seat].act(view), 0.0)
        ref.resolve_point()
    assert seen == 60
