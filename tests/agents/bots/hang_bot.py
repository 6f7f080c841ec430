import time


class Bot:
    def act(self, view):
        if view["turn"] == 2:
            time.sleep(60)
        return {"orders": [{"x": r["x"], "y": r["y"], "action": "M", "dir": "E"}
                           for r in view["robots"] if r["side"] == "F"]}
