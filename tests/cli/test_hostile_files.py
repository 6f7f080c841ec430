"""Files from strangers on the command line (issue 25, items 1, 2 and 9): scenario files,
records (replays) and board files are shared and uploaded, so `botwars scenario run`,
`botwars replay` and `botwars board check` read them as hostile data. A YAML bomb, a huge
integer, deep nesting or a header that names a file of this machine is one line on stderr and
exit 2: no traceback, no memory blow-up, nothing of another file in the message.

Each command runs in a child process limited to 1 GiB of address space (and 60 s), so a
loader that expands a bomb fails here at once (MemoryError, a traceback) instead of eating the
machine."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ENV = {**os.environ, "PYTHONPATH": os.path.join(ROOT, "src")}
MEMORY_CAP = 1 << 30



def laughs(levels: int) -> str:
    """A flow list of ``levels`` anchored lists, each ten aliases of the one before: 10**levels
    strings once expanded, in under 300 bytes for 7 levels."""
    return ("[&a [lol,lol,lol,lol,lol,lol,lol,lol,lol,lol], "
            + ", ".join(f"&{chr(98 + i)} [{','.join('*' + chr(97 + i) for _ in range(10))}]"
                        for i in range(levels - 1)) + "]")


# a pool whose bad 'id' is a bomb: the old message quoted the whole value (80 MB for 10**7)
POOL_BOMB = f"commands:\n- id: {laughs(7)}\n  colour: blue\n"
PASSWD_HEAD = open("/etc/passwd", encoding="utf-8").read(12)


def _cap() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def botwars(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "botwars.cli", *args], capture_output=True, text=True, env=ENV,
                          timeout=60, preexec_fn=_cap)


def one_error_line(r: subprocess.CompletedProcess) -> str:
    assert r.returncode == 2, (r.returncode, r.stdout[-2000:], r.stderr[-2000:])
    assert "Traceback" not in r.stderr + r.stdout
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr[-2000:]
    assert lines[0].startswith("error: ") and len(lines[0]) < 1000
    return lines[0][len("error: "):]


def header(game: str, config: dict, seed: object = 1) -> str:
    return json.dumps({"type": "header", "format": 2, "ruleset": game, "rules_version": 1, "config": config,
                       "seats": [{"seat": "p1", "agent": "builtin:x"}, {"seat": "p2", "agent": "builtin:y"}],
                       "seed": seed, "clock": False}) + "\n"


def write(path, text: str) -> str:
    path.write_text(text)
    return str(path)


# ---- scenario run --------------------------------------------------------------------------------
def test_scenario_run_refuses_a_yaml_bomb_in_one_line(tmp_path):
    # a wrong type: the old message quoted the value whole (10**7 strings, 80 MB of text)
    f = write(tmp_path / "bomb.yaml", f"game: dadoed\ndescription: {laughs(7)}\nboard: x\norders: []\n")
    msg = one_error_line(botwars("scenario", "run", f))
    assert msg.startswith(f"{f}:2:") and "more than 100000 values once its aliases (*name) are expanded" in msg


def test_scenario_run_refuses_a_bomb_in_the_pool_parameter_naming_it(tmp_path):
    text = "game: dadoed\nconfig:\n  pool: |\n" + "".join("    " + ln + "\n" for ln in POOL_BOMB.splitlines())
    f = write(tmp_path / "pool-bomb.yaml", text + "board: x\norders: []\n")
    msg = one_error_line(botwars("scenario", "run", f))
    assert "parameter pool" in msg and "once its aliases (*name) are expanded" in msg


@pytest.mark.parametrize("text, words", [
    ("game: arena\nturn: " + "9" * 5000 + "\nturns: [{}]\n", "more than 100 digits"),
    ("game: arena\nturns: " + "[" * 5000 + "]" * 5000 + "\n", "nested more than 64 levels"),
    ("game: arena\nrobots: {1a: {at: '3:3', hp: " + "7" * 200 + "}}\nturns: [{}]\n", "more than 100 digits"),
])
def test_scenario_run_refuses_huge_integers_and_deep_nesting(tmp_path, text, words):
    f = write(tmp_path / "s.yaml", text)
    msg = one_error_line(botwars("scenario", "run", f))
    assert msg.startswith(f"{f}:") and words in msg


@pytest.mark.parametrize("game, key, text", [
    ("arena", "map", "game: arena\nmap: {path}\nturns: [{{}}]\n"),
    ("arena", "map", "game: arena\nconfig: {{map: {path}}}\nturns: [{{}}]\n"),
    ("factory", "board", "game: factory\nboard: {path}\nturns: []\n"),
    ("factory", "board", "game: factory\nconfig: {{board: {path}}}\ngrid: |\n  r1 . .\nturns: []\n"),
    ("dadoed", "pool", "game: dadoed\nconfig: {{pool: {path}}}\nboard: x\norders: []\n"),
    ("geeko", "rooms", "game: geeko\nconfig: {{rooms: {path}}}\nroom: 1\nplay: turn\n"),
])
@pytest.mark.parametrize("path", ["/dev/zero", "/etc/passwd"])
def test_a_scenario_file_naming_a_file_of_this_machine_is_refused(tmp_path, game, key, text, path):
    f = write(tmp_path / "s.yaml", text.format(path=path))
    msg = one_error_line(botwars("scenario", "run", f))
    assert f"parameter {key}" in msg and "file paths are not accepted" in msg
    assert PASSWD_HEAD not in msg


# ---- replay ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("path", ["/dev/zero", "/etc/passwd"])
@pytest.mark.parametrize("game, key", [("factory", "board"), ("arena", "map"), ("dadoed", "pool"),
                                       ("geeko", "rooms")])
@pytest.mark.parametrize("verify", [False, True])
def test_a_record_whose_header_names_a_file_is_refused_without_opening_it(tmp_path, game, key, path, verify):
    rec = write(tmp_path / "r.jsonl", header(game, {key: path}))
    r = botwars("replay", rec, *(["--verify"] if verify else []))
    msg = one_error_line(r)
    assert msg.startswith(f"{rec}:1: config") and f"parameter {key}" in msg and "file paths are not accepted" in msg
    assert PASSWD_HEAD not in r.stderr + r.stdout


def test_replay_to_svg_of_a_record_without_decisions_checks_the_header_too(tmp_path):
    rec = write(tmp_path / "r.jsonl", header("factory", {"board": "/etc/passwd"}))
    r = botwars("replay", rec, "--svg", str(tmp_path / "b.svg"))
    assert "file paths are not accepted" in one_error_line(r) and PASSWD_HEAD not in r.stderr + r.stdout


def test_replay_refuses_a_yaml_bomb_in_the_header_pool(tmp_path):
    rec = write(tmp_path / "r.jsonl", header("dadoed", {"pool": POOL_BOMB}))
    msg = one_error_line(botwars("replay", rec, "--verify"))
    assert "parameter pool" in msg and "once its aliases (*name) are expanded" in msg


@pytest.mark.parametrize("line, words", [
    (header("arena", {}, seed=0).replace('"seed": 0', '"seed": ' + "9" * 5000), "more than 100 digits"),
    (header("arena", {}, seed=10 ** 150), "more than 100 digits"),
    ('{"type": "header", "config": ' + "[" * 100_000 + "]" * 100_000 + "}\n", "nested more than"),
    ('{"type": "header", "x": ' + "[" * 70 + "]" * 70 + "}\n", "nested more than 64 levels"),
])
def test_replay_refuses_huge_integers_and_deep_nesting_in_one_line(tmp_path, line, words):
    rec = write(tmp_path / "r.jsonl", line)
    msg = one_error_line(botwars("replay", rec))
    assert msg.startswith(f"{rec}:1: ") and words in msg


def test_replay_reads_an_endless_record_no_further_than_its_limits():
    msg = one_error_line(botwars("replay", "/dev/zero"))
    assert msg.startswith("/dev/zero:1: a line over the limit of")


def test_replay_quotes_at_most_200_characters_of_a_bad_value(tmp_path):
    rec = write(tmp_path / "r.jsonl", header("arena", {}, seed="s" * 100_000))
    msg = one_error_line(botwars("replay", rec))
    assert "'seed' must be an integer" in msg and len(msg) < len(rec) + 300


# ---- board check -----------------------------------------------------------------------------------
@pytest.mark.parametrize("game", ["factory", "arena", "dadoed", "geeko"])
def test_board_check_reads_an_endless_file_no_further_than_its_limit(game):
    msg = one_error_line(botwars("board", "check", "/dev/zero", "--game", game))
    assert msg == "/dev/zero: the board file is over the limit of 1048576 bytes"


@pytest.mark.parametrize("game", ["factory", "geeko"])
def test_board_check_of_a_huge_number_is_one_line(tmp_path, game):
    f = write(tmp_path / "b.board", "board: t\nrows: " + "9" * 5000 + "\ncols: 2\nstart: r1c1 N\ngrid:\nr1 . .\nend\n")
    assert one_error_line(botwars("board", "check", f, "--game", game)) == f"{f}:2:7: a number of more than 100 digits"


# ---- the user's own command line still names files -------------------------------------------------
def test_a_match_with_a_board_file_on_the_command_line_records_its_text_and_replays(tmp_path):
    board = tmp_path / "mine.map"
    board.write_text("#######\n#1...2#\n#.....#\n#######\n")
    rec = str(tmp_path / "r.jsonl")
    r = subprocess.run([sys.executable, "-m", "botwars.cli", "match", "arena", "builtin:random", "builtin:random",
                        "--set", f"map={board}", "--set", "max_turns=3", "--replay", rec, "--json"],
                       capture_output=True, text=True, env=ENV, timeout=120)
    assert r.returncode == 0, r.stderr
    with open(rec, encoding="utf-8") as f:
        assert json.loads(f.readline())["config"]["map"] == board.read_text()  # the text, not the path
    ok = botwars("replay", rec, "--verify")
    assert ok.returncode == 0 and "ok" in ok.stdout, ok.stderr
