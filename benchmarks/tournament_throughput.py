"""Tournament throughput: real rgkit bots in botwars (sandboxed) against rgkit's own engine (not a test).

Issue 15 item 5. In one run, on the same machine at the same moment, the same pairings of
unmodified RobotGame bots from ``../shared/peers/rgkit/rgkit/bots`` (default: ``team_15`` vs
``team_2`` and ``guardbot`` vs ``randombot``) play ``--games`` full games each:

- **rgkit**: rgkit's own engine (``rgkit.game.Game`` with ``rgkit.game.Player``), in process,
  on rgkit's default map and settings (bots in the engine's memory, no isolation);
- **botwars**: ``botwars.engine.Match`` with ``make_agent("rgkit:BOT", "arena")`` per seat and
  game, on the arena's default map and parameters, every bot in its own sandboxed host process
  at the machine's isolation level (``botwars sandbox check``), with the hosts kept across
  matches (:func:`botwars.agents.reuse_hosts`; ``--no-reuse``: a fresh host per match, as before).

botwars plays each pairing twice: on the arena's default map and parameters (16×16, two spawn
points a player: about 2-6 robots in play per turn, so per-turn costs dominate), and on
``rgkit-board``: rgkit's default 19×19 board (its obstacles) as an arena map with five spawn
points a player taken from rgkit's spawn squares (mirror-symmetric), ``initial_hp`` 50,
``attack_damage_enemy`` 9 and ``self_destruct_damage`` 15 (rgkit: 50 HP, 8-10, 15), so that
about as many robots are in play as in rgkit's games. The arena rules still apply (e.g. every
spawn point spawns, where rgkit picks five random spawn squares).

A robot-action is one robot's turn (the robots in play at the start of each turn, summed over
the turns; both engines count the same way). CPU time is every process's: this one's and every
sandboxed host's, kept hosts included, read from the cgroup hierarchy, v2 (``cpu.stat``) or v1
(``cpuacct``), and the report says which (``benchmarks/_cpu.py``: a group of its own where one
can be made, else the own cgroup's counter read only; where no counter can be read at all it
falls back to ``getrusage``, which misses the sandboxed bots, and says so; ``--no-rusage``
stops instead): per
core, the figure that decides how many matches a machine plays. Seat orders alternate. Usage:

    PYTHONPATH=src python benchmarks/tournament_throughput.py [--games 20] [--no-reuse] [--json]

``--floor`` adds two bounds, both on rgkit's board:

- the process boundary alone: a kept sandboxed host whose bot answers every view at once with no
  orders (``{"orders": []}``), fed the views of a game of the built-in ``defender`` and ``random``
  bots (what guardbot and randombot do), in CPU time (engine and host) per decision, next to
  rgkit's CPU time per whole guardbot-vs-randombot turn in the same run. A turn asks two seats,
  so twice this is what botwars spends per turn before any bot, adapter or rule does any work;
- everything but the boundary: the same pairings with the same protocol and adapter code (the
  view as a JSON line, ``pyhost``'s answer, the reply decoded and validated by the referee) but
  both bots called inside the engine's process, unsandboxed: a measurement only, what botwars
  would reach if a process boundary cost nothing.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import io
import json
import os
import platform
import sys
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from _cpu import CpuAccount, NoAccounting  # noqa: E402  (benchmarks/_cpu.py, beside this file)
RGKIT = os.environ.get("BOTWARS_RGKIT_SRC") or os.path.abspath(os.path.join(HERE, "..", "..", "shared", "peers", "rgkit"))
PAIRINGS = (("team_15", "team_2"), ("guardbot", "randombot"))


_ACCOUNT = None  # the CpuAccount of this run (benchmarks/_cpu.py), made in main()


def cpu() -> float:
    """CPU seconds used so far by this process and every process it started, sandboxed bots and
    kept hosts included (cgroup v2 ``cpu.stat`` or v1 ``cpuacct``: :mod:`_cpu`)."""
    if _ACCOUNT is None:
        raise RuntimeError("cpu(): no CPU account yet (main() makes it)")
    return _ACCOUNT.seconds()


def bot_file(name: str) -> str:
    return os.path.join(RGKIT, "rgkit", "bots", f"{name}.py")


def run_rgkit(a: str, b: str, games: int) -> tuple[int, int, float, float]:
    """``games`` games of rgkit's engine; returns (games, robot-actions, cpu s, wall s)."""
    sys.path.insert(0, RGKIT)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from rgkit import game as rgame
        from rgkit.settings import settings
    with open(os.path.join(RGKIT, "rgkit", "maps", "default.py")) as f:
        settings.init_map(ast.literal_eval(f.read()))
    actions = 0
    c0, w0 = cpu(), time.perf_counter()
    for g in range(games):
        first, second = (a, b) if g % 2 == 0 else (b, a)
        players = [rgame.Player(file_name=bot_file(first)), rgame.Player(file_name=bot_file(second))]
        gm = rgame.Game(players, seed=g)
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            gm.run_all_turns()
        actions += sum(len(gm.get_state(t).robots) for t in range(settings.max_turns))
    return games, actions, cpu() - c0, time.perf_counter() - w0


