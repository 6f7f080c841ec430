"""A Python-class bot for the arena: ``botwars match arena examples/class_bot.py builtin:hunter``.

The engine runs this file in its own process (``python -m botwars.agents.pyhost``), makes one
``Bot()`` per match, calls ``start`` once and ``act`` once per turn. ``view`` is the arena P11
object; ``act`` returns the P12 object. State kept on ``self`` lasts the whole match.
"""

DIRS = {"N": (0, 1), "E": (1, 0), "S": (0, -1), "W": (-1, 0)}


class Bot:
    def start(self, game, seat, config, seed):
        # config is a copy of the match parameters: changing it changes nothing in the engine
        self.spawn_interval = config.get("spawn_interval", 10)
        self.turns_seen = 0

    def act(self, view):
        self.turns_seen += 1
        mine = {(r["x"], r["y"]) for r in view["robots"] if r["side"] == "F"}
        foes = {(r["x"], r["y"]): r["hp"] for r in view["robots"] if r["side"] == "E"}
        taken = set()
        orders = []
        for x, y in sorted(mine):
            near = [(foes[(x + dx, y + dy)], d) for d, (dx, dy) in DIRS.items() if (x + dx, y + dy) in foes]
            if near:  # hit the weakest adjacent enemy
                orders.append({"x": x, "y": y, "action": "A", "dir": min(near)[1]})
                continue
            if not foes:
                orders.append({"x": x, "y": y, "action": "D"})
                continue
            tx, ty = min(foes, key=lambda f: (abs(f[0] - x) + abs(f[1] - y), f))
            best = None
            for d, (dx, dy) in DIRS.items():
                sq = (x + dx, y + dy)
                if sq in mine or sq in taken or sq in foes:
                    continue
                gap = abs(tx - sq[0]) + abs(ty - sq[1])
                if best is None or (gap, d) < best[:2]:
                    best = (gap, d, sq)
            if best is None:
                orders.append({"x": x, "y": y, "action": "D"})
            else:
                taken.add(best[2])
                orders.append({"x": x, "y": y, "action": "M", "dir": best[1]})
        return {"orders": orders}
