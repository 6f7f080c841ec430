"""SQLAlchemy models of the server's tables.

JSON values are stored as canonical JSON text (``Text`` columns) so that SQLite and
PostgreSQL hold byte-identical data and digests never depend on the database.

- ``matches``: one row per match: rule set, config, seed, whether the clock runs, status,
  the number of resolved decision points, the clock (``bank_left`` per seat and
  ``opened_at``, the server time the open decision point started) and the outcome.
- ``seats``: a match's seats in order; ``token_hash`` is the SHA-256 of the seat token (the
  token itself is never stored); ``name`` the player's display name, if any.
- ``orders``: every accepted order (and every default applied on timeout or agent failure)
  keyed by ``(match_id, n, seat)``: the primary key is what makes an order impossible to
  apply twice; ``request_key`` is the canonical JSON of the request, to recognise a resend.
- ``decisions``: one row per resolved decision point: the record line, exactly as
  :mod:`botwars.engine.record` writes it.
- ``refusals``: refused submissions of the open decision point, replayed after a restart.
- ``gm_actions``: the game master's actions and the missed deadlines (issue 24); ``matches``
  also holds the GM token's hash, ``paused_at`` (server time of a pause, ``None`` when running)
  and ``extensions`` (seconds granted per seat at the open decision point, JSON).
- ``leases``: who owns a match (plays its built-in bots) and who leads the cluster, with a
  fencing token (issue 27); ``matches.version`` counts a match's committed changes.
- ``server_state``: one row, ``heartbeat_at``, so time while the server was down is not
  charged to any seat.
"""

from __future__ import annotations

from sqlalchemy import BigInteger, Boolean, Float, ForeignKey, Integer, LargeBinary, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    """Declarative base of every botwars table."""


class MatchRow(Base):
    __tablename__ = "matches"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    ruleset: Mapped[str] = mapped_column(String(64))
    rules_version: Mapped[int] = mapped_column(Integer)
    config: Mapped[str] = mapped_column(Text)
    seed: Mapped[int] = mapped_column(BigInteger)
    clock_enabled: Mapped[bool] = mapped_column(Boolean)
    status: Mapped[str] = mapped_column(String(16), index=True)
    created_at: Mapped[float] = mapped_column(Float)
    decisions: Mapped[int] = mapped_column(Integer, default=0)
    turns: Mapped[int] = mapped_column(Integer, default=0)
    opened_at: Mapped[float] = mapped_column(Float)
    bank_left: Mapped[str] = mapped_column(Text)
    outcome: Mapped[str | None] = mapped_column(Text, nullable=True)
    gm_token_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    paused_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    extensions: Mapped[str | None] = mapped_column(Text, nullable=True)
    version: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    """Bumped by every committed change of the match (issue 27): a worker's cached match is
    up to date when it holds this version; a commit made on an older one is refused."""


class LeaseRow(Base):
    """A lease (issue 27): ``name`` ``match:ID`` (the worker that plays the match's built-in
    bots) or ``leader`` (the worker that runs deadlines, notices and the league), held by
    ``holder`` (a worker id) until ``expires_at`` (the database's epoch seconds). ``token``
    (the fencing token) grows by one each time the lease changes hands: a write that only its
    holder may make checks it in its own transaction."""

    __tablename__ = "leases"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    holder: Mapped[str] = mapped_column(String(64), index=True)
    token: Mapped[int] = mapped_column(BigInteger)
    expires_at: Mapped[float] = mapped_column(Float)


class GmActionRow(Base):
    """One thing the game master did, or one missed deadline (issue 24): ``n`` the decision
    point open at the time, ``at`` server time (epoch seconds), ``action`` (``pause``,
    ``resume``, ``extend``, ``replace``, ``adjudicate``, ``cancel``, ``end``, ``abort``,
    ``missed_deadline``), ``seat`` (or ``None``), ``reason`` (the GM's words), ``detail`` the
    canonical JSON of the action's public facts (never orders, never a token)."""

    __tablename__ = "gm_actions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), index=True)
    n: Mapped[int] = mapped_column(Integer)
    at: Mapped[float] = mapped_column(Float)
    action: Mapped[str] = mapped_column(String(32))
    seat: Mapped[str | None] = mapped_column(String(64), nullable=True)
    reason: Mapped[str] = mapped_column(Text)
    detail: Mapped[str] = mapped_column(Text)


