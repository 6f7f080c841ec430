# An RobotGame (rgkit) bot, written exactly as for rgkit: run it with
#   botwars match arena rgkit:examples/robot.py builtin:hunter
# It is the classic "simple bot" of the RobotGame docs, plus leaving spawn points in time.
import rg


class Robot:
    def act(self, game):
        # on a spawn turn, step off a spawn point if we can
        if game.turn % rg.settings.spawn_every == 0 and 'spawn' in rg.loc_types(self.location):
            for loc in rg.locs_around(self.location, filter_out=('invalid', 'obstacle', 'spawn')):
                if loc not in game.robots:
                    return ['move', loc]

        # if there are enemies around, attack them
        for loc, bot in game.robots.items():
            if bot.player_id != self.player_id:
                if rg.dist(loc, self.location) <= 1:
                    return ['attack', loc]

        # if we're in the center, stay put
        if self.location == rg.CENTER_POINT:
            return ['guard']

        # move toward the center
        return ['move', rg.toward(self.location, rg.CENTER_POINT)]
