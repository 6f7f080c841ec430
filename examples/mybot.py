#!/usr/bin/env python3
"""A BotWars.io V2 text-protocol bot (arena P2-P7): a fresh process every turn.

Run it with ``botwars match arena botwars-io:"python3 examples/mybot.py" builtin:hunter``.

Each turn it reads one line ``T,M,P#STATE#USER`` (P4) from stdin, prints one line
``ORDERS#USER`` (P5) and exits. Nothing survives between turns except USER, the user data,
so this bot keeps its memory there: ``v1;h=<enemy HP last turn>;q=<quiet turns>;m=<mode>``.
When the enemy's total HP has not dropped for 6 turns in a row it switches from ``hold``
(attack what comes adjacent, close in slowly, defend) to ``charge`` (everyone advances).
"""
import sys

DIRS = {"N": (0, 1), "E": (1, 0), "S": (0, -1), "W": (-1, 0)}


def parse(line):
    head, state, user = line.split("#", 2)
    turn, max_turns, player = (int(v) for v in head.split(","))
    mine, foes = {}, {}
    for entry in filter(None, state.split(",")):
        side, square, hp = entry.split("-")
        x, y = (int(v) for v in square.split(":"))
        (mine if side == "F" else foes)[(x, y)] = int(hp)
    return turn, max_turns, player, mine, foes, user


def load_memory(user):
    mem = {"h": None, "q": 0, "m": "hold"}
    if user.startswith("v1;"):
        for part in user[3:].split(";"):
            key, _, value = part.partition("=")
            if key == "h":
                mem["h"] = int(value)
            elif key == "q":
                mem["q"] = int(value)
            elif key == "m":
                mem["m"] = value
    return mem


def main():
    line = sys.stdin.readline().rstrip("\r\n")
    turn, max_turns, player, mine, foes, user = parse(line)
    mem = load_memory(user)
    foe_hp = sum(foes.values())
    if mem["h"] is not None and foe_hp >= mem["h"]:
        mem["q"] += 1
    else:
        mem["q"] = 0
    if mem["q"] >= 6:
        mem["m"] = "charge"
    spawn_turn = turn % 10 == 0
    spawns = {(5, 5), (5, 12), (12, 5), (12, 12)}
    taken = set()
    tokens = []
    for (x, y), hp in sorted(mine.items()):
        near = [(foes[(x + dx, y + dy)], d) for d, (dx, dy) in DIRS.items() if (x + dx, y + dy) in foes]
        if near and not (spawn_turn and (x, y) in spawns):
            tokens.append(f"{x}:{y}-A-{min(near)[1]}")
            continue
        moves = []
        if foes:
            tx, ty = min(foes, key=lambda f: (abs(f[0] - x) + abs(f[1] - y), f))
            for d, (dx, dy) in DIRS.items():
                sq = (x + dx, y + dy)
                if sq in mine or sq in foes or sq in taken or not (2 <= sq[0] <= 15 and 2 <= sq[1] <= 15):
                    continue
                if spawn_turn and sq in spawns:
                    continue
                moves.append((abs(tx - sq[0]) + abs(ty - sq[1]), d, sq))
        moves.sort()
        must_leave = spawn_turn and (x, y) in spawns
        far = not foes or min(abs(f[0] - x) + abs(f[1] - y) for f in foes) > 2
        if moves and (must_leave or mem["m"] == "charge" or far):
            taken.add(moves[0][2])
            tokens.append(f"{x}:{y}-M-{moves[0][1]}")
        else:
            tokens.append(f"{x}:{y}-D")
    memory = f"v1;h={foe_hp};q={mem['q']};m={mem['m']}"
    print(",".join(tokens) + "#" + memory)


main()
