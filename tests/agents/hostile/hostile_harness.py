"""Play one hostile bot against a well-behaved sandboxed opponent and judge whether the sandbox held.

A case is (game, agent kind, attack). :func:`run_case` writes the hostile bot (the attack of
``hostile_lib.py`` wrapped for the kind) and the opponent into folders of their own under a
scratch folder, puts a fake secret into the engine's environment and a fake database file on
disk, opens TCP, UDP, Unix and abstract Unix listeners, plays the match through
:class:`~botwars.engine.match.Match` and checks, from outside:

1. the match finished (``Match.run`` returned an outcome);
2. the hostile seat has at least one recorded error, of the code the attack calls for, and no
   error says ``ESCAPED``;
3. the opponent has no error at all;
4. the record verifies (``verify_record(read_record(path))``) and holds no secret;
5. no process of either bot is left (a scan of every process's command line for the bots'
   folders, and of the engine's children), within a short grace time;
6. nothing reached the listeners, no file outside the bot's own ``/tmp`` changed, the
   ``botwars`` package is unchanged.

Used by ``tests/agents/hostile/test_hostile_bots.py`` and ``benchmarks/hostile_bots.py``.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import socket
import time
from dataclasses import dataclass, field
from typing import Any

import psutil

from botwars.agents.spec import make_agent
from botwars.engine.match import Match
from botwars.engine.record import read_record, verify_record
from botwars.engine.ruleset import get_ruleset

HERE = os.path.dirname(os.path.abspath(__file__))
LIB = open(os.path.join(HERE, "hostile_lib.py"), encoding="utf-8").read()

ATTACKS = ("infinite_loop", "sleep_past_limit", "memory_bomb", "fork_bomb", "daemon", "signals",
           "read_host_files", "read_environment", "write_outside_tmp", "sockets", "huge_output",
           "invalid_utf8", "close_stdout", "mutate_settings")
KINDS = {"arena": ("py", "cmd", "botwars-io", "rgkit"), "dadoed": ("py", "cmd"), "submarine": ("py", "cmd")}
CASES = [(g, k, a) for g, kinds in KINDS.items() for k in kinds for a in ATTACKS]
EXPECTED_CODE = {"infinite_loop": {"timeout"}, "sleep_past_limit": {"timeout"}, "memory_bomb": {"memory"},
                 "huge_output": {"malformed"}, "invalid_utf8": {"malformed"}}
CONFIG = {
    "arena": {"max_turns": 2, "turn_time_limit_s": 1.5, "memory_limit_mib": 256},
    "dadoed": {"max_turns": 4, "time_bank_s": 3, "increment_s": 1, "setup_time_s": 2},
    "submarine": {"max_rounds": 2, "turn_time_s": 1.5, "reserve_time_s": 0, "setup_time_s": 2},
}
# The memory bomb must be stopped by the memory limit, not by the clock: on a loaded machine
# (CI's two cores running the suite in parallel) starting a sandboxed host can take most of
# a 1.5 s turn, so that attack gets roomier time limits.
ROOMY = {
    "arena": {"turn_time_limit_s": 6},
    "dadoed": {"time_bank_s": 12, "setup_time_s": 8},
    "submarine": {"turn_time_s": 6, "setup_time_s": 8},
}
MEMORY_MIB = 256
FORK_TRIES = 300
HUGE_MIB = 48
SECRET_NAMES = ("DATABASE_URL", "BOTWARS_DATABASE_URL", "SMTP_PASSWORD", "BOTWARS_ADMIN_TOKEN")
GRACE_S = 3.0

WRAP = {
    "py": "class Bot:\n    def act(self, view):\n        return attack()\n",
    "rgkit": "class Robot:\n    def act(self, game):\n        attack()\n        return ['guard']\n",
    "cmd": "import json\nfor line in sys.stdin:\n    out = attack()\n    print(json.dumps(out), flush=True)\n",
    "botwars-io": "sys.stdin.readline()\nout = attack()\nprint(out if isinstance(out, str) else '', flush=True)\n",
}

ARENA_OPPONENT = """import json, sys
n = 0
for line in sys.stdin:
    n += 1
    print(json.dumps({"orders": [], "user_data": "n=%d" % n}), flush=True)
"""

GAME_OPPONENT = """from botwars.engine.plugin import get_game


class Bot:
    def start(self, game, seat, config, seed):
        self.bot = get_game(game).builtin_bots()["random"]()
        fn = getattr(self.bot, "start", None)
        if callable(fn):
            fn(game, seat, config, seed)

    def act(self, view):
        return self.bot.act(view)
