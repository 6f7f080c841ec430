import rgkit.rg as rg


class Robot:
    def act(self, game):
        if game.turn == 2:
            return 1 / 0
        return ['guard']
