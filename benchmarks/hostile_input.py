"""What hostile data costs the server and the command line (not a test; issue 25, items 1, 2, 9).

Each case runs in a fresh child process that first imports and warms up everything it needs,
then hands one hostile input to the same code the door uses and measures the wall time of that
call (the median of 5, and the first) and how much the process's peak resident memory grew
over the 5 (``ru_maxrss``). Targets: under 100 ms and under 50 MB per case. Usage:

    PYTHONPATH=src python benchmarks/hostile_input.py [--case http_laughs] [--json]

Cases: ``http_*`` post ``/api/matches`` through the FastAPI app (in process, SQLite in a
temporary folder); ``scenario_*`` call what ``botwars scenario run`` calls
(:func:`botwars.engine.scenario.check_file`); ``replay_*`` what ``botwars replay --verify``
calls (``read_record`` then ``verify_record``); ``board_*`` what ``botwars board check`` calls.
Exit status 0 when every case is refused within both targets, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any, Callable

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TIME_TARGET_S = 0.100
GROWTH_TARGET_MB = 50.0
REPEAT = 5  # each input is handed over this many times; the median time counts, the peak growth over all


def laughs(levels: int) -> str:
    """``levels`` anchored lists, each ten aliases of the one before (10**levels strings)."""
    return ("[&a [lol,lol,lol,lol,lol,lol,lol,lol,lol,lol], "
            + ", ".join(f"&{chr(98 + i)} [{','.join('*' + chr(97 + i) for _ in range(10))}]"
                        for i in range(levels - 1)) + "]")


# the 393-byte document: a billion laughs in the pool's first command
LAUGHS_POOL = ("commands:\n- id: &a [lol,lol,lol,lol,lol,lol,lol,lol,lol,lol]\n"
               + "".join(f"  {chr(98 + i)}: &{chr(98 + i)} [{','.join('*' + chr(97 + i) for _ in range(10))}]\n"
                         for i in range(8)) + "  name: *i\n  colour: blue\n  copies: 1\n")
ID_BOMB_POOL = f"commands:\n- id: {laughs(9)}\n  colour: blue\n"  # 10**9 strings in the value quoted


def _header(game: str, config: dict[str, Any], seed: str = "1") -> str:
    return ('{"type": "header", "format": 2, "ruleset": "%s", "rules_version": 1, "config": %s, '
            '"seats": [{"seat": "p1", "agent": "x"}, {"seat": "p2", "agent": "y"}], "seed": %s, "clock": false}\n'
            % (game, json.dumps(config), seed))


def _files(tmp: str) -> dict[str, str]:
    """Write the hostile files; returns name → path."""
    texts = {
        "scenario_laughs.yaml": f"game: dadoed\ndescription: {laughs(9)}\nboard: x\norders: []\n",
        "scenario_pool_laughs.yaml": "game: dadoed\nconfig:\n  pool: |\n"
                                     + "".join("    " + ln + "\n" for ln in ID_BOMB_POOL.splitlines())
                                     + "board: x\norders: []\n",
        "scenario_huge_int.yaml": "game: arena\nturn: " + "9" * 100_000 + "\nturns: [{}]\n",
        "scenario_deep.yaml": "game: arena\nturns: " + "[" * 100_000 + "]" * 100_000 + "\n",
        "replay_pool_laughs.jsonl": _header("dadoed", {"pool": ID_BOMB_POOL}),
        "replay_dev_zero.jsonl": _header("factory", {"board": "/dev/zero"}),
        "replay_passwd.jsonl": _header("factory", {"board": "/etc/passwd"}),
        "replay_huge_int.jsonl": _header("arena", {}, seed="9" * 100_000),
        "replay_deep.jsonl": '{"type": "header", "config": ' + "[" * 500_000 + "]" * 500_000 + "}\n",
    }
    out = {}
    for name, text in texts.items():
        path = os.path.join(tmp, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        out[name.split(".")[0]] = path
    return out


def _http(pool: str) -> Callable[[], str]:
    os.environ.setdefault("BOTWARS_LEAGUE", "off")
    from fastapi.testclient import TestClient

    from botwars.server.app import create_app
    tmp = tempfile.mkdtemp(prefix="botwars-hostile-input-")
    client = TestClient(create_app(f"sqlite:///{tmp}/bw.db", background=False))
    client.__enter__()
    client.post("/api/matches", json={"game": "dadoed", "config": {}})  # warm: the game's modules, a match

    def run() -> str:
        r = client.post("/api/matches", json={"game": "dadoed", "config": {"pool": pool}})
        return f"{r.status_code}, {len(r.content)} bytes: {r.json().get('message', '')}"
    return run


def _scenario(path: str) -> Callable[[], str]:
    from botwars.engine.errors import ConfigError
    from botwars.engine.scenario import check_file
    check_file(os.path.join(ROOT, "tests", "scenarios", "dadoed", "r_custom_pool.yaml"))  # warm

    def run() -> str:
        try:
            return f"ran: {check_file(path)}"
        except ConfigError as exc:
            return "refused: " + exc.one_line()
    return run


def _replay(path: str) -> Callable[[], str]:
    from botwars.engine.errors import BotwarsError
    from botwars.engine.record import read_record, verify_record
    from botwars.engine.ruleset import get_ruleset
    for g in ("arena", "dadoed", "factory"):
        get_ruleset(g).validate_config({})  # warm

    def run() -> str:
        try:
            return f"verified: {verify_record(read_record(path))}"
        except BotwarsError as exc:
            return f"refused: {exc}"
    return run


def _board(game: str, path: str) -> Callable[[], str]:
    from botwars.engine.errors import ConfigError
    from botwars.engine.plugin import get_game
    from botwars.engine.safeload import read_text
    g = get_game(game)
    g.ruleset()

    def run() -> str:
        try:
            return f"checked: {g.check_board(read_text(path, what='board file'), path)}"
        except ConfigError as exc:
            return "refused: " + exc.one_line()
    return run


CASES = ["http_baseline", "http_laughs", "http_id_bomb", "scenario_laughs", "scenario_pool_laughs", "scenario_huge_int",
         "scenario_deep", "replay_pool_laughs", "replay_dev_zero", "replay_passwd", "replay_huge_int",
         "replay_deep", "board_dev_zero"]


def run_case(name: str) -> dict[str, Any]:
    """Run one case in this process; returns its figures."""
    tmp = tempfile.mkdtemp(prefix="botwars-hostile-input-")
    files = _files(tmp)
    if name == "http_baseline":  # for scale: a pool text that is merely wrong, refused the same way
        fn = _http("commands:\n- id: nope\n")
    elif name == "http_laughs":
        fn = _http(LAUGHS_POOL)
    elif name == "http_id_bomb":
        fn = _http(ID_BOMB_POOL)
    elif name.startswith("scenario_"):
        fn = _scenario(files[name])
    elif name.startswith("replay_"):
        fn = _replay(files[name])
    elif name == "board_dev_zero":
        fn = _board("factory", "/dev/zero")
    else:
        raise SystemExit(f"unknown case {name!r} (cases: {', '.join(CASES)})")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    times = []
    for _ in range(REPEAT):
        start = time.perf_counter()
        answer = fn()
        times.append(time.perf_counter() - start)
    grew = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024.0
    return {"case": name, "ms": round(statistics.median(times) * 1000, 1), "first_ms": round(times[0] * 1000, 1),
            "grew_mb": round(grew, 1), "answer": answer[:160]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--case", action="append", help="only this case (repeatable)")
    ap.add_argument("--json", action="store_true", help="print one JSON object at the end")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(run_case(args.child)))
        return 0
    rows = []
    for name in args.case or CASES:
        done = subprocess.run([sys.executable, __file__, "--child", name], capture_output=True, text=True,
                              timeout=600, env={**os.environ, "PYTHONPATH": os.path.join(ROOT, "src")})
        if done.returncode != 0:
            row = {"case": name, "ms": None, "grew_mb": None,
                   "answer": f"child failed: {(done.stderr.strip().splitlines() or ['?'])[-1][:160]}"}
        else:
            row = json.loads(done.stdout.strip().splitlines()[-1])
        row["ok"] = row["ms"] is not None and row["ms"] < TIME_TARGET_S * 1000 and row["grew_mb"] < GROWTH_TARGET_MB
        rows.append(row)
        print(f"{row['case']:22} {row['ms']!s:>7} ms (first {row.get('first_ms')!s:>6})  {row['grew_mb']!s:>5} MB  "
              f"{'ok ' if row['ok'] else 'MISS'} "
              f"{row['answer']}", flush=True)
    ok = sum(r["ok"] for r in rows)
    print(f"within {TIME_TARGET_S * 1000:.0f} ms and {GROWTH_TARGET_MB:.0f} MB: {ok}/{len(rows)}")
    if args.json:
        print(json.dumps({"cases": rows}))
    return 0 if ok == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
