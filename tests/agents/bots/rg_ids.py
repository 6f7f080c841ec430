"""Records what the rgkit host shows it, in user-visible ways: moves every robot east
(rgkit x + 1) and prints its view to stderr."""
import sys

import rg


class Robot:
    log = []

    def act(self, game):
        Robot.log.append((game.turn, self.robot_id, self.location, self.hp, self.player_id))
        print(game.turn, self.robot_id, self.location, file=sys.stderr)
        x, y = self.location
        return ['move', (x + 1, y)]
