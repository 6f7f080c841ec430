"""Tournaments, ratings and (later) the league: many matches between agents, resumable,
locally or on a Ray cluster (docs/tournaments.md).

- :mod:`~botwars.league.schedule` — formats, fixtures, match ids and seeds.
- :mod:`~botwars.league.runner` — :func:`play_match`: one match through :class:`botwars.engine.Match`.
- :mod:`~botwars.league.backends` — a local process pool or Ray tasks.
- :mod:`~botwars.league.results` — the results tables (store migration 0004) and the folder.
- :mod:`~botwars.league.ratings` — openskill (Plackett–Luce) and Elo (arena R29).
- :mod:`~botwars.league.standings` — standings, cross table, ``standings.json``/``.html``.
- :mod:`~botwars.league.tournament` — :class:`Tournament`, what ``botwars tournament`` runs.

Games are reached only through :func:`botwars.engine.get_game`/``get_ruleset``.
"""
