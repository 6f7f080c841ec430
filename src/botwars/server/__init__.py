"""The game-master server: matches over HTTP and WebSocket (``botwars serve``).

- :mod:`botwars.server.app` — the FastAPI app (:func:`create_app`): middleware, error handlers,
  and the routers of :mod:`botwars.server.routes` (one per resource).
- :mod:`botwars.server.deps` — the routes' dependencies (manager, hub, store, limits, seat token).
- :mod:`botwars.server.schemas` — the API's wire schemas (Pydantic).
- :mod:`botwars.server.manager` — matches in memory and in the store, clocks, bots.
- :mod:`botwars.server.client` — the HTTP client behind ``botwars new-match`` and ``botwars connect``.
"""
