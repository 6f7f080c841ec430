"""How fast the replay viewer opens and seeks a large record (issue 14 item 2; not a test).

Plays a 900-turn arena match on an in-process server (SQLite in a temporary folder, the web
router mounted as ``botwars serve`` mounts it), then times, once each, the viewer page (the
first request re-simulates the whole record), the light index, a step and a picture in the
middle, and the last step. Usage::

    PYTHONPATH=src python benchmarks/replay_open.py [--turns 900]
"""

from __future__ import annotations

import argparse
import tempfile
import time

from fastapi.testclient import TestClient

from botwars.server.app import create_app
from botwars.web import install_web


def main() -> None:
    ap = argparse.ArgumentParser(description="Replay viewer: open and seek a large arena record.")
    ap.add_argument("--turns", type=int, default=900, help="arena max_turns (defender vs defender plays them all)")
    args = ap.parse_args()
    folder = tempfile.mkdtemp()
    app = create_app(f"sqlite:///{folder}/replay.db", bot_workers=1)
    install_web(app)
    with TestClient(app) as c:
        r = c.post("/api/matches", json={"game": "arena", "config": {"max_turns": args.turns},
                                         "seats": ["builtin:defender", "builtin:defender"], "clock": False})
        r.raise_for_status()
        mid = r.json()["match"]
        t0 = time.perf_counter()
        while c.get(f"/api/matches/{mid}").json()["status"] != "ended":
            time.sleep(0.2)
        print(f"played {args.turns} turns in {time.perf_counter() - t0:.1f} s")
        mid_k = args.turns // 2
        for what, path in (("viewer page (re-simulates the record)", f"/replay/{mid}"),
                           ("index (move list)", f"/web/matches/{mid}/replay/index.json"),
                           (f"step {mid_k}", f"/web/matches/{mid}/replay/{mid_k}.json"),
                           (f"picture {mid_k}", f"/web/matches/{mid}/replay/{mid_k}.svg"),
                           (f"step {args.turns}", f"/web/matches/{mid}/replay/{args.turns}.json")):
            t = time.perf_counter()
            r = c.get(path)
            r.raise_for_status()
            print(f"{what:<40} {1000 * (time.perf_counter() - t):8.1f} ms  {len(r.content):>8,} bytes")


if __name__ == "__main__":
    main()
