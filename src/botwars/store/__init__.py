"""Durable storage of server matches (SQLAlchemy 2 + Alembic).

:class:`~botwars.store.repo.Store` is the only way in: it opens the database named by a
SQLAlchemy URL (SQLite by default, PostgreSQL with ``postgresql+psycopg://``), brings its
schema to the newest Alembic revision, and runs short transactions for the server.
"""

from botwars.store.repo import Store, default_url

__all__ = ["Store", "default_url"]
