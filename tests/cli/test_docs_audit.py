"""Newcomer's audit of the documented commands (README "The command line": bad input gets a
one-line error naming what is wrong, exit 2, never a traceback; an option is never silently
ignored)."""

from __future__ import annotations

import pytest
from test_malformed_input import botwars, one_error_line  # the CLI helpers of tests/cli


@pytest.fixture(scope="module")
def record(tmp_path_factory) -> str:
    path = str(tmp_path_factory.mktemp("rec") / "r.jsonl")
    r = botwars("match", "arena", "builtin:random", "builtin:random", "--seed", "1", "--set", "max_turns=3",
                "--replay", path)
    assert r.returncode == 0, r.stderr
    return path


def test_replay_svg_into_a_missing_folder_is_one_line(record, tmp_path):
    target = str(tmp_path / "no-such-folder" / "b.svg")
    msg = one_error_line(botwars("replay", record, "--svg", target))
    assert msg.startswith(f"--svg {target}: cannot write")


def test_replay_html_without_report_is_refused_not_ignored(record, tmp_path):
    page = tmp_path / "p.html"
    msg = one_error_line(botwars("replay", record, "--html", str(page)))
    assert "--report" in msg
    assert not page.exists()


def test_replay_seat_without_a_picture_is_refused_not_ignored(record):
    msg = one_error_line(botwars("replay", record, "--seat", "p1"))
    assert "--svg" in msg


@pytest.mark.parametrize("command, shown", [
    (["match"], "[default: replays/GAME-SEED-TIME.jsonl]"),
    (["tournament"], "[default: sqlite:///OUT/tournament.db]"),
    (["tournament"], "[default: tournaments/GAME-SEED]"),
    (["new-match"], "[default: remote for every seat]"),
    (["bot", "check"], "[default: the game's first built-in bot]"),
    (["sandbox", "check"], "[default: $BOTWARS_SANDBOX_MIN, else full]"),
    (["serve"], "[default: CPUs, 2 to 8]"),
])
def test_help_shows_the_defaults_written_in_brackets(command, shown):
    # the options' help texts name their defaults as "[default: ...]"; read as console markup
    # those brackets were swallowed, so `--help` hid every such default (README: every command has --help)
    from typer.testing import CliRunner

    from botwars.cli import app
    h = CliRunner().invoke(app, [*command, "--help"], terminal_width=200)
    assert h.exit_code == 0, h.output
    text = " ".join(h.output.replace("│", " ").split())
    assert shown in text, text


def test_serve_with_an_unknown_log_level_is_one_line_before_start_up(tmp_path):
    # was: the server opened its database, printed its lobby URL, then died with uvicorn's KeyError
    r = botwars("serve", "--port", "9", "--log-level", "chatty", "--db", f"sqlite:///{tmp_path / 'x.db'}",
                cwd=str(tmp_path))
    msg = one_error_line(r)
    assert msg.startswith("--log-level: unknown level 'chatty'") and "warning" in msg
    assert "lobby" not in r.stdout


def test_serve_on_a_port_in_use_is_one_line_exit_2(tmp_path):
    # was: the lobby URL printed as if the server ran, then uvicorn's "ERROR: ... address already in use", exit 3
    import socket
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        r = botwars("serve", "--port", str(port), "--db", f"sqlite:///{tmp_path / 'x.db'}", cwd=str(tmp_path))
    msg = one_error_line(r)
    assert msg.startswith(f"--port: cannot listen on 127.0.0.1:{port}: "), msg
    assert "lobby" not in r.stdout


def test_serve_with_an_unknown_host_is_one_line(tmp_path):
    r = botwars("serve", "--host", "no-such-host.invalid", "--db", f"sqlite:///{tmp_path / 'x.db'}",
                cwd=str(tmp_path))
    assert one_error_line(r).startswith("--host: cannot listen on no-such-host.invalid")


def test_scenario_run_on_a_folder_without_scenarios_is_refused(tmp_path):
    # was: "0 passed, 0 failed" and exit 0, a success for a mistyped folder (README: "exits 0 only
    # if every file passes")
    (tmp_path / "notes.txt").write_text("not a scenario\n")
    msg = one_error_line(botwars("scenario", "run", str(tmp_path)))
    assert msg == f"{tmp_path}: no scenario files (*.yaml, *.yml) in this folder"


def test_replay_verify_with_a_turn_is_refused_not_ignored(record):
    msg = one_error_line(botwars("replay", record, "--verify", "--turn", "2"))
    assert "--verify" in msg and "--turn" in msg


@pytest.mark.parametrize("command", [["match"], ["tournament"], ["board", "check"], ["replay"], ["serve"]])
def test_help_shows_no_value_after_a_flag(command):
    # Typer 0.29 writes a type after every option, "<bool>" after flags too, so `--json <bool>`
    # and `--help <bool>` read as if they took a value; a flag's type column is left empty, and
    # --set shows what it takes
    from typer.testing import CliRunner

    from botwars.cli import app
    h = CliRunner().invoke(app, [*command, "--help"], terminal_width=200)
    assert h.exit_code == 0, h.output
    assert "<bool>" not in h.output
    cells = [line.replace("│", " ").split() for line in h.output.splitlines()]
    rows = {c[0]: c for c in cells if c and c[0].startswith("--")}  # an option's row: its words
    assert rows["--help"][1:4] == ["Show", "this", "message"]
    if command == ["match"]:
        assert rows["--json"][1] == "Print"
        assert rows["--set"][1] == "KEY=VALUE"
