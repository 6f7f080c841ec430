import time


class Robot:
    def act(self, game):
        if game.turn == 1:
            time.sleep(1.5)
        return ['guard']
