#!/usr/bin/env python3
"""Arena starter bot, JSON-lines protocol (docs/bots.md). Check it:
    botwars bot check "cmd:python3 examples/starters/python/bot.py" --game arena
Each line on stdin is one view (arena P11); answer one line of orders (P12) and flush.
Every robot of yours walks towards the centre and defends there; an adjacent enemy is attacked."""
import json
import sys

DIRS = {"N": (0, 1), "E": (1, 0), "S": (0, -1), "W": (-1, 0)}
CX, CY = 8, 8

for line in sys.stdin:  # ends when the engine closes stdin: then exit
    view = json.loads(line)
    foes = {(r["x"], r["y"]) for r in view["robots"] if r["side"] == "E"}
    orders = []
    for r in view["robots"]:
        if r["side"] != "F":
            continue
        x, y = r["x"], r["y"]
        hit = next((d for d, (dx, dy) in DIRS.items() if (x + dx, y + dy) in foes), None)
        if hit:
            orders.append({"x": x, "y": y, "action": "A", "dir": hit})
        elif (x, y) == (CX, CY):
            orders.append({"x": x, "y": y, "action": "D"})
        elif abs(CX - x) >= abs(CY - y):
            orders.append({"x": x, "y": y, "action": "M", "dir": "E" if CX > x else "W"})
        else:
            orders.append({"x": x, "y": y, "action": "M", "dir": "N" if CY > y else "S"})
    print(json.dumps({"orders": orders}), flush=True)