"""


@dataclass
class Verdict:
    """The judgement of one case: ``problems`` is empty when the sandbox held."""

    game: str
    kind: str
    attack: str
    problems: list[str] = field(default_factory=list)
    errors: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def contained(self) -> bool:
        return not self.problems

    def line(self) -> str:
        status = "contained" if self.contained else "BROKEN: " + "; ".join(self.problems)
        first = self.errors[0] if self.errors else {}
        return (f"{self.game:<9} {self.kind:<10} {self.attack:<18} {self.seconds:5.1f}s {status}"
                + (f"  [{first.get('code')}: {str(first.get('detail'))[:70]}]" if first else ""))


def _digest(path: str) -> str | None:
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None


def _package_files() -> list[str]:
    import botwars.games.arena.rules as rules
    import botwars.agents.pyhost as pyhost
    return [os.path.abspath(rules.__file__), os.path.abspath(pyhost.__file__)]


def _children() -> set[int]:
    """The pids of this process's live descendants (e.g. a multiprocessing forkserver that an
    earlier test in the same pytest worker left running, which no bot started)."""
    try:
        return {c.pid for c in psutil.Process(os.getpid()).children(recursive=True)}
    except psutil.Error:
        return set()


def _leftovers(markers: list[str], before: frozenset[int] = frozenset()) -> list[psutil.Process]:
    """Processes of the case still running: any whose command line names a bot's folder, and
    any descendant of this process that was not there before the case (``before``)."""
    found = []
    me = os.getpid()
    for p in psutil.process_iter(["pid", "cmdline", "status"]):
        try:
            if p.info["pid"] == me or p.info["status"] == psutil.STATUS_ZOMBIE:
                continue
            cmd = " ".join(p.info["cmdline"] or ())
            if any(m in cmd for m in markers):
                found.append(p)
        except (psutil.Error, TypeError):
            continue
    try:
        for child in psutil.Process(me).children(recursive=True):
            if child.pid not in before and child.status() != psutil.STATUS_ZOMBIE and child not in found:
                found.append(child)
    except psutil.Error:
        pass
    return found


class _Listeners:
    """TCP, UDP, Unix and abstract Unix sockets of the engine that no bot may reach."""

    def __init__(self, folder: str, token: str):
        self.tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.tcp.bind(("127.0.0.1", 0))
        self.tcp.listen(8)
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", 0))
        self.unix_path = os.path.join(folder, "engine.sock")
        self.unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.unix.bind(self.unix_path)
        self.unix.listen(8)
        self.abstract_name = f"botwars-hostile-{token}"
        self.abstract = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.abstract.bind("\0" + self.abstract_name)
        self.abstract.listen(8)
        for s in (self.tcp, self.udp, self.unix, self.abstract):
            s.setblocking(False)

    def reached(self) -> list[str]:
        hits = []
        for name, s in (("tcp", self.tcp), ("unix", self.unix), ("abstract unix", self.abstract)):
            try:
                conn, _ = s.accept()
                conn.close()
                hits.append(name)
            except (BlockingIOError, OSError):
                pass
        try:
            self.udp.recvfrom(64)
            hits.append("udp")
        except (BlockingIOError, OSError):
            pass
        return hits

    def close(self) -> None:
        for s in (self.tcp, self.udp, self.unix, self.abstract):
            s.close()


def hostile_source(kind: str, params: dict[str, Any]) -> str:
    """The complete bot program of ``kind`` running the attack ``params["attack"]``."""
    return f"P = {params!r}\n" + LIB + "\n\n" + WRAP[kind]


def _spec(kind: str, path: str, py: str) -> str:
    if kind == "py":
        return path
    if kind == "rgkit":
        return f"rgkit:{path}"
    return f"{kind}:{py} {path}"


def run_case(game: str, kind: str, attack: str, folder: str, py: str | None = None) -> Verdict:
    """Play ``attack`` as ``kind`` in ``game`` against a sandboxed opponent; judge it (module doc).

    ``folder`` is an empty scratch folder; ``py`` the interpreter for ``cmd:`` and
    ``botwars-io:`` bots (default: this one).
    """
    import sys
    py = py or sys.executable
    verdict = Verdict(game, kind, attack)
    children_before = frozenset(_children())
    t0 = time.monotonic()
    token = secrets.token_hex(6)
    secret = f"fake-secret-{token}"
    hostile_dir = os.path.join(folder, f"hostile-{token}")
    opponent_dir = os.path.join(folder, f"opponent-{token}")
    os.makedirs(hostile_dir)
    os.makedirs(opponent_dir)
    db_path = os.path.join(folder, "botwars.db")
    with open(db_path, "w") as f:
        f.write(f"SQLite format 3 -- password={secret}\n")
    rs = get_ruleset(game)
    seats = rs.seat_names(2)
    hostile_seat, opponent_seat = seats[0], seats[1]
    if game == "arena":
        opp_path = os.path.join(opponent_dir, "opponent.py")
        opp_src, opp_spec = ARENA_OPPONENT, f"cmd:{py} {opp_path}"
    else:
        opp_path = os.path.join(opponent_dir, "opponent_bot.py")
        opp_src, opp_spec = GAME_OPPONENT, opp_path
    with open(opp_path, "w") as f:
        f.write(opp_src)
    listeners = _Listeners(folder, token)
    outside = os.path.join(folder, "outside.txt")
    shm = f"/dev/shm/botwars-pwned-{token}"
    host_tmp = f"/tmp/botwars-pwned-{token}"
    bot_path = os.path.join(hostile_dir, "robot.py" if kind == "rgkit" else "bot.py")
    watched = [db_path, opp_path, bot_path, outside, shm, host_tmp] + _package_files()
    params = {
        "attack": attack, "engine_pid": os.getpid(), "secret": secret, "secret_names": list(SECRET_NAMES),
        "hidden_files": ["/etc/shadow", db_path, opp_path, os.path.join(folder, "engine.sock")],
        "write_targets": [outside, db_path, opp_path, bot_path, shm, host_tmp, os.path.join(hostile_dir, "new.txt")],
        "package_files": _package_files(), "tcp_port": listeners.tcp.getsockname()[1],
        "udp_port": listeners.udp.getsockname()[1], "unix_path": listeners.unix_path,
        "abstract_name": listeners.abstract_name, "fork_tries": FORK_TRIES, "huge_mib": HUGE_MIB,
    }
    with open(bot_path, "w") as f:
        f.write(hostile_source(kind, params))
    before = {p: _digest(p) for p in watched}
    saved = {k: os.environ.get(k) for k in SECRET_NAMES}
    for k in SECRET_NAMES:
        os.environ[k] = f"{k.lower()}://{secret}@db.invalid/x"
    record = os.path.join(folder, "match.jsonl")
    try:
        config = rs.validate_config({**CONFIG[game], **(ROOMY[game] if attack == "memory_bomb" else {})})
        agents = {hostile_seat: make_agent(_spec(kind, bot_path, py), game),
                  opponent_seat: make_agent(opp_spec, game)}
        for a in agents.values():
            if hasattr(a, "memory_limit_mib") and game != "arena":
                a.memory_limit_mib = MEMORY_MIB
        try:
            res = Match(rs, config, agents, 1, record=record).run()
        except Exception as exc:  # the engine itself failed: not contained
            verdict.problems.append(f"match did not finish: {type(exc).__name__}: {exc}")
            res = None
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    if res is not None:
        verdict.errors = [e for e in res.errors if e["seat"] == hostile_seat]
        if res.outcome is None:
            verdict.problems.append("no outcome")
        if not verdict.errors:
            verdict.problems.append("no error recorded for the hostile bot")
        elif attack in EXPECTED_CODE and verdict.errors[0]["code"] not in EXPECTED_CODE[attack]:
            verdict.problems.append(f"first error is {verdict.errors[0]['code']}, expected "
                                    f"{'/'.join(sorted(EXPECTED_CODE[attack]))}")
        escaped = [e["detail"] for e in res.errors if "ESCAPED" in str(e.get("detail"))]
        if escaped:
            verdict.problems.append(escaped[0][:200])
        theirs = [e for e in res.errors if e["seat"] == opponent_seat]
        if theirs:
            verdict.problems.append(f"opponent affected: {theirs[0]['code']} {str(theirs[0]['detail'])[:120]}")
        ok, msg = verify_record(read_record(record))
        if not ok:
            verdict.problems.append(f"record does not verify: {msg}")
        text = open(record, encoding="utf-8", errors="replace").read()
        if secret in text or secret in json.dumps(res.errors):
            verdict.problems.append("the secret appears in the record or the errors")
    # processes: give the kernel a moment to reap, then look
    markers = [hostile_dir, opponent_dir]
    end = time.monotonic() + GRACE_S
    left = _leftovers(markers, children_before)
    while left and time.monotonic() < end:
        time.sleep(0.1)
        left = _leftovers(markers, children_before)
    if left:
        names = []
        for p in left:
            try:
                names.append(f"{p.pid} {' '.join(p.cmdline())[:80]}")
                p.kill()  # clean up after the failed case (these are the test's own processes)
            except psutil.Error:
                pass
        verdict.problems.append(f"{len(left)} processes left running: {names[:3]}")
    reached = listeners.reached()
    listeners.close()
    if reached:
        verdict.problems.append("reached the engine's " + ", ".join(reached))
    changed = [p for p in watched if _digest(p) != before[p]]
    for p in (shm, host_tmp):
        if os.path.exists(p):
            os.unlink(p)
    if changed:
        verdict.problems.append("changed host files: " + ", ".join(changed))
    verdict.seconds = time.monotonic() - t0
    return verdict
