"""A bot's processes die with its match, also where its sandboxed host is kept across matches
(issue 25 item 5; docs/sandbox.md, "the bot dies with its match").

A tournament's worker and the league's scheduler keep a Python bot's host from one match to
the next (:mod:`botwars.agents.hostpool`). The bots here start processes that would outlive
their match — a ``setsid`` daemon, or a fork bomb's forty sleeping children — and, at the start
of each match, look in their sandbox's PID namespace for any process left from an earlier
match (besides the namespace's init, the kept host and themselves). Such a process is reported
as the seat's error ``LEFTOVER``. Played through a 4-match tournament (one worker, so one kept
host) and through the league's scheduler, no match may see one; and from outside, a kept host
that left anything behind is not kept (``HostPool.swept``), while a well-behaved bot's host
still is."""

from __future__ import annotations

import os
import warnings

import pytest

from botwars.agents import sandbox

warnings.filterwarnings("ignore", message=".*httpx2.*")

pytestmark = pytest.mark.skipif(sandbox.probe().bwrap is None,
                                 reason="needs bubblewrap's PID namespace (scripts/ensure-bubblewrap.sh): "
                                        "the bots count the processes they can see in it")

# a fresh sandboxed host's first decision can take seconds on a loaded machine: no timeouts here
ROOMY = {"max_turns": 3, "turn_time_limit_s": 20}

BOT = """import os, time

MODE = %r


def _leftovers():
    me, host = os.getpid(), os.getppid()
    return sorted(int(n) for n in os.listdir("/proc") if n.isdigit() and int(n) not in (1, me, host))


def _daemon():
    pid = os.fork()
    if pid == 0:
        os.setsid()
        if os.fork() == 0:
            time.sleep(300)
        os._exit(0)
    os.waitpid(pid, 0)


def _fork_bomb():
    for _ in range(40):
        try:
            if os.fork() == 0:
                time.sleep(300)
                os._exit(0)
        except OSError:
            break


class Bot:
    def __init__(self):
        self.n = 0

    def act(self, view):
        self.n += 1
        if self.n == 1:
            left = _leftovers()
            if left:
                raise RuntimeError("LEFTOVER: %%d processes of an earlier match" %% len(left))
            if MODE == "daemon":
                _daemon()
            elif MODE == "fork_bomb":
                _fork_bomb()
        return {"orders": []}
"""


def _bot(tmp_path, mode: str) -> str:
    folder = tmp_path / mode
    folder.mkdir()
    path = folder / "bot.py"
    path.write_text(BOT % mode)
    return str(path)


def _leftovers(rows: list[dict]) -> list[str]:
    return [e["detail"] for r in rows for e in r["error_detail"] if "LEFTOVER" in str(e.get("detail"))]


@pytest.mark.parametrize("mode", ["daemon", "fork_bomb"])
def test_a_tournament_with_kept_hosts_leaves_no_process_of_one_match_to_the_next(tmp_path, mode):
    from botwars.league.backends import LocalBackend
    from botwars.league.tournament import Tournament, TournamentSettings
    bot = _bot(tmp_path, mode)
    t = Tournament(TournamentSettings("arena", [bot, "builtin:random"], games_per_pair=2,
                                      overrides=ROOMY), str(tmp_path / "out"))
    assert t.total() == 4
    rows: list[dict] = []
    t.run(LocalBackend(workers=1), on_match=lambda rep, new: rows.append(rep.row))
    assert len(rows) == 4 and all(r["status"] == "ok" for r in rows), rows
    assert _leftovers(rows) == []
    assert sum(r["errors"][s] for r in rows for s in r["errors"]) == 0, [r["error_detail"] for r in rows]


@pytest.mark.parametrize("mode", ["daemon", "fork_bomb"])
def test_the_league_with_kept_hosts_leaves_no_process_of_one_match_to_the_next(tmp_path, monkeypatch, mode):
    from test_league_server import make_league_client, upload
    c, lg = make_league_client(tmp_path, monkeypatch)
    lg.config = {"arena": ROOMY}
    with c:
        source = open(_bot(tmp_path, mode)).read()
        r = upload(c, f"procs-{mode.replace('_', '-')}", kind="py", source=source)
        assert r.status_code == 201, r.text
        for _ in range(4):
            assert lg.step() == 1
        matches = c.get(f"/api/league/bots/{r.json()['bot']}").json()["matches"]
        assert len(matches) == 4
        assert _leftovers(matches) == []
        assert all(m["status"] == "ok" and sum(m["errors"].values()) == 0 for m in matches), matches
        lg.stop()


def _play(spec: str, seed: int) -> dict:
    from botwars.agents.spec import make_agent
    from botwars.engine import Match, get_ruleset
    rs = get_ruleset("arena")
    agents = {"p1": make_agent(spec, "arena"), "p2": make_agent("builtin:random", "arena")}
    res = Match(rs, rs.validate_config(ROOMY), agents, seed).run()
    return {"errors": res.errors, "kept": agents["p1"].kept}


def test_a_host_that_left_processes_behind_is_replaced_and_a_clean_one_is_kept(tmp_path):
    from botwars.agents import reuse_hosts
    daemon, quiet = _bot(tmp_path, "daemon"), _bot(tmp_path, "quiet")
    with reuse_hosts() as pool:
        first = [_play(daemon, s) for s in (1, 2)]
        assert pool.swept == 2  # each match's host had a daemon left: killed, not kept
        assert [m["kept"] for m in first] == [False, False] and all(not m["errors"] for m in first)
        second = [_play(quiet, s) for s in (3, 4, 5)]
        assert [m["kept"] for m in second] == [False, True, True]  # nothing left: kept and reused
        assert pool.swept == 2 and all(not m["errors"] for m in second)


def test_a_kept_host_is_replaced_after_its_quota_of_matches(tmp_path):
    from botwars.agents import hostpool, reuse_hosts
    quiet = _bot(tmp_path, "quiet")
    with reuse_hosts() as pool:
        pool.max_matches = 2
        kept = [_play(quiet, s)["kept"] for s in range(5)]
    assert kept == [False, True, False, True, False]
    assert hostpool.MAX_MATCHES >= 2


def test_sweep_kills_every_process_of_the_sandbox_but_the_host(tmp_path):
    script = tmp_path / "host.py"
    script.write_text("import os, sys, time\n"
                      "for _ in range(5):\n"
                      "    if os.fork() == 0:\n"
                      "        os.setsid()\n"
                      "        time.sleep(300)\n"
                      "        os._exit(0)\n"
                      "print('ready', flush=True)\n"
                      "sys.stdin.read()\n")
    proc = sandbox.spawn(["python3", str(script)])
    try:
        assert proc.stdout.readline() == b"ready\n"
        assert sandbox.sweep(proc) == 5
        assert proc.poll() is None  # the host itself lives on
        assert sandbox.sweep(proc) == 0
        members = sandbox._members(proc)
        assert sorted(members) == sorted(sandbox._host_chain(proc, members))
    finally:
        sandbox.kill(proc)
    assert os.path.exists(script)
