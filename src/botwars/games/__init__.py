"""The five shipped games. Each package exports its plug-in declaration ``GAME``
(:class:`botwars.engine.plugin.Game`), listed in the ``botwars.games`` entry points of
pyproject.toml; nothing outside a game's package names it."""
