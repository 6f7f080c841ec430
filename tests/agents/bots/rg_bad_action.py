from rgkit import rg


class Robot:
    def act(self, game):
        if game.turn == 2:
            x, y = self.location
            return ['move', (x + 1, y + 1)]  # diagonal: not an rgkit move
        return ['guard']
