class Bot:
    def start(self, game, seat, config, seed):
        raise RuntimeError("cannot start")

    def act(self, view):
        return {"orders": []}
