"""The game-master server: matches over HTTP and WebSocket (``botwars serve``).

- :mod:`botwars.server.app` — the FastAPI app (:func:`create_app`).
- :mod:`botwars.server.manager` — matches in memory and in the store, clocks, bots.
- :mod:`botwars.server.client` — the HTTP client behind ``botwars new-match`` and ``botwars connect``.
"""
