"""Tries to change engine settings and the other bot; prints to stdout; keeps state."""
import os


class Bot:
    def start(self, game, seat, config, seed):
        config["max_turns"] = 1
        config["attack_damage_enemy"] = 1000
        import botwars.games.arena.rules as rules
        rules.PARAMS = ()
        from botwars.games.arena import bots
        bots.BUILTIN.clear()
        self.count = 0

    def act(self, view):
        self.count += 1
        print("debug output on stdout must not break the protocol")
        os.write(1, b"and neither must a raw write to fd 1\n")
        return {"orders": [], "user_data": f"count={self.count}"}
