"""Malformed input on the command line (issue 11, audits): one line on stderr, exit 2, never a
traceback.  Exit 1 stays for well-formed input that fails what was asked (a ruling that does
not hold, a board that fails a check)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ENV = {**os.environ, "PYTHONPATH": os.path.join(ROOT, "src")}


def botwars(*args: str, cwd: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "botwars.cli", *args], capture_output=True, text=True, env=ENV,
                          timeout=120, cwd=cwd)


def one_error_line(r: subprocess.CompletedProcess) -> str:
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr + r.stdout
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("error: ")
    return lines[0][len("error: "):]


# ---- scenario files with wrongly typed fields --------------------------------------------------
@pytest.mark.parametrize("game, text, where, msg", [
    ("geeko", "game: geeko\nroom: 1\nturns: [1]\n", "3:9", "turns[0]: input should be a valid dictionary, got 1"),
    ("geeko", "game: geeko\nrobots:\n  A: {hp: ten}\nplay: turn\n", "3:11",
     "robots.A.hp: input should be a valid integer, got 'ten'"),
    ("factory", "game: factory\ngrid: |\n  r1 . .\nrobots:\n  Alice: {at: r1c1, facing: N}\nturns: [[1]]\n",
     "6:9", "turns[0]: input should be a valid dictionary, got [1]"),
    ("factory", "game: factory\ngrid: |\n  r1 . .\nrobots:\n  Alice: {at: r1c1, program: FWD1 500}\nplay: [1]\n",
     "5:30", "robots.Alice.program: input should be a valid list, got 'FWD1 500'"),
    ("submarine", "game: submarine\nstart: {turn: one}\nturns: [{orders: ''}]\n", "2:15",
     "start.turn: input should be a valid integer, got 'one'"),
    ("submarine", "game: submarine\nsubs:\n  a: {at: D9, special: sonar}\nturns: [{orders: ''}]\n", "3:11",
     "subs.a.at: 'D9' is not a space A1..G7"),
    ("dadoed", "game: dadoed\nboard: |\n  8 ........\n  7 ...Q....\n" + "".join(f"  {r} ........\n" for r in range(6, 0, -1))
     + "orders: [{order: pass}]\n", "4:8",
     "unknown tile character 'Q' at D7"),
    ("dadoed", "game: dadoed\nboard: |\n  8 ........\n  1 ........\norders: [{order: pass}]\n", "4:3",
     "a board has 8 rows (8 down to 1), got 2"),
    ("arena", "game: arena\nrobots: {1a: '3:3'}\nturns:\n  - expect: {count: [1]}\n", "4:14",
     "expect.count must map p1/p2 to a number of robots"),
])
def test_scenario_run_names_file_line_and_column_of_a_wrongly_typed_field(tmp_path, game, text, where, msg):
    f = tmp_path / f"{game}.yaml"
    f.write_text(text)
    r = botwars("scenario", "run", str(f))
    assert r.returncode == 2 and "1 malformed" in r.stdout and "Traceback" not in r.stderr
    (line,) = r.stderr.strip().splitlines()
    assert line.startswith(f"error: {f}:{where}: ") and msg in line, line


# ---- --replay -------------------------------------------------------------------------------------
def test_replay_naming_a_directory_is_refused_before_the_match(tmp_path):
    msg = one_error_line(botwars("match", "arena", "builtin:random", "builtin:random", "--replay", str(tmp_path)))
    assert msg == f"--replay: {tmp_path} is a directory; give a file name such as {tmp_path / 'match.jsonl'}"
    assert os.listdir(tmp_path) == []


def test_replay_in_an_unwritable_place_is_refused_before_the_match(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    msg = one_error_line(botwars("match", "arena", "builtin:random", "builtin:random", "--replay",
                                 str(blocker / "r.jsonl")))
    assert msg == f"--replay: cannot write {blocker / 'r.jsonl'}: {blocker} is not a folder"
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        r = botwars("match", "arena", "builtin:random", "builtin:random", "--set", "max_turns=2", "--replay",
                    str(ro / "r.jsonl"))
        if os.access(ro, os.W_OK):  # root writes anywhere: the match runs and the record is written
            assert r.returncode == 0 and (ro / "r.jsonl").exists()
        else:
            assert one_error_line(r) == f"--replay: cannot write {ro / 'r.jsonl'}: Permission denied"
    finally:
        ro.chmod(0o755)


def test_a_good_replay_path_is_left_to_the_match(tmp_path):
    out = tmp_path / "new" / "r.jsonl"
    r = botwars("match", "arena", "builtin:random", "builtin:random", "--set", "max_turns=2", "--replay", str(out),
                "--json")
    assert r.returncode == 0 and out.exists() and out.read_text().count("\n") >= 3


# ---- board check: 2 for a file that is not a board, 1 for a board that fails a check ---------------
@pytest.mark.parametrize("game, text, where", [
    ("factory", "board: t\nrows: 2\ncols: 2\nstart: r1c1 N\ngrid:\nr2 . XX\nr1 . F1\nend\n", "6:6"),
    ("factory", "board: t\nrows: 2\n", "2"),
    ("geeko", "board: t\nrows: 7\ncols: 7\nstart: r1c3 N\ngrid:\nr7 . . . GT . . Q\n", "6:17"),
    ("arena", "###\n#1#\n#?#\n", "3:2"),
    ("dadoed", "8 ........\n7 ...Q....\n", "2"),
])
def test_board_check_of_a_malformed_file_exits_2_with_one_line(tmp_path, game, text, where):
    f = tmp_path / "b.txt"
    f.write_text(text)
    msg = one_error_line(botwars("board", "check", str(f), "--game", game))
    assert msg.startswith(f"{f}:{where}")


@pytest.mark.parametrize("game, text, needle", [
    ("factory", "board: t\nrows: 2\ncols: 2\nstart: r1c1 N\ngrid:\nr2 . SR1\nr1 . F1\nend\n",
     "F-3.7: channel 1 has switches or eyes but no device"),
    ("arena", "###\n#1#\n###\n", "player 2 has no spawn point"),
])
def test_board_check_of_a_well_formed_board_that_fails_exits_1(tmp_path, game, text, needle):
    f = tmp_path / "b.txt"
    f.write_text(text)
    r = botwars("board", "check", str(f), "--game", game)
    assert r.returncode == 1 and needle in r.stdout and r.stderr == ""


def test_board_check_of_a_missing_or_binary_file_exits_2(tmp_path):
    assert one_error_line(botwars("board", "check", str(tmp_path / "nope"), "--game", "factory")).endswith(
        "cannot read: No such file or directory")
    b = tmp_path / "bin"
    b.write_bytes(b"\xff\xfe\x00")
    assert one_error_line(botwars("board", "check", str(b), "--game", "factory")).endswith("not UTF-8 text")


# ---- usage errors ----------------------------------------------------------------------------------
@pytest.mark.parametrize("args, needle", [
    (["match", "arena", "builtin:random", "builtin:random", "--seed", "abc"], "Invalid value for '--seed'"),
    (["nosuch"], "No such command 'nosuch'."),
    (["games", "--bogus"], "No such option: --bogus"),
    (["board", "check"], "Missing argument 'file'."),
])
def test_usage_errors_are_one_line(args, needle):
    msg = one_error_line(botwars(*args))
    assert needle in msg and "--help" in msg
