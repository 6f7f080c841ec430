"""``botwars tournament`` end to end (issue 15 item 1): every game with its built-in bots, a
factory free-for-all, swiss, bot failures recorded while the tournament goes on, resuming after
SIGKILL and Ctrl-C with standings identical to an uninterrupted run, and bad input (one line on
stderr, exit 2)."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ENV = {**os.environ, "PYTHONPATH": os.path.join(ROOT, "src")}
ARENA = ["builtin:defender", "builtin:hunter", "builtin:random", "builtin:swarm"]


def botwars(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "botwars.cli", *args], capture_output=True, text=True, env=ENV,
                          timeout=timeout)


def one_error_line(r: subprocess.CompletedProcess) -> str:
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr + r.stdout
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("error: ")
    return lines[0][len("error: "):]


def db_rows(out) -> list[tuple]:
    with sqlite3.connect(os.path.join(out, "tournament.db")) as c:
        return c.execute("SELECT match_id, agents, status, errors, replay FROM tournament_matches").fetchall()


def standings(out) -> list[dict]:
    with open(os.path.join(out, "standings.json")) as f:
        return json.load(f)


GAMES = [
    ("arena", ["builtin:random", "builtin:hunter"], ["max_turns=10"]),
    ("factory", ["builtin:random", "builtin:pathfinder"], ["turn_limit=3"]),
    ("geeko", ["builtin:random", "builtin:pathfinder"], ["turn_limit=3"]),
    ("dadoed", ["builtin:random", "builtin:greedy"], ["max_turns=10"]),
    ("submarine", ["builtin:random", "builtin:hunter"], ["max_rounds=4"]),
]


@pytest.mark.slow
@pytest.mark.parametrize("game, agents, params", GAMES, ids=[g[0] for g in GAMES])
def test_every_game_plays_a_round_robin(tmp_path, game, agents, params):
    out = str(tmp_path / "t")
    sets = [x for p in params for x in ("--set", p)]
    r = botwars("tournament", game, *agents, "--games-per-pair", "2", "--workers", "2", "--out", out, *sets)
    assert r.returncode == 0, r.stderr
    rows = db_rows(out)
    assert len(rows) == 2 * 1 * 2 == len({m[0] for m in rows})
    orders = sorted(tuple(json.loads(m[1])) for m in rows)
    assert orders == sorted([tuple(agents)] * 2 + [tuple(reversed(agents))] * 2)  # both seat orders
    assert all(m[2] == "ok" for m in rows)
    for m in rows:  # every replay is a complete record
        with open(os.path.join(out, m[4])) as f:
            lines = [json.loads(x) for x in f]
        assert lines[0]["type"] == "header" and lines[-1]["type"] == "outcome"
    table = standings(out)
    assert {t["agent"] for t in table} == set(agents)
    assert all(t["games"] == 4 and t["wins"] + t["draws"] + t["losses"] == 4 for t in table)
    assert sum(t["wins"] for t in table) == sum(t["losses"] for t in table)
    assert all(t["elo"] is not None and t["sigma"] < 25 / 3 for t in table)
    html = open(os.path.join(out, "standings.html")).read()
    links = re.findall(r'<a href="([^"]+)"', html)  # the replay links (the chart's SVG has xlink:href uses)
    assert sorted(links) == sorted(m[4] for m in rows)
    assert "rating" in r.stdout and "cross table" in r.stdout


@pytest.mark.slow
def test_factory_free_for_all_of_four(tmp_path):
    out = str(tmp_path / "ffa")
    agents = ["builtin:random", "builtin:pathfinder", "builtin:random", "builtin:pathfinder"]
    r = botwars("tournament", "factory", *agents, "--players", "4", "--set", "turn_limit=3", "--workers", "2",
                "--out", out)
    assert r.returncode == 0, r.stderr
    rows = db_rows(out)
    assert len(rows) == 4  # one group of four, in its four seat rotations
    seat1 = sorted(json.loads(m[1])[0] for m in rows)
    assert seat1 == sorted(["builtin:random", "builtin:pathfinder", "builtin:random#2", "builtin:pathfinder#2"])
    table = standings(out)
    assert all(t["games"] == 4 and t["elo"] is None for t in table)
    assert sum(t["wins"] + t["draws"] for t in table) >= 4  # every match has a first place
    assert sum(t["score"] for t in table) == pytest.approx(4 * 4 / 2)  # pairwise points: half per pair


@pytest.mark.slow
def test_swiss_rounds_pair_by_score(tmp_path):
    out = str(tmp_path / "sw")
    r = botwars("tournament", "arena", *ARENA, "--format", "swiss", "--rounds", "2", "--set", "max_turns=15",
                "--workers", "2", "--out", out)
    assert r.returncode == 0, r.stderr
    with sqlite3.connect(os.path.join(out, "tournament.db")) as c:
        rows = c.execute("SELECT round, agents, outcome FROM tournament_matches").fetchall()
    assert len(rows) == 2 * 2 * 2  # 2 rounds x 2 pairings x both seat orders
    pairs = {r: {frozenset(json.loads(a)) for rr, a, _ in rows if rr == r} for r in (0, 1)}
    assert len(pairs[0]) == len(pairs[1]) == 2 and not pairs[0] & pairs[1]  # no rematch
    points = {a: 0.0 for a in ARENA}
    for rr, a, o in rows:
        if rr == 0:
            agents, out_ = json.loads(a), json.loads(o)
            for seat, name in zip(("p1", "p2"), agents):
                points[name] += 1.0 if out_["winner"] == seat else 0.5 if out_["winner"] is None else 0.0
    leader = max(ARENA, key=lambda a: (points[a], -ARENA.index(a)))
    opponent = next(a for p in pairs[1] if leader in p for a in p if a != leader)
    best_other = max((a for a in ARENA if frozenset((a, leader)) not in pairs[0] and a != leader),
                     key=lambda a: points[a])
    assert points[opponent] == points[best_other]


@pytest.mark.slow
def test_bot_failures_are_recorded_and_the_tournament_goes_on(tmp_path):
    out = str(tmp_path / "bad")
    crash = f"cmd:{sys.executable} -c 'import sys; sys.exit(3)'"
    silent = f"cmd:{sys.executable} -c 'import time; time.sleep(60)'"
    r = botwars("tournament", "arena", "builtin:hunter", crash, silent, "--set", "max_turns=3",
                "--set", "turn_time_limit_s=0.3", "--workers", "2", "--no-check", "--out", out)
    assert r.returncode == 0, r.stderr
    rows = db_rows(out)
    assert len(rows) == 6 and all(m[2] == "ok" for m in rows)
    table = {t["agent"]: t for t in standings(out)}
    assert table["builtin:hunter"]["errors"] == 0
    assert table[crash]["errors"] >= 4 and table[silent]["errors"] >= 4  # a failure per seat and match at least
    assert table["builtin:hunter"]["losses"] == 0 and table["builtin:hunter"]["games"] == 4


def _run_killed(out: str, args: list[str], after_rows: int, sig: int) -> int:
    p = subprocess.Popen([sys.executable, "-m", "botwars.cli", *args, "--out", out], env=ENV,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    db = os.path.join(out, "tournament.db")
    deadline = time.time() + 120
    n = 0
    while time.time() < deadline and p.poll() is None:
        try:
            with sqlite3.connect(db, timeout=5) as c:
                n = c.execute("SELECT count(*) FROM tournament_matches").fetchone()[0]
        except sqlite3.Error:
            n = 0
        if n >= after_rows:
            break
        time.sleep(0.05)
    assert p.poll() is None, "the tournament ended before it could be interrupted"
    if sig == signal.SIGKILL:
        os.kill(p.pid, signal.SIGKILL)  # the command only: its orphaned workers can store nothing
    else:
        os.killpg(p.pid, sig)  # Ctrl-C reaches the whole foreground process group
    p.wait(timeout=60)
    if sig == signal.SIGINT:
        assert p.returncode == 130, p.stderr.read().decode()
        err = p.stderr.read().decode()
        assert "run the same command again to continue" in err and "Traceback" not in err
    time.sleep(0.5)
    try:
        os.killpg(p.pid, signal.SIGKILL)  # nothing of it may run on
    except ProcessLookupError:
        pass
    return n


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT], ids=["sigkill", "ctrl-c"])
def test_interrupted_and_run_again_gives_the_uninterrupted_standings(tmp_path, sig):
    args = ["tournament", "arena", *ARENA, "--games-per-pair", "2", "--workers", "2", "--set", "max_turns=60"]
    total = 4 * 3 * 2
    ref = str(tmp_path / "ref")
    r = botwars(*args, "--out", ref)
    assert r.returncode == 0, r.stderr
    out = str(tmp_path / "cut")
    stored_at_kill = _run_killed(out, args, 3, sig)
    assert 3 <= stored_at_kill < total
    r = botwars(*args, "--out", out)
    assert r.returncode == 0, r.stderr
    played_now = int(re.search(r"\((\d+) played now\)", r.stdout).group(1))
    assert played_now <= total - stored_at_kill
    rows = db_rows(out)
    assert len(rows) == len({m[0] for m in rows}) == total
    replays = [f for f in os.listdir(os.path.join(out, "replays")) if f.endswith(".jsonl")]
    assert sorted(replays) == sorted(os.path.basename(m[4]) for m in rows)
    with open(os.path.join(ref, "standings.json"), "rb") as a, open(os.path.join(out, "standings.json"), "rb") as b:
        assert a.read() == b.read()
    r = botwars(*args, "--out", out)  # a third run plays nothing
    assert r.returncode == 0 and "(0 played now)" in r.stdout


def _mark_failed(out: str, which: list[int]) -> list[str]:
    """Store the matches at positions ``which`` (in match order) as a backend stores a match whose
    worker died on every try: status ``failed``, no outcome, no record. Returns their ids."""
    with sqlite3.connect(os.path.join(out, "tournament.db")) as c:
        rows = c.execute("SELECT match_id, replay FROM tournament_matches ORDER BY round, seq, match_id").fetchall()
        ids = []
        for i in which:
            mid, replay = rows[i]
            os.unlink(os.path.join(out, replay))
            c.execute("UPDATE tournament_matches SET status = 'failed', outcome = NULL, turns = 0, replay = NULL, "
                      "error_detail = ? WHERE match_id = ?",
                      (json.dumps([{"decision": 0, "seat": None, "code": "lost", "detail": "worker died 4 times"}]),
                       mid))
            ids.append(mid)
    return ids


@pytest.mark.slow
def test_retry_failed_plays_the_failed_matches_again_with_their_seeds(tmp_path):
    args = ["tournament", "arena", "builtin:defender", "builtin:hunter", "builtin:random", "--set", "max_turns=10"]
    ref = str(tmp_path / "ref")
    assert botwars(*args, "--out", ref).returncode == 0
    out = str(tmp_path / "out")
    assert botwars(*args, "--out", out).returncode == 0
    ids = _mark_failed(out, [1, 4])
    r = botwars(*args, "--out", out)  # a plain re-run keeps them, and says how to retry
    assert r.returncode == 0, r.stderr
    assert "(0 played now)" in r.stdout
    assert "2 matches failed (first: worker died 4 times;" in r.stdout and "--retry-failed" in r.stdout
    with open(os.path.join(ref, "standings.json"), "rb") as a, open(os.path.join(out, "standings.json"), "rb") as b:
        assert a.read() != b.read()
    r = botwars(*args, "--out", out, "--retry-failed")
    assert r.returncode == 0, r.stderr
    assert "retrying 2 failed matches" in r.stdout and "(2 played now)" in r.stdout and "failed (first" not in r.stdout
    rows = {m[0]: m for m in db_rows(out)}
    assert all(rows[i][2] == "ok" and os.path.exists(os.path.join(out, rows[i][4])) for i in ids)
    with open(os.path.join(ref, "standings.json"), "rb") as a, open(os.path.join(out, "standings.json"), "rb") as b:
        assert a.read() == b.read()
    for i in ids:  # the same seed gives the same game: the record as the reference run wrote it
        with open(os.path.join(ref, "replays", f"{i}.jsonl")) as a, open(os.path.join(out, rows[i][4])) as b:
            strip = [{k: v for k, v in json.loads(x).items() if k != "time_s"} for x in a]
            assert strip == [{k: v for k, v in json.loads(x).items() if k != "time_s"} for x in b]
    r = botwars(*args, "--out", out, "--retry-failed")
    assert r.returncode == 0 and "retrying 0 failed matches" in r.stdout and "(0 played now)" in r.stdout


@pytest.mark.slow
def test_retry_failed_in_swiss_only_in_the_last_round_played(tmp_path):
    args = ["tournament", "arena", *ARENA, "--format", "swiss", "--rounds", "2", "--set", "max_turns=10"]
    ref = str(tmp_path / "ref")
    assert botwars(*args, "--out", ref).returncode == 0
    out = str(tmp_path / "out")
    assert botwars(*args, "--out", out).returncode == 0
    _mark_failed(out, [0])  # round 1: round 2 was paired from its results
    assert "swiss round(s) 1 hold failed matches" in one_error_line(botwars(*args, "--out", out, "--retry-failed"))
    assert len([m for m in db_rows(out) if m[2] == "failed"]) == 1  # nothing was deleted
    out2 = str(tmp_path / "out2")
    assert botwars(*args, "--out", out2).returncode == 0
    _mark_failed(out2, [7])  # the last round
    r = botwars(*args, "--out", out2, "--retry-failed")
    assert r.returncode == 0 and "retrying 1 failed match" in r.stdout, r.stderr
    with open(os.path.join(ref, "standings.json"), "rb") as a, open(os.path.join(out2, "standings.json"), "rb") as b:
        assert a.read() == b.read()


@pytest.mark.slow
def test_a_folder_of_another_tournament_is_refused(tmp_path):
    out = str(tmp_path / "t")
    r = botwars("tournament", "arena", "builtin:random", "builtin:hunter", "--set", "max_turns=3", "--out", out)
    assert r.returncode == 0, r.stderr
    msg = one_error_line(botwars("tournament", "dadoed", "builtin:random", "builtin:greedy", "--out", out))
    assert "holds a tournament of arena, not dadoed" in msg
    msg = one_error_line(botwars("tournament", "arena", "builtin:random", "builtin:swarm", "--set", "max_turns=3",
                                 "--out", out))
    assert "builtin:random, builtin:hunter" in msg
    msg = one_error_line(botwars("tournament", "arena", "builtin:random", "builtin:hunter", "--set", "max_turns=3",
                                 "--seed", "9", "--out", out))
    assert "seed" in msg


def test_a_corrupt_database_is_named(tmp_path):
    out = tmp_path / "c"
    out.mkdir()
    (out / "tournament.db").write_bytes(b"this is not a database" * 100)
    msg = one_error_line(botwars("tournament", "arena", "builtin:random", "builtin:hunter", "--out", str(out)))
    assert str(out / "tournament.db") in msg


@pytest.mark.parametrize("args, needle", [
    (["nogame", "builtin:a", "builtin:b"], "nogame"),
    (["arena", "builtin:random"], "at least 2 agents"),
    (["arena", "builtin:random", "builtin:nope"], "builtin:nope"),
    (["arena", "builtin:random", "builtin:hunter", "--players", "3"], "--players"),
    (["factory", "builtin:random", "builtin:pathfinder", "builtin:random", "--players", "3", "--format", "swiss"],
     "swiss"),
    (["arena", "builtin:random", "builtin:hunter", "--rounds", "2"], "--rounds"),
    (["arena", "builtin:random", "builtin:hunter", "--format", "knockout"], "knockout"),
    (["arena", "builtin:random", "builtin:hunter", "--backend", "mpi"], "mpi"),
    (["arena", "builtin:random", "builtin:hunter", "--backend", "ray", "--ray-address", "127.0.0.1:1"],
     "cannot reach the Ray cluster at 127.0.0.1:1"),
    (["arena", "builtin:random", "builtin:hunter", "--games-per-pair", "0"], "--games-per-pair"),
    (["arena", "builtin:random", "builtin:hunter", "--workers", "0"], "--workers"),
    (["arena", "builtin:random", "builtin:hunter", "--set", "max_turns=-1"], "max_turns"),
], ids=lambda x: x if isinstance(x, str) else None)
def test_bad_input_is_one_line(tmp_path, args, needle):
    msg = one_error_line(botwars("tournament", *args, "--out", str(tmp_path / "x")))
    assert needle in msg


# ---- audit of issue 15 item 1 (bad input): an --out that cannot be made, a tournament too big ----
def test_an_out_folder_that_cannot_be_made_is_one_line(tmp_path):
    """Issue 15 item 1 / "Bad input": --out under a plain file (or anywhere the folder cannot be
    created) is one line naming --out and the folder, exit 2, never a traceback."""
    f = tmp_path / "afile"
    f.write_text("x")
    msg = one_error_line(botwars("tournament", "arena", "builtin:random", "builtin:hunter",
                                 "--out", str(f / "sub")))
    assert msg.startswith("--out:") and str(f / "sub") in msg


@pytest.mark.parametrize("args, needle", [
    (["arena", "builtin:random", "builtin:hunter", "--games-per-pair", "1000000000"], "2000000000 matches"),
    (["arena", "builtin:random", "builtin:hunter", "--games-per-pair", "99999999999999999999"], "matches"),
    (["arena", "builtin:random", "builtin:hunter", "--format", "swiss", "--rounds", "10000000"], "20000000 matches"),
    # 30 agents, every set of 8 in every seat rotation: C(30, 8) * 8 = 46,823,400 matches
    (["factory", *["builtin:random"] * 30, "--players", "8"], "46823400 matches"),
], ids=["games-per-pair", "games-per-pair-bignum", "swiss-rounds", "free-for-all-sets"])
def test_a_tournament_too_big_to_schedule_is_refused_at_once(tmp_path, args, needle):
    """Issue 15 item 1: a huge --games-per-pair (or --rounds, or a free-for-all over many agents)
    is refused in one line saying how many matches it would be, instead of building the
    schedule for minutes and running out of memory (the limit is checked before any list of
    fixtures is made)."""
    # "before any list of fixtures is made": checked by behaviour, not by a wall-clock bound (a
    # timing is a benchmark): in process, with every schedule builder made to fail if called,
    # the command still gives the one-line refusal
    from typer.testing import CliRunner

    from botwars.cli import app
    from botwars.league import schedule

    def never(*a, **k):
        raise AssertionError("a schedule was built before the tournament size was checked")
    with pytest.MonkeyPatch.context() as mp:
        for name in ("groups_for", "fixtures_for", "rotations", "swiss_pairs"):
            mp.setattr(schedule, name, never)
        r = CliRunner().invoke(app, ["tournament", *args, "--out", str(tmp_path / "y")])
    assert r.exit_code == 2, r.output
    assert needle in r.output and "at most" in r.output and "schedule was built" not in r.output
    assert not (tmp_path / "y").exists()
    # and through the real command line: one line on stderr, exit 2, nothing made
    msg = one_error_line(botwars("tournament", *args, "--out", str(tmp_path / "x"), timeout=60))
    assert needle in msg and "at most" in msg
    assert not (tmp_path / "x").exists()


def test_agent_specs_with_brackets_are_printed_as_they_are(tmp_path):
    """Issue 15 item 1 (audit): the standings and cross tables print agent specs verbatim; a spec
    with square brackets (``[/]``, ``[red]``: extra arguments of a ``cmd:`` bot) is neither
    taken as console markup (a MarkupError traceback after the whole tournament had played)
    nor swallowed."""
    bot = os.path.join(ROOT, "examples", "starters", "python", "bot.py")
    a, b = f"cmd:python3 {bot} [/]", f"cmd:python3 {bot} [red]x"
    r = botwars("tournament", "arena", a, b, "--set", "max_turns=3", "--no-clock", "--out", str(tmp_path / "t"))
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    assert a in r.stdout and b in r.stdout
    assert {row["agent"] for row in standings(str(tmp_path / "t"))} == {a, b}


def test_workers_with_the_ray_backend_is_said_to_be_unused(tmp_path):
    """Issue 15 items 1 and 3: --workers sizes the local process pool; with --backend ray the
    cluster decides, and the command says so on stderr instead of ignoring it silently."""
    r = botwars("tournament", "arena", "builtin:random", "builtin:hunter", "--backend", "ray",
                "--ray-address", "127.0.0.1:1", "--workers", "3", "--out", str(tmp_path / "x"))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert lines[0] == ("botwars tournament: --workers is not used with --backend ray (Ray runs as many "
                        "matches at once as the cluster has CPUs)")
    assert lines[-1].startswith("error: --ray-address: cannot reach the Ray cluster at 127.0.0.1:1")
    r = botwars("tournament", "arena", "builtin:random", "builtin:hunter", "--backend", "ray",
                "--ray-address", "127.0.0.1:1", "--out", str(tmp_path / "y"))
    assert "--workers" not in r.stderr
