import rg


class Robot:
    """From turn 2 the robot with the lowest location crashes; the others move toward the centre."""

    def act(self, game):
        own = sorted(loc for loc, r in game.robots.items() if 'robot_id' in r)
        if game.turn >= 2 and self.location == own[0]:
            raise ValueError("boom")
        return ['move', rg.toward(self.location, rg.CENTER_POINT)]
