"""How many hostile bots the sandbox contains on this machine (not a test; issue 12).

Plays every case of the hostile-bot suite (``tests/agents/hostile``: 14 attacks × every agent
kind × arena, dadoed and submarine) one after the other, prints one line per case and then
``contained N/M``, with the isolation level from ``botwars sandbox check``. Usage:

    PYTHONPATH=src python benchmarks/hostile_bots.py [--game arena] [--kind py] [--attack fork_bomb] [--json]

Exit status 0 when every selected case is contained, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "agents", "hostile"))

from hostile_harness import CASES, run_case  # noqa: E402

from botwars.agents import sandbox  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", action="append", help="only this game (repeatable)")
    ap.add_argument("--kind", action="append", help="only this agent kind: py, cmd, botwars-io, rgkit")
    ap.add_argument("--attack", action="append", help="only this attack")
    ap.add_argument("--json", action="store_true", help="print one JSON object at the end")
    args = ap.parse_args()
    cases = [c for c in CASES if (not args.game or c[0] in args.game) and (not args.kind or c[1] in args.kind)
             and (not args.attack or c[2] in args.attack)]
    report = sandbox.probe()
    print(f"isolation level: {report.level}", flush=True)
    verdicts = []
    with tempfile.TemporaryDirectory(prefix="botwars-hostile-") as scratch:
        for i, (game, kind, attack) in enumerate(cases):
            folder = os.path.join(scratch, str(i))
            os.makedirs(folder)
            v = run_case(game, kind, attack, folder)
            verdicts.append(v)
            print(v.line(), flush=True)
    contained = sum(v.contained for v in verdicts)
    print(f"contained {contained}/{len(verdicts)} ({100.0 * contained / max(1, len(verdicts)):.1f} %)")
    if args.json:
        print(json.dumps({"level": report.level, "contained": contained, "total": len(verdicts),
                          "broken": [{"game": v.game, "kind": v.kind, "attack": v.attack, "problems": v.problems}
                                     for v in verdicts if not v.contained]}))
    return 0 if contained == len(verdicts) else 1


if __name__ == "__main__":
    sys.exit(main())
