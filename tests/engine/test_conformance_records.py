"""Conformance of records, for every registered game: a played record verifies; a tampered one
(a digest, an order payload) fails naming the decision point; a truncated one is incomplete —
``botwars replay FILE --verify`` says so and exits 1 — and one cut inside a line is refused
with the line named (exit 2, one line, no traceback)."""

from __future__ import annotations

import copy

import pytest
from typer.testing import CliRunner

from conformance import GAMES, GARBAGE, Player, read_lines, verify_file, write_lines, write_record

from botwars.cli import app as cli_app


def cli(*args):
    return CliRunner().invoke(cli_app, [str(a) for a in args])


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """One playthrough record per game (refusals, defaults and corrections included)."""
    out = {}
    for game in GAMES:
        p = Player(game, 4, checks=False).play()
        assert p.problems == []
        out[game] = (p, write_record(p.ref, str(tmp_path_factory.mktemp(game) / "played.jsonl")))
    return out


def decision_lines(lines):
    return [i for i, x in enumerate(lines) if x.get("type") == "decision"]


@pytest.mark.parametrize("game", GAMES)
def test_a_played_record_verifies_through_the_command_line(game, played):
    p, path = played[game]
    r = cli("replay", path, "--verify")
    assert r.exit_code == 0, r.output
    assert f"ok: {path}: {p.ref.n} decision points verified" in " ".join(r.output.split())


@pytest.mark.parametrize("game", GAMES)
def test_a_tampered_digest_fails_naming_its_decision_point(game, played, tmp_path):
    _, path = played[game]
    lines = read_lines(path)
    idx = [i for i in decision_lines(lines) if lines[i].get("digest")]
    i = idx[len(idx) // 2]
    n = lines[i]["n"]
    bad = copy.deepcopy(lines)
    d = bad[i]["digest"]
    bad[i]["digest"] = ("0" if d[0] != "0" else "1") + d[1:]
    target = write_lines(str(tmp_path / "bad.jsonl"), bad)
    ok, msg = verify_file(target)
    assert not ok and f"decision point {n}" in msg and d in msg
    r = cli("replay", target, "--verify")
    assert r.exit_code == 1 and f"decision point {n}" in " ".join(r.output.split())


@pytest.mark.parametrize("game", GAMES)
def test_a_tampered_order_payload_fails_naming_its_decision_point(game, played, tmp_path):
    _, path = played[game]
    lines = read_lines(path)
    cands = [(i, s) for i in decision_lines(lines) for s, v in lines[i]["orders"].items() if v is not None]
    assert cands, "the playthrough has accepted orders"
    # garbage in place of accepted orders: not accepted on replay
    i, seat = cands[len(cands) // 2]
    bad = copy.deepcopy(lines)
    bad[i]["orders"][seat] = GARBAGE[0]
    ok, msg = verify_file(write_lines(str(tmp_path / "garbage.jsonl"), bad))
    assert not ok and f"decision point {lines[i]['n']}" in msg, msg
    # other valid orders (the default) in place of the accepted ones: where that changes the
    # game the record diverges at that very point; where it does not, it still verifies
    diverged = 0
    for i, seat in cands[:10]:
        bad = copy.deepcopy(lines)
        bad[i]["orders"][seat] = None
        bad[i].get("errors", {}).pop(seat, None)
        ok, msg = verify_file(write_lines(str(tmp_path / f"default-{i}-{seat}.jsonl"), bad))
        if not ok:
            assert f"decision point {lines[i]['n']}" in msg, msg
            diverged += 1
    assert diverged > 0


@pytest.mark.parametrize("game", GAMES)
def test_a_record_without_its_outcome_line_is_incomplete_and_exits_1(game, played, tmp_path):
    p, path = played[game]
    lines = read_lines(path)
    assert lines[-1]["type"] == "outcome"
    n = len(lines) - 2
    for keep in sorted({n, n // 2, 0}, reverse=True):
        cut = write_lines(str(tmp_path / f"cut-{keep}.jsonl"), lines[:1 + keep])
        ok, msg = verify_file(cut)
        state = "the game is over" if keep == n else "the game is not over"
        assert (ok, msg) == (False, f"incomplete: {keep} decision points verified but the record has no "
                                    f"outcome line ({state})")
        r = cli("replay", cut, "--verify")
        text = " ".join(r.output.split())
        assert r.exit_code == 1, text
        assert text.startswith(f"incomplete: {cut}: {keep} decision points verified") and "diverged" not in text
    assert verify_file(path)[0]


@pytest.mark.parametrize("game", GAMES)
def test_a_record_cut_inside_a_line_is_refused_naming_the_line(game, played, tmp_path):
    _, path = played[game]
    text = open(path, encoding="utf-8").read()
    rows = text.splitlines(keepends=True)
    k = max(2, len(rows) // 2)  # a decision line, cut in the middle
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(rows[:k - 1]) + rows[k - 1][: len(rows[k - 1]) // 2], encoding="utf-8")
    r = cli("replay", cut, "--verify")
    assert r.exit_code == 2
    assert f"{cut}:{k}: not JSON" in "".join(r.output.split("\n"))
    assert "Traceback" not in r.output