class SeatRow(Base):
    __tablename__ = "seats"

    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[str] = mapped_column(String(64), primary_key=True)
    idx: Mapped[int] = mapped_column(Integer)
    agent: Mapped[str] = mapped_column(String(200))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True, index=True)
    name: Mapped[str | None] = mapped_column(String(200), nullable=True)
    """The player's display name (issue 24 item 2; :mod:`botwars.server.names`), or ``None``
    until one is set (at creation, or once by the player). Migration ``0010``."""


class OrderRow(Base):
    __tablename__ = "orders"

    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True)
    n: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat: Mapped[str] = mapped_column(String(64), primary_key=True)
    payload: Mapped[str] = mapped_column(Text)
    errors: Mapped[str] = mapped_column(Text)
    time_used: Mapped[float] = mapped_column(Float)
    clock_status: Mapped[str] = mapped_column(String(16))
    received_at: Mapped[float] = mapped_column(Float)
    request_key: Mapped[str] = mapped_column(Text)


class DecisionRow(Base):
    __tablename__ = "decisions"

    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True)
    n: Mapped[int] = mapped_column(Integer, primary_key=True)
    line: Mapped[str] = mapped_column(Text)


class ServerStateRow(Base):
    __tablename__ = "server_state"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    heartbeat_at: Mapped[float] = mapped_column(Float)


class BotMemoryRow(Base):
    """A built-in bot's memory (its pickled agent, botwars' own objects only: never a stranger's
    code) after the last decision it answered (``decision``; 0: as started), one row per seat,
    replaced at each answer. A restart restores it instead of asking the bot again every view
    it answered (which, for a bot that takes seconds a decision, took minutes)."""

    __tablename__ = "bot_memory"

    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[str] = mapped_column(String(64), primary_key=True)
    decision: Mapped[int] = mapped_column(Integer)
    state: Mapped[bytes] = mapped_column(LargeBinary)


class RefusalRow(Base):
    """A refused submission at the open decision point (``k``: 1, 2, ... per seat and point),
    kept so that a restart replays it: where the rules count refusals (submarine S-7.10) it
    matters for the outcome. The record line of the point lists them under ``refused``."""

    __tablename__ = "refusals"

    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True)
    n: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat: Mapped[str] = mapped_column(String(64), primary_key=True)
    k: Mapped[int] = mapped_column(Integer, primary_key=True)
    payload: Mapped[str] = mapped_column(Text)
    received_at: Mapped[float] = mapped_column(Float)


class NoticeRegistrationRow(Base):
    """Where a seat's player wants turn notices (issue 14 item 3): one row per ``channel``
    (``email`` or ``webhook``) of a seat. ``address`` is the e-mail address or the webhook URL;
    ``secret`` is the webhook's HMAC-SHA256 key (``None`` for e-mail); ``base_url`` is the
    server's address as the player reached it, for the link in each notice."""

    __tablename__ = "notice_registrations"

    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), primary_key=True)
    seat: Mapped[str] = mapped_column(String(64), primary_key=True)
    channel: Mapped[str] = mapped_column(String(16), primary_key=True)
    address: Mapped[str] = mapped_column(String(2048))
    secret: Mapped[str | None] = mapped_column(String(128), nullable=True)
    base_url: Mapped[str] = mapped_column(String(512))
    created_at: Mapped[float] = mapped_column(Float)
    seat_link: Mapped[str | None] = mapped_column(String(1024), nullable=True)
    """The seat's own page with its token (issue 24 item 8), sent only to this address;
    ``None`` for a registration made before migration ``0010``."""