def rgkit_board() -> dict:
    """Arena parameters for rgkit's default board (see the module docstring)."""
    with open(os.path.join(RGKIT, "rgkit", "maps", "default.py")) as f:
        data = ast.literal_eval(f.read())
    size = 19
    obstacles = set(map(tuple, data["obstacle"]))
    spawns = set(map(tuple, data["spawn"]))
    mine = sorted((x, y) for x, y in spawns if x < 9 and (size - 1 - x, size - 1 - y) in spawns)
    p1 = [mine[i * len(mine) // 5] for i in range(5)]
    p2 = [(size - 1 - x, size - 1 - y) for x, y in p1]
    rows = []
    for y in range(size):  # rgkit row 0 is the top line (arena R1: first line = highest Y)
        rows.append("".join("1" if (x, y) in p1 else "2" if (x, y) in p2 else "#" if (x, y) in obstacles else "."
                            for x in range(size)))
    return {"map": "\n".join(rows) + "\n", "initial_hp": 50, "attack_damage_enemy": 9, "self_destruct_damage": 15}


def run_botwars(a: str, b: str, games: int, reuse: bool, params: dict | None = None
                ) -> tuple[int, int, float, float, int]:
    """``games`` arena matches of ``rgkit:`` bots; returns (games, robot-actions, cpu s, wall s, errors)."""
    from botwars.agents import reuse_hosts
    from botwars.agents.spec import make_agent
    from botwars.engine.match import Match
    from botwars.engine.ruleset import get_ruleset

    rs = get_ruleset("arena")
    cfg = rs.validate_config(params or {})
    actions = errors = 0
    c0, w0 = cpu(), time.perf_counter()
    with (reuse_hosts() if reuse else contextlib.nullcontext()):
        for g in range(games):
            first, second = (a, b) if g % 2 == 0 else (b, a)
            m = Match(rs, cfg, {"p1": make_agent(f"rgkit:{bot_file(first)}", "arena"),
                                "p2": make_agent(f"rgkit:{bot_file(second)}", "arena")}, seed=g)
            m.start_agents()
            try:
                while m.outcome() is None:
                    actions += len(m.state.robots)
                    m.step()
            finally:
                for agent in m.agents.values():
                    agent.close()
            errors += len(m.errors)
    return games, actions, cpu() - c0, time.perf_counter() - w0, errors


ECHO_BOT = "class Bot:\n    def act(self, view):\n        return {'orders': []}\n"


def measure_floor(rgkit_turn_us: float, decisions: int = 2000) -> dict:
    """CPU per decision of a kept sandboxed host that answers at once (see the module docstring),
    fed the views of one built-in defender-vs-random game on rgkit's board; returns microseconds."""
    import tempfile
    from botwars.agents import reuse_hosts
    from botwars.agents.spec import make_agent
    from botwars.engine.referee import Referee
    from botwars.engine.ruleset import get_ruleset
    from botwars.games.arena.bots import BUILTIN

    rs = get_ruleset("arena")
    cfg = rs.validate_config(rgkit_board())
    ref = Referee(rs, cfg, ["p1", "p2"], 0, clock=False, history=False)
    bots = {"p1": BUILTIN["defender"](), "p2": BUILTIN["random"]()}
    for seat, bot in bots.items():
        bot.start("arena", seat, cfg, 0)
    views = []
    while not ref.over:
        for seat in ref.pending():
            view = ref.view(seat)
            views.append(view)
            ref.submit(seat, bots[seat].act(view), 0.0)
        ref.resolve_point()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "echo_bot.py")
        with open(path, "w") as f:
            f.write(ECHO_BOT)
        with reuse_hosts():
            agent = make_agent(path, "arena")
            agent.start("arena", "p1", cfg, 1)
            agent.act(views[0], None)  # the host's start is not part of the floor
            c0, e0 = cpu(), time.process_time()
            for i in range(decisions):
                agent.act(views[i % len(views)], 10.0)
            total, engine = cpu() - c0, time.process_time() - e0
            agent.close()
    per = total / decisions * 1e6
    return {"decisions": decisions, "robots_per_view": round(sum(len(v["robots"]) for v in views) / len(views), 1),
            "cpu_us_per_decision": round(per, 1), "engine_us_per_decision": round(engine / decisions * 1e6, 1),
            "host_us_per_decision": round((total - engine) / decisions * 1e6, 1),
            "two_seats_us_per_turn": round(2 * per, 1), "rgkit_guardbot_randombot_us_per_turn": round(rgkit_turn_us, 1)}


class InProcessProtocol:
    """An ``rgkit:`` bot driven through the JSON-lines protocol and the host's own code
    (:func:`botwars.agents.pyhost.answer` with the rgkit adapter) but in this process: no
    process, no sandbox (``--floor`` only; never a way to run strangers' bots)."""

    def __init__(self, path: str):
        self.path = path
        self.handle = None
        self.encode = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode

    def start(self, game: str, seat: str, config: dict, seed: int) -> None:
        from botwars.agents import pyhost
        self.handle = pyhost.make_handler(self.path, "botwars.games.arena.rgkit_host:load_bot", game, seat,
                                          config, seed)

    def act(self, view: dict) -> dict:
        from botwars.agents import pyhost
        out = io.BytesIO()
        pyhost.answer(out, (self.encode(view) + "\n").encode("utf-8"), self.handle)
        return json.loads(out.getvalue())


def run_in_process(a: str, b: str, games: int, params: dict) -> tuple[int, int, float, float, int]:
    """:func:`run_botwars` with :class:`InProcessProtocol` agents (``--floor``)."""
    from botwars.agents.base import CallableAgent
    from botwars.engine.match import Match
    from botwars.engine.ruleset import get_ruleset

    rs = get_ruleset("arena")
    cfg = rs.validate_config(params)
    actions = errors = 0
    c0, w0 = cpu(), time.perf_counter()
    for g in range(games):
        first, second = (a, b) if g % 2 == 0 else (b, a)
        m = Match(rs, cfg, {"p1": CallableAgent(InProcessProtocol(bot_file(first))),
                            "p2": CallableAgent(InProcessProtocol(bot_file(second)))}, seed=g)
        m.start_agents()
        while m.outcome() is None:
            actions += len(m.state.robots)
            m.step()
        errors += len(m.errors)
    return games, actions, cpu() - c0, time.perf_counter() - w0, errors


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=20, help="games per pairing and engine (default 20)")
    ap.add_argument("--no-reuse", action="store_true", help="a fresh sandboxed host per match")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    ap.add_argument("--floor", action="store_true",
                    help="also measure the process boundary alone (an answer-at-once bot; see above)")
    ap.add_argument("--rusage", action="store_true",
                    help="(the default now) where no cgroup counter can be read, count with getrusage")
    ap.add_argument("--no-rusage", action="store_true",
                    help="stop (exit 2) instead of counting with getrusage, which misses every sandboxed bot")
    args = ap.parse_args()
    from botwars.agents import sandbox
    global _ACCOUNT
    report = sandbox.probe()
    level = report.level
    try:
        _ACCOUNT = CpuAccount(report.cgroup, allow_rusage=not args.no_rusage)
    except NoAccounting as exc:
        print(f"tournament_throughput: {exc}", file=sys.stderr)
        return 2
    how = _ACCOUNT.how
    print(f"tournament_throughput: CPU counted by {_ACCOUNT.kind}: {how}", file=sys.stderr)
    try:
        rows = measure(args)
        floor = None
        if args.floor:
            g, acts, cpu_s, _ = run_rgkit("guardbot", "randombot", args.games)
            floor = measure_floor(cpu_s / (g * 100) * 1e6)
            board = rgkit_board()
            floor["in_process"] = []
            for row in rows:
                a, b = row["pairing"].split(" vs ")
                g2, act2, cpu2, _, errs = run_in_process(a, b, args.games, board)
                rate = act2 / cpu2
                floor["in_process"].append({"pairing": row["pairing"], "actions_per_cpu_s": round(rate),
                                            "ratio_to_rgkit": round(rate / row["rgkit"]["actions_per_cpu_s"], 2),
                                            "bot_errors": errs})
    finally:
        _ACCOUNT.close()
    out = {"sandbox_level": level, "reuse_hosts": not args.no_reuse, "cpu_time": how, "cgroup": _ACCOUNT.kind,
           "python": platform.python_version(), "machine": platform.machine(), "cpus": os.cpu_count(),
           "pairings": rows, "floor": floor}
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    print(f"sandbox level {level}; hosts {'kept across matches' if not args.no_reuse else 'fresh per match'}; "
          f"{args.games} games per pairing and engine; CPU time: {how}")
    print(f"{'pairing':<22} {'engine':<20} {'games/cpu-s':>11} {'actions/cpu-s':>13} {'actions':>8} {'cpu s':>7} "
          f"{'wall s':>7}  {'ratio to rgkit (actions/cpu-s)'}")
    for r in rows:
        for eng in ("rgkit", "botwars", "botwars-rgkit-board"):
            e = r[eng]
            ratio = f"  {e['ratio_actions_per_cpu_s']}x  (bot errors: {e['bot_errors']})" if eng != "rgkit" else ""
            print(f"{r['pairing']:<22} {eng:<20} {e['games_per_cpu_s']:>11} {e['actions_per_cpu_s']:>13} "
                  f"{e['robot_actions']:>8} {e['cpu_s']:>7} {e['wall_s']:>7}{ratio}")
    if floor:
        print(f"process boundary alone (answer-at-once bot, {floor['robots_per_view']} robots a view): "
              f"{floor['cpu_us_per_decision']} us of CPU per decision (engine {floor['engine_us_per_decision']}, "
              f"host {floor['host_us_per_decision']}); two seats: {floor['two_seats_us_per_turn']} us per turn; "
              f"rgkit, a whole guardbot-vs-randombot turn: {floor['rgkit_guardbot_randombot_us_per_turn']} us")
        for r in floor["in_process"]:
            print(f"{r['pairing']:<22} same protocol, no process boundary (in process, unsandboxed): "
                  f"{r['actions_per_cpu_s']} robot-actions/cpu-s, {r['ratio_to_rgkit']}x rgkit "
                  f"(bot errors: {r['bot_errors']})")
    return 0


