"""The game-master server's JSON API, one :class:`fastapi.APIRouter` per resource, each
included by :func:`botwars.server.app.create_app` (docs/server.md, "Where the routes live"):

- :mod:`.games` — ``GET /api/games``;
- :mod:`.matches` — create, list, summary, resign and record of a match;
- :mod:`.orders` — ``POST /api/matches/{id}/orders``;
- :mod:`.seats` — ``GET /api/matches/{id}/view`` and ``GET /api/seat``;
- :mod:`.ws` — ``WS /api/matches/{id}/ws``.

Shared state reaches the routes through the dependencies of :mod:`botwars.server.deps`.
"""