class NoticeRow(Base):
    """One notice to deliver (the persistent queue of :mod:`botwars.server.notices`).

    ``kind``: ``move`` (a decision point opened for the seat), ``reminder`` (``offset_s``
    seconds before its deadline) or ``result``; ``n`` the decision point; ``key`` makes each
    notice unique (the same notice is never queued twice, e.g. after a restart); ``payload`` the
    canonical JSON of the public facts it carries; ``status`` ``pending``, ``sent``, ``failed``
    (gave up) or ``cancelled`` (no longer true: the seat moved, the point closed, the
    registration was removed); ``attempts`` and ``next_attempt_at`` (server time, epoch
    seconds) drive the retries; ``last_error`` is the last failure, never a password."""

    __tablename__ = "notices"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    match_id: Mapped[str] = mapped_column(ForeignKey("matches.id", ondelete="CASCADE"), index=True)
    seat: Mapped[str] = mapped_column(String(64))
    channel: Mapped[str] = mapped_column(String(16))
    kind: Mapped[str] = mapped_column(String(16))
    n: Mapped[int] = mapped_column(Integer)
    offset_s: Mapped[float] = mapped_column(Float, default=0.0)
    key: Mapped[str] = mapped_column(String(200), unique=True)
    payload: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16))
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[float] = mapped_column(Float)
    last_error: Mapped[str | None] = mapped_column(Text, nullable=True)
    created_at: Mapped[float] = mapped_column(Float)
    sent_at: Mapped[float | None] = mapped_column(Float, nullable=True)


# ---- tournaments (botwars.league; migration 0004) ---------------------------------------------
class TournamentRow(Base):
    """A tournament (``botwars tournament``): ``id`` is a digest of its settings, ``settings``
    their canonical JSON (game, config, agents, format, games per pair, seed, players, rounds)."""

    __tablename__ = "tournaments"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    game: Mapped[str] = mapped_column(String(64))
    settings: Mapped[str] = mapped_column(Text)
    created_at: Mapped[float] = mapped_column(Float)


class TournamentMatchRow(Base):
    """A finished tournament match, written once (the primary key makes a second insert of
    the same match a no-op): ``agents`` and ``seats`` are JSON lists in seat order, ``outcome``
    the :class:`~botwars.engine.Outcome` JSON, ``errors`` the bot errors per seat
    (``{seat: count}``), ``error_detail`` the first few (``[{"decision", "seat", "code",
    "detail"}]``), ``replay`` the record's path relative to the tournament folder, ``status``
    ``ok`` or ``failed`` (the match could not be played to its end: ``error_detail`` says why)."""

    __tablename__ = "tournament_matches"

    match_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    tournament_id: Mapped[str] = mapped_column(ForeignKey("tournaments.id", ondelete="CASCADE"), index=True)
    round: Mapped[int] = mapped_column(Integer)
    seq: Mapped[int] = mapped_column(Integer)
    game_index: Mapped[int] = mapped_column(Integer)
    seed: Mapped[int] = mapped_column(BigInteger)
    agents: Mapped[str] = mapped_column(Text)
    seats: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16))
    outcome: Mapped[str | None] = mapped_column(Text, nullable=True)
    turns: Mapped[int] = mapped_column(Integer)
    errors: Mapped[str] = mapped_column(Text)
    error_detail: Mapped[str] = mapped_column(Text)
    replay: Mapped[str | None] = mapped_column(String(300), nullable=True)
    wall_s: Mapped[float] = mapped_column(Float)
    finished_at: Mapped[float] = mapped_column(Float)


# ---- the league on the server (botwars.server.league; migration 0005) -------------------------
class LeagueBotRow(Base):
    """An uploaded league bot: ``id`` (12 hex characters), ``name`` (unique per game), ``game``,
    ``kind`` (``py``, ``rgkit``, ``botwars-io``, ``jsonl-py``, ``jsonl-js``), ``source`` (the
    program text, UTF-8, at most 256 KiB), ``version`` (1, 2, ... one per replacement; ratings
    are per version), ``token_hash`` (SHA-256 of the owner token; the token is never stored),
    ``status`` (``active`` or ``retired``)."""

    __tablename__ = "league_bots"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    game: Mapped[str] = mapped_column(String(64), index=True)
    kind: Mapped[str] = mapped_column(String(16))
    source: Mapped[str] = mapped_column(Text)
    version: Mapped[int] = mapped_column(Integer)
    token_hash: Mapped[str] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[float] = mapped_column(Float)
    updated_at: Mapped[float] = mapped_column(Float)


