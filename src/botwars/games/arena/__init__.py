"""The ``arena`` rule set (BotWars.io): program a robot swarm. Rules: shared/rules/arena.md."""