def measure(args) -> list[dict]:
    """Both engines, every pairing, in this order: rgkit, then botwars."""
    rows = []
    board = rgkit_board()
    for a, b in PAIRINGS:
        g1, act1, cpu1, wall1 = run_rgkit(a, b, args.games)
        row = {"pairing": f"{a} vs {b}",
               "rgkit": {"games": g1, "robot_actions": act1, "cpu_s": round(cpu1, 3), "wall_s": round(wall1, 3),
                         "games_per_cpu_s": round(g1 / cpu1, 2), "actions_per_cpu_s": round(act1 / cpu1)}}
        for name, params in (("botwars", {}), ("botwars-rgkit-board", board)):
            g2, act2, cpu2, wall2, errs = run_botwars(a, b, args.games, not args.no_reuse, params)
            row[name] = {"games": g2, "robot_actions": act2, "cpu_s": round(cpu2, 3), "wall_s": round(wall2, 3),
                         "games_per_cpu_s": round(g2 / cpu2, 2), "actions_per_cpu_s": round(act2 / cpu2),
                         "bot_errors": errs,
                         "ratio_actions_per_cpu_s": round((act2 / cpu2) / (act1 / cpu1), 2),
                         "ratio_games_per_cpu_s": round((g2 / cpu2) / (g1 / cpu1), 2)}
        rows.append(row)
    return rows


if __name__ == "__main__":
    sys.exit(main())