class LeagueMatchRow(Base):
    """A league match: ``kind`` ``ladder`` (rated) or ``challenge`` (unrated); ``seq`` its
    place in the game's ladder schedule (the fixed rating order); ``agents`` the rated
    identities in seat order (``bot:ID@vN`` or ``builtin:NAME``), ``seats`` the seat names,
    ``status`` ``queued`` (a challenge not yet played), ``ok`` or ``failed``; ``outcome``,
    ``errors`` and ``error_detail`` as in :class:`TournamentMatchRow`; ``record`` the JSON
    Lines record (agents named by their league names, never by server paths); ``owner`` the
    client address that queued a challenge (its owner's quota, issue 25 item 3; ``None`` for
    ladder matches)."""

    __tablename__ = "league_matches"

    match_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    game: Mapped[str] = mapped_column(String(64), index=True)
    kind: Mapped[str] = mapped_column(String(16))
    seq: Mapped[int] = mapped_column(Integer)
    seed: Mapped[int] = mapped_column(BigInteger)
    agents: Mapped[str] = mapped_column(Text)
    seats: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), index=True)
    outcome: Mapped[str | None] = mapped_column(Text, nullable=True)
    turns: Mapped[int] = mapped_column(Integer, default=0)
    errors: Mapped[str] = mapped_column(Text, default="{}")
    error_detail: Mapped[str] = mapped_column(Text, default="[]")
    record: Mapped[str | None] = mapped_column(Text, nullable=True)
    created_at: Mapped[float] = mapped_column(Float)
    finished_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    owner: Mapped[str | None] = mapped_column(String(64), nullable=True, index=True)


class LeagueSeasonRow(Base):
    """A league season of one game (issue 28 item 6): season ``number`` (2, 3, ...; a game with
    no row is in season 1, since the league's start) began at ``started_at`` (server time, epoch
    seconds) for ``reason`` (the operator's words). The ladder rates only the matches of the
    current season: a new season starts every rating afresh, so a ladder that rested because
    every rating had settled plays again."""

    __tablename__ = "league_seasons"

    game: Mapped[str] = mapped_column(String(64), primary_key=True)
    number: Mapped[int] = mapped_column(Integer, primary_key=True)
    started_at: Mapped[float] = mapped_column(Float)
    reason: Mapped[str] = mapped_column(Text, default="")


class NoticeAddressRow(Base):
    """Whether the owner of an e-mail address agreed to turn notices (issue 25 item 6): no
    notice is mailed to an ``address`` (lower case) until its owner follows the link mailed to
    it once (``status`` ``pending`` → ``confirmed``, or ``declined``: never mailed again).
    ``token_hash`` is the SHA-256 of the link's token (the token itself is only in that mail);
    ``match_id`` the match whose registration asked (counted against the per-match limit);
    ``asked_at``/``answered_at`` server time, epoch seconds."""

    __tablename__ = "notice_addresses"

    address: Mapped[str] = mapped_column(String(254), primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    status: Mapped[str] = mapped_column(String(16))
    match_id: Mapped[str] = mapped_column(String(32), index=True)
    asked_at: Mapped[float] = mapped_column(Float)
    answered_at: Mapped[float | None] = mapped_column(Float, nullable=True)


class RateHitRow(Base):
    """One fixed window of a shared rate counter (issue 27 item 4): ``key`` (e.g.
    ``upload|5/1/minute|ADDRESS``), ``window_start`` (epoch seconds, a multiple of the window),
    ``hits`` so far, ``expires_at`` (epoch seconds) after which the row may be deleted."""
    __tablename__ = "rate_hits"

    key: Mapped[str] = mapped_column(String(300), primary_key=True)
    window_start: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    hits: Mapped[int] = mapped_column(Integer)
    expires_at: Mapped[float] = mapped_column(Float)


class LiveConnectionRow(Base):
    """A WebSocket connection open on some worker (issue 27 item 4): counted against the
    per-match and per-address caps by every worker until ``expires_at`` (epoch seconds), which
    its worker renews while alive."""
    __tablename__ = "live_connections"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    worker: Mapped[str] = mapped_column(String(64))
    address: Mapped[str | None] = mapped_column(String(200), nullable=True, index=True)
    match_id: Mapped[str] = mapped_column(String(32), index=True)
    expires_at: Mapped[float] = mapped_column(Float)
