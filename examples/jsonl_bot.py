#!/usr/bin/env python3
"""A JSON-lines bot written as a plain procedural script (no classes, no botwars import).

Run it with ``botwars match arena "cmd:python3 examples/jsonl_bot.py" builtin:hunter``.
The engine starts it once; every turn it reads one JSON view line (the arena P11 object)
from stdin and must print one JSON line (the P12 object) and flush. Logging goes to stderr.
Strategy: attack an adjacent enemy, otherwise walk one step towards the map centre.
"""
import json
import os
import sys

config = json.loads(os.environ.get("BOTWARS_CONFIG", "{}"))  # the match parameters
print("jsonl_bot started for seat", os.environ.get("BOTWARS_SEAT"), file=sys.stderr)
CX, CY = 8, 8  # centre of the default 16x16 map

for line in sys.stdin:
    view = json.loads(line)
    mine = [(r["x"], r["y"]) for r in view["robots"] if r["side"] == "F"]
    foes = {(r["x"], r["y"]) for r in view["robots"] if r["side"] == "E"}
    orders = []
    for x, y in mine:
        for d, (dx, dy) in (("N", (0, 1)), ("E", (1, 0)), ("S", (0, -1)), ("W", (-1, 0))):
            if (x + dx, y + dy) in foes:
                orders.append({"x": x, "y": y, "action": "A", "dir": d})
                break
        else:
            if abs(CX - x) >= abs(CY - y) and x != CX:
                d = "E" if CX > x else "W"
            elif y != CY:
                d = "N" if CY > y else "S"
            else:
                orders.append({"x": x, "y": y, "action": "D"})
                continue
            orders.append({"x": x, "y": y, "action": "M", "dir": d})
    print(json.dumps({"orders": orders}), flush=True)
