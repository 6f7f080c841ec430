"""The league on the server (issue 15 item 4): uploaded bots, a ladder scheduler, ratings,
unranked challenges (docs/tournaments.md, "The league on the server"; docs/server.md).

- **Bots.** ``POST /api/league/bots`` stores a bot's program text (kinds: :data:`KINDS`) in
  the database (``league_bots``, migration 0005) and answers its id and an *owner token*
  (stored as its SHA-256, compared in constant time). The owner replaces the code (``PUT``: a
  new version, rated afresh) or retires the bot (``DELETE``). An upload is first played
  through ``botwars bot check`` (:func:`botwars.agents.check.check_bot`, a few decision
  points in each seat against a built-in bot) in a worker process, its code in the sandbox:
  one that does not load (syntax error, no bot class, a crash, invalid replies, no answer at
  all, a kind the game does not take) is refused with 422 naming the fault.
- **Isolation.** Uploaded code runs only in the sandbox and only while
  :func:`botwars.agents.sandbox.require_level` passes (the operator's ``BOTWARS_SANDBOX_MIN``,
  default ``full``): below it uploads, replacements and challenges answer 503 with the
  reason, and the scheduler plays nothing.
- **Scheduler.** :meth:`League.step` plays queued challenges, else a batch of ladder matches of
  one game (games in turn), through :func:`botwars.league.runner.play_match` in the league's
  :class:`~botwars.league.backends.LocalBackend` process pool, exactly as ``botwars
  tournament`` does. A ladder match pairs an uploaded bot with the fewest games with one of
  the nearest-rated other members (uploaded bots and the game's built-in "house" bots),
  chosen by a generator seeded from the league seed, the game and the match's place in the
  schedule (``seq``). A background thread calls it (:meth:`League.start`; ``BOTWARS_LEAGUE=off``
  disables the thread, tests call :meth:`League.step`).
- **Results and ratings.** Each match is stored once (``league_matches``, primary key the
  match id) with its record; ratings are recomputed from the stored ladder results in the
  fixed order (:mod:`botwars.league.ratings`: openskill Plackett-Luce, ordinal for the rank;
  Elo from ``rating_initial`` for games that have it, arena R29). Ratings are per bot version
  (``bot:ID@vN``): a replaced bot starts afresh, its old version's results stay in its
  opponents' ratings.
- **Replays.** A league match's record opens in the server's replay viewer: on first view it
  is registered as an ended server match (``/league/matches/{id}/replay`` redirects to
  ``/replay/{id}``), re-simulated by the referee like any stored match.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import random
import re
import secrets
import shlex
import shutil
import threading
import time
from typing import Any, Callable, Literal, Optional

from fastapi import APIRouter, Depends, FastAPI, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, ConfigDict, Field, field_validator
from sqlalchemy import select

from botwars.engine.errors import BotwarsError, ConfigError
from botwars.engine.plugin import games as all_games
from botwars.engine.plugin import get_game
from botwars.engine.ruleset import canonical_json, get_ruleset
from botwars.league import ratings as rating_mod
from botwars.league.runner import MatchJob, MatchReport
from botwars.server.manager import ApiError, MatchManager, new_token, token_hash
from botwars.server.uploads import UploadGate
from botwars.store import Store
from botwars.store.models import DecisionRow, LeagueBotRow, LeagueMatchRow, LeagueSeasonRow, MatchRow, SeatRow

log = logging.getLogger("botwars.server.league")

# A program of at most 128 KiB: even written entirely in JSON \u escapes (6 bytes a character)
# the upload stays under the server's 1 MiB body limit, so an over-long source is always a 422
# naming the field, never a 413 for the whole body.
MAX_SOURCE_BYTES = 128 * 1024
"""Largest uploaded program, in bytes of UTF-8 (422 beyond)."""

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$")
"""A bot's name: 1 to 40 letters, digits, ``_``, ``.``, ``-``, starting with a letter or digit."""

KINDS: dict[str, tuple[str, str]] = {
    "py": ("bot.py", "{path}"),
    "rgkit": ("robot.py", "rgkit:{path}"),
    "botwars-io": ("bot.py", "botwars-io:python3 {path}"),
    "jsonl-py": ("bot.py", "cmd:python3 {path}"),
    "jsonl-js": ("bot.js", "cmd:node --jitless --max-old-space-size=64 {path}"),
}
"""Upload kinds: the file name the program is stored under in its private folder and the agent
spec that runs it (docs/bots.md): a Python bot class, an rgkit robot (arena), a BotWars.io
text-protocol script in Python (arena), a JSON-lines program in Python or JavaScript (node)."""

Kind = Literal["py", "rgkit", "botwars-io", "jsonl-py", "jsonl-js"]

_KEY_RE = re.compile(r"[0-9A-Za-z]+")


def _key(value: Any, max_len: int) -> Optional[str]:
    """``value`` when it can be a bot or match id (letters and digits, at most ``max_len``);
    else ``None``, an unknown id, so that no other text (a NUL character, which PostgreSQL text
    cannot hold) reaches a database look-up."""
    if isinstance(value, str) and len(value) <= max_len and _KEY_RE.fullmatch(value):
        return value
    return None

CHECK_WORKERS = 1
"""Upload checks at once (in the bot pool, or the league's own pool without one); more wait."""
CHECK_TIMEOUT_S = 180.0
"""Longest upload check in seconds (the check is stopped and the upload refused beyond)."""

CHALLENGES_PER_BOT = 5
"""Queued challenges one bot may have at once (429 ``too_many_challenges`` beyond)."""
CHALLENGES_PER_OWNER = 20
"""Queued challenges one owner (client address) may have at once, all its bots together."""
LADDER_SHARE = 0.5
"""Least share of the scheduler's batches given to ladder matches while challenges are queued."""
BOT_BUDGET_S = 60.0
"""Seconds of thinking a league bot may use in one match (it resigns, and loses, beyond)."""
MAX_MATCH_S = 300.0
"""Longest league match in wall-clock seconds (the bot that used the most time resigns)."""

QUARANTINE_MATCHES = 3
"""Clean matches an upload (and each replacement) plays in quarantine before it is ranked
(issue 28 item 5): a clean match is one it played to the end without a failure of its own
(crash, late or invalid reply, memory); quarantine matches are not rated."""
MATCHES_PER_HOUR = 720
"""Most ladder and quarantine matches the scheduler plays per game in any hour (issue 28 item 6)."""
SETTLED_SIGMA = 2.0
"""The stop rule (issue 28 item 6): a game's ladder rests while every member's rating σ is
under this and no bot is in quarantine; an upload or a replacement (a new, unsettled rating)
wakes it. openskill's σ starts at 25/3 ≈ 8.3 and, with its dynamics factor τ, levels off near
1.5 however many matches are played (two bots: σ ≈ 2.5 after 100 matches, 1.9 after 200), so
the threshold must stay above that level or the ladder never rests."""
KEEP_REPLAYS = 20
"""Replays kept per pair of identities (the newest); older ones are dropped, every result stays
(issue 28 item 6)."""

RECENT_FORM = 5
"""Results shown as recent form on the ladder (W, D or L, newest first)."""
CHART_MEMBERS = 8
"""How many of a ladder's top members its page draws in the rating chart."""


class SandboxRefused(ApiError):
    """503: the machine isolates bots below the operator's minimum level (the reason)."""


def require_isolation() -> None:
    """Raise :class:`SandboxRefused` (503 ``sandbox_unavailable`` or ``sandbox_misconfigured``,
    with the reason) when uploaded code may not run here: the server's one upload gate,
    :func:`botwars.server.uploads.require_upload_isolation` (``BOTWARS_SANDBOX_MIN``, issue 12
    item 2)."""
    from botwars.server.uploads import require_upload_isolation
    try:
        require_upload_isolation()
    except ApiError as exc:
        raise SandboxRefused(exc.status, exc.code, exc.message) from None


def spec_for(kind: str, path: str) -> str:
    """The agent spec that runs the program stored at ``path`` as ``kind``."""
    return KINDS[kind][1].format(path=shlex.quote(path))


def _digest(*parts: Any) -> str:
    return hashlib.sha256(canonical_json(list(parts)).encode()).hexdigest()


def identity(bot_id: str, version: int) -> str:
    """The rated identity of a bot version: ``bot:ID@vN``."""
    return f"bot:{bot_id}@v{version}"


def result_letter(match: dict[str, Any], who: str) -> str:
    """``W`` (sole first place), ``D`` (shared first place) or ``L`` for ``who`` in a stored match."""
    pl = rating_mod.places(match)
    mine = pl[match["agents"].index(who)]
    if mine != 1:
        return "L"
    return "D" if pl.count(1) > 1 else "W"


def check_upload(spec: str, game: str, overrides: dict[str, Any], decisions: int) -> Optional[str]:
    """Play ``spec`` through :func:`botwars.agents.check.load_problem` (the short
    :func:`~botwars.agents.check.check_bot`, ``decisions`` decision points a seat); the first
    fault that means the bot does not work as one line, or ``None``. Refusals by the rules are
    allowed. Runs in a worker process (the bot itself in the sandbox)."""
    from botwars.agents.check import load_problem
    return load_problem(spec, game, overrides, decisions)


def league_secret(data_dir: str) -> int:
    """The league's secret seed (0 ≤ seed < 2**63), kept in ``DATA_DIR/league/seed`` (mode
    0600): read when the file exists, else drawn with :mod:`secrets` and written once (a hard
    link of a complete file, so two processes agree on one). Match seeds derive from it and from public
    facts (the game, a match's place ``seq``, a challenge's id), so it must never be shown
    (F-14.3, S-8.1, G-16.5). Raises ``OSError`` when the folder cannot be written."""
    path = os.path.join(os.path.abspath(data_dir), "league", "seed")
    try:
        with open(path, encoding="ascii") as f:
            return int(f.read().strip())
    except FileNotFoundError:
        pass
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    seed = secrets.randbits(63)
    tmp = f"{path}.{secrets.token_hex(4)}.part"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as f:
        f.write(f"{seed}\n")
    try:
        os.link(tmp, path)  # whole or not at all, and never over another process's seed
    except FileExistsError:  # another process drew it first: use that one
        with open(path, encoding="ascii") as f:
            seed = int(f.read().strip())
    finally:
        os.remove(tmp)
    return seed


# ---- seasons (issue 28 item 6) -----------------------------------------------------------
def _latest_season(s: Any, game: str) -> Optional[LeagueSeasonRow]:
    """The newest ``league_seasons`` row of ``game`` in session ``s``, or ``None`` (season 1)."""
    return s.scalars(select(LeagueSeasonRow).where(LeagueSeasonRow.game == game)
                     .order_by(LeagueSeasonRow.number.desc()).limit(1)).first()


def current_season(store: Store, game: str) -> dict[str, Any]:
    """``game``'s current season: ``{"number", "started_at", "reason"}`` (season 1, from 0.0 and
    reason ``""``, until an operator starts a second one). The ladder rates only the matches
    created since ``started_at``."""
    with store.read() as s:
        row = _latest_season(s, game)
    if row is None:
        return {"number": 1, "started_at": 0.0, "reason": ""}
    return {"number": row.number, "started_at": row.started_at, "reason": row.reason}


def start_season(store: Store, game: str, reason: str, now: float | None = None) -> dict[str, Any]:
    """Start ``game``'s next season at ``now`` (server time; default: the clock) for ``reason``
    (plain words, 1 to 200 characters): from then on the ladder rates only the new season's
    matches, so every rating starts afresh and a resting ladder plays again (the rest rule's
    "until something changes"). Earlier seasons' matches and replays stay stored. Returns the new
    :func:`current_season`. Raises :class:`ApiError` 404 for an unknown game, 422 for an empty or
    over-long reason."""
    try:
        get_ruleset(game)
    except BotwarsError:
        raise ApiError(404, "unknown_game", f"no game {game[:64]!r}") from None
    reason = (reason or "").strip()
    if not 1 <= len(reason) <= 200:
        raise ApiError(422, "bad_reason", "a new season needs a reason of 1 to 200 characters "
                                          "(it is shown on the league page)")
    now = time.time() if now is None else now
    with store.write() as s:
        last = _latest_season(s, game)
        number = (last.number if last is not None else 1) + 1
        s.add(LeagueSeasonRow(game=game, number=number, started_at=now, reason=reason))
    return {"number": number, "started_at": now, "reason": reason}


# ---- the league ----------------------------------------------------------------------------
class RestRules(BaseModel):
    """The league's quarantine and rest rules (issue 28 items 5 and 6), shown on the league
    pages: ``quarantine_matches`` (≥ 0; 0: an upload is ranked at once), ``matches_per_hour``
    (per game, ≥ 1, or ``None``: no budget), ``settled_sigma`` (σ, > 0, or ``None``: never
    rest), ``keep_replays`` (per pair of identities, ≥ 1, or ``None``: keep all). Raises
    ``pydantic.ValidationError`` for a value out of range."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    quarantine_matches: int = Field(QUARANTINE_MATCHES, ge=0, le=1000)
    matches_per_hour: Optional[int] = Field(MATCHES_PER_HOUR, ge=1)
    settled_sigma: Optional[float] = Field(SETTLED_SIGMA, gt=0)
    keep_replays: Optional[int] = Field(KEEP_REPLAYS, ge=1)


class League:
    """The server's league over ``store``; bot programs are materialised under ``data_dir``.

    ``workers``: matches at once (one process pool of that size, kept from one scheduler step
    to the next with the sandboxed hosts its workers keep, issue 15 item 5); ``seed``:
    the league seed (pairings and match seeds derive from it); ``None`` (the default): a
    secret one drawn once and kept in ``data_dir`` (:func:`league_secret`), since a known
    league seed would let anyone, and any bot from its agent seed, compute a match's seed and
    so its deals (F-14.3, S-8.1); ``config``: per game parameter
    overrides for league matches (game id → ``{"max_turns": 20, ...}``); ``house``: per game the
    built-in bots that sit on the ladder (default: all of the game's); ``check_decisions``:
    decision points per seat of an upload's check; ``enabled``: whether :meth:`start` runs the
    scheduler thread (default: ``BOTWARS_LEAGUE`` is not ``off``); ``idle_s``: the thread's
    pause when there was nothing to play.

    Fairness (issue 25 item 3): a bot may have at most ``challenges_per_bot`` queued
    challenges and an owner (the client address that queued them) ``challenges_per_owner``
    (429 beyond); while there are both, at least ``ladder_share`` of the batches are ladder
    batches; every bot program gets ``budget_s`` seconds of thinking per match (one that uses
    it up resigns and so loses) and no match lasts past ``max_match_s`` seconds
    (:attr:`botwars.league.runner.MatchJob.budget_s`); retiring a bot drops all its queued
    challenges at once.

    Upload checks (issue 25 item 4) run in ``bot_pool`` (the server's
    :class:`~botwars.server.botpool.BotPool`; without one, a pool of :data:`CHECK_WORKERS`
    processes of the league's own) through ``gate`` (:class:`~botwars.server.uploads.UploadGate`:
    a per-address rate limit, :data:`CHECK_WORKERS` checks at once), awaited by the request
    without holding one of the server's threads.

    Quarantine and rest (issue 28 items 5 and 6, :class:`RestRules` in :attr:`rules`): an upload
    or replacement plays ``quarantine_matches`` clean matches (kind ``quarantine``, unrated)
    before it is ranked; the scheduler plays at most ``matches_per_hour`` matches of a game in
    any hour; a game rests while every member's σ is under ``settled_sigma`` and no bot is in
    quarantine; only the newest ``keep_replays`` replays of each pair are kept (every result
    stays). ``None`` switches a rule off.
    """

    def __init__(self, store: Store, data_dir: str, *, workers: int = 1, seed: int | None = None,
                 config: dict[str, dict[str, Any]] | None = None, house: dict[str, list[str]] | None = None,
                 check_decisions: int = 4, enabled: bool | None = None, idle_s: float = 5.0,
                 challenges_per_bot: int = CHALLENGES_PER_BOT, challenges_per_owner: int = CHALLENGES_PER_OWNER,
                 ladder_share: float = LADDER_SHARE, budget_s: float | None = BOT_BUDGET_S,
                 max_match_s: float | None = MAX_MATCH_S, bot_pool: Any = None, gate: UploadGate | None = None,
                 quarantine_matches: int = QUARANTINE_MATCHES, matches_per_hour: int | None = MATCHES_PER_HOUR,
                 settled_sigma: float | None = SETTLED_SIGMA, keep_replays: int | None = KEEP_REPLAYS):
        self.store = store
        self.data_dir = os.path.abspath(data_dir)
        self.workers = max(1, workers)
        self._seed = seed
        self.config = dict(config or {})
        self.house = house
        self.check_decisions = check_decisions
        self.enabled = (os.environ.get("BOTWARS_LEAGUE", "").strip().lower() not in ("off", "0", "no")
                        if enabled is None else enabled)
        self.idle_s = idle_s
        self.challenges_per_bot = challenges_per_bot
        self.challenges_per_owner = challenges_per_owner
        self.ladder_share = min(1.0, max(0.0, ladder_share))
        self.budget_s = budget_s
        self.max_match_s = max_match_s
        self.bot_pool = bot_pool
        # several workers share one PostgreSQL: the upload rate is counted there (issue 27 item 4)
        self.gate = gate or UploadGate(slots=CHECK_WORKERS,
                                       store=None if getattr(store, "is_sqlite", True) else store)
        self.rules = RestRules(quarantine_matches=quarantine_matches, matches_per_hour=matches_per_hour,
                               settled_sigma=settled_sigma, keep_replays=keep_replays)
        self._check_pool: Any = None  # without a bot pool: the league's own (made at the first check)
        self._check_lock = threading.Lock()
        self._batches = {"ladder": 0, "challenge": 0}  # batches played by kind (the ladder's share)
        self._step_lock = threading.Lock()
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._turn = 0
        self._backend: Any = None  # the kept LocalBackend (made at the first batch)
        self._charts: dict[str, tuple[tuple[Any, ...], str | None]] = {}  # game -> (results key, SVG)
        self._chart_lock = threading.Lock()

    @property
    def seed(self) -> int:
        """The league seed: as given, else the secret kept in ``data_dir`` (read, or drawn and
        stored, on first use)."""
        if self._seed is None:
            self._seed = league_secret(self.data_dir)
        return self._seed

    # ---- life cycle ----------------------------------------------------------------------
    def start(self) -> None:
        """Start the scheduler thread (when enabled)."""
        if not self.enabled or self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._loop, name="botwars-league", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop the scheduler thread at once (issue 25 item 10: the server stops within
        seconds): a batch under way is interrupted and nothing of its matches is stored, so a
        queued challenge stays queued and a ladder match's place in the schedule stays free;
        both are played again, from the start with the same seeds, after a restart. Waits at
        most about 5 s for the thread."""
        self._stop.set()
        self._wake.set()
        backend = self._backend
        if backend is not None:
            backend.interrupt()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        if self._step_lock.acquire(timeout=5):
            try:
                if self._backend is not None:
                    self._backend.close()
                    self._backend = None
            finally:
                self._step_lock.release()
        with self._check_lock:
            if self._check_pool is not None:
                self._check_pool.stop()
                self._check_pool.join(timeout=10)
                self._check_pool = None

    leader: Callable[[], bool] = staticmethod(lambda: True)
    """Whether this worker runs the scheduler now (issue 27: only the cluster's leader does;
    a worker that loses the lease stops at its next round)."""

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                n = self.step() if self.leader() else 0
            except Exception:  # pragma: no cover - keep the scheduler alive, log the bug
                log.exception("league scheduler")
                n = 0
            if n == 0:
                self._wake.wait(self.idle_s)
                self._wake.clear()

    # ---- bots ----------------------------------------------------------------------------
    def game_config(self, game: str) -> dict[str, Any]:
        """The full config of league matches of ``game`` (its defaults and the overrides)."""
        return get_ruleset(game).validate_config(dict(self.config.get(game, {})), source="league config")

    def house_bots(self, game: str) -> list[str]:
        """``builtin:NAME`` of the game's house bots."""
        names = sorted(get_game(game).builtin_bots())
        if self.house is not None and game in self.house:
            names = [n for n in self.house[game] if n in names]
        return [f"builtin:{n}" for n in names]

    def _bot_path(self, bot_id: str, version: int, kind: str) -> str:
        return os.path.join(self.data_dir, "league", "bots", bot_id, f"v{version}", KINDS[kind][0])

    def materialise(self, row: LeagueBotRow) -> str:
        """Write the bot's program into its private folder (mode 0700) once; returns the agent spec."""
        path = self._bot_path(row.id, row.version, row.kind)
        if not os.path.isfile(path):
            os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
            tmp = f"{path}.{secrets.token_hex(4)}.part"
            with open(tmp, "w", encoding="utf-8", newline="") as f:
                f.write(row.source)
            os.chmod(tmp, 0o600)
            os.replace(tmp, path)
        return spec_for(row.kind, path)

    def _drop_files(self, bot_id: str, keep: int | None = None) -> None:
        base = os.path.join(self.data_dir, "league", "bots", bot_id)
        if not os.path.isdir(base):
            return
        for d in os.listdir(base):
            if keep is None or d != f"v{keep}":
                shutil.rmtree(os.path.join(base, d), ignore_errors=True)

    def _check_task(self, spec: str, game: str) -> Any:
        """Start the check of ``spec`` in the bot pool (or, without one, the league's own
        pool of :data:`CHECK_WORKERS` processes); returns its future (one line or ``None``)."""
        args = (spec, game, self.config.get(game, {}), self.check_decisions)
        if self.bot_pool is not None and getattr(self.bot_pool, "running", False):
            return self.bot_pool.run_task(check_upload, args, CHECK_TIMEOUT_S)
        with self._check_lock:
            if self._check_pool is None or not self._check_pool.active:
                from pebble import ProcessPool
                self._check_pool = ProcessPool(max_workers=CHECK_WORKERS)
            return self._check_pool.schedule(check_upload, args=args, timeout=CHECK_TIMEOUT_S)

    async def _validate(self, bot_id: str, version: int, game: str, kind: str, source: str) -> None:
        """Check the program in a worker process of the bot pool (the sandbox runs it), through
        :attr:`gate` (a bounded number at once), awaited without holding a request thread;
        422 naming the fault."""
        if kind in ("rgkit", "botwars-io") and get_game(game).agent_kind(kind) is None:
            raise ApiError(422, "wrong_kind", f"kind {kind}: such bots play only "
                                              f"{', '.join(g for g in all_games() if get_game(g).agent_kind(kind))}, "
                                              f"not {game}")
        row = LeagueBotRow(id=bot_id, version=version, kind=kind, source=source)
        spec = await run_in_threadpool(self.materialise, row)
        try:
            problem = await self.gate.run(lambda: self._check_task(spec, game))
        except ApiError:
            await run_in_threadpool(self._drop_files, bot_id, None if version == 1 else version - 1)
            raise
        except Exception as exc:  # the check's worker died or ran out of time
            problem = f"the check did not finish ({type(exc).__name__})"
        if problem is not None:
            await run_in_threadpool(self._drop_files, bot_id, None if version == 1 else version - 1)
            raise ApiError(422, "bot_refused", f"the {kind} bot does not work: {_hide_paths(problem, self.data_dir, self._bot_path(bot_id, version, kind))}")

    async def upload(self, name: str, game: str, kind: str, source: str) -> tuple[dict[str, Any], str]:
        """Store a new bot after its check; returns its public facts and its owner token.
        Raises :class:`ApiError`: 503 (isolation, or too many uploads waiting), 422 (bad game,
        name, kind, source, a check fault), 409 (the name is taken in that game)."""
        bot_id = await run_in_threadpool(self._before_upload, name, game, source)
        await self._validate(bot_id, 1, game, kind, source)
        return await run_in_threadpool(self._store_upload, bot_id, name, game, kind, source)

    def _before_upload(self, name: str, game: str, source: str) -> str:
        """The checks of an upload before its program runs; a new bot id."""
        require_isolation()
        try:
            get_ruleset(game)
        except BotwarsError as exc:
            raise ApiError(422, "unknown_game", str(exc)) from None
        _check_source(source)
        with self.store.read() as s:
            _name_free(s, game, name)
        return secrets.token_hex(6)

    def _store_upload(self, bot_id: str, name: str, game: str, kind: str, source: str) -> tuple[dict[str, Any], str]:
        token = new_token()
        now = time.time()
        with self.store.write() as s:
            _name_free(s, game, name)
            row = LeagueBotRow(id=bot_id, name=name, game=game, kind=kind, source=source, version=1,
                               token_hash=token_hash(token), status="active", created_at=now, updated_at=now)
            s.add(row)
        self._wake.set()
        return _public(row), token

    def _owned(self, bot_id: str, token: Optional[str]) -> LeagueBotRow:
        with self.store.read() as s:
            row = s.get(LeagueBotRow, bot_id) if _key(bot_id, 16) else None
        if row is None:
            raise ApiError(404, "unknown_bot", "no league bot with that id")
        if not token:
            raise ApiError(403, "token_required", "the bot's owner token is required (Authorization: Bearer TOKEN)")
        if not hmac.compare_digest(token_hash(token), row.token_hash):
            raise ApiError(403, "bad_token", "this token is not the owner token of this bot")
        return row

    async def replace(self, bot_id: str, token: Optional[str], source: str,
                      kind: Optional[str] = None) -> dict[str, Any]:
        """Replace an active bot's program (owner only): version + 1 after its check."""
        row = await run_in_threadpool(self._before_replace, bot_id, token, source)
        kind = kind or row.kind
        await self._validate(row.id, row.version + 1, row.game, kind, source)
        return await run_in_threadpool(self._store_replace, bot_id, source, kind)

    def _before_replace(self, bot_id: str, token: Optional[str], source: str) -> LeagueBotRow:
        row = self._owned(bot_id, token)
        if row.status != "active":
            raise ApiError(409, "retired", "this bot is retired")
        require_isolation()
        _check_source(source)
        return row

    def _store_replace(self, bot_id: str, source: str, kind: str) -> dict[str, Any]:
        with self.store.write() as s:
            r = s.get(LeagueBotRow, bot_id)
            r.source, r.kind, r.version, r.updated_at = source, kind, r.version + 1, time.time()
            out = _public(r)
        self._drop_files(bot_id, keep=out["version"])
        return out

    def retire(self, bot_id: str, token: Optional[str]) -> dict[str, Any]:
        """Retire a bot (owner only): it leaves the ladder; its played matches stay, its queued
        challenges (its own and those against it) are dropped at once (status ``failed``, the
        reason in ``error_detail``). 409 ``retired`` when it is retired already (nothing changes)."""
        if self._owned(bot_id, token).status != "active":
            raise ApiError(409, "retired", "this bot is retired already")
        now = time.time()
        with self.store.write() as s:
            r = s.get(LeagueBotRow, bot_id)
            r.status, r.updated_at = "retired", now
            out = _public(r)
            # every queued challenge naming the bot (either side) is dropped now, in one go
            detail = canonical_json([{"decision": 0, "seat": None, "code": "failed",
                                      "detail": f"league bot {r.name} was retired before the match was played"}])
            for q in s.scalars(select(LeagueMatchRow).where(LeagueMatchRow.status == "queued",
                                                            LeagueMatchRow.agents.like(f'%"bot:{bot_id}@%'))):
                q.status, q.error_detail, q.finished_at = "failed", detail, now
        self._drop_files(bot_id)
        return out

    def source(self, bot_id: str, token: Optional[str]) -> dict[str, Any]:
        """The bot's program text (owner only)."""
        row = self._owned(bot_id, token)
        return {"bot": row.id, "kind": row.kind, "version": row.version, "source": row.source}

    def bot(self, bot_id: str) -> dict[str, Any]:
        """A bot's public facts (never its source or token); 404 if unknown."""
        with self.store.read() as s:
            row = s.get(LeagueBotRow, bot_id) if _key(bot_id, 16) else None
        if row is None:
            raise ApiError(404, "unknown_bot", "no league bot with that id")
        return _public(row)

    def bots(self, game: Optional[str] = None, active: bool = True) -> list[dict[str, Any]]:
        """Public facts of the bots (of ``game``; none for a game that does not exist), by id."""
        if game and game not in all_games():
            return []
        with self.store.read() as s:
            q = select(LeagueBotRow).order_by(LeagueBotRow.id)
            if game:
                q = q.where(LeagueBotRow.game == game)
            if active:
                q = q.where(LeagueBotRow.status == "active")
            return [_public(r) for r in s.scalars(q)]

    # ---- matches -------------------------------------------------------------------------
    def _stored(self, game: str, kind: str = "ladder") -> list[dict[str, Any]]:
        """The stored matches of ``game`` of ``kind``; ladder matches of the current season only
        (:meth:`season`: a new season rates afresh)."""
        q = select(LeagueMatchRow).where(LeagueMatchRow.game == game, LeagueMatchRow.kind == kind)
        if kind == "ladder":
            q = q.where(LeagueMatchRow.created_at >= self.season(game)["started_at"])
        with self.store.read() as s:
            rows = list(s.scalars(q))
        return [_match_dict(r) for r in rows]

    # ---- seasons (issue 28 item 6) ---------------------------------------------------------
    def season(self, game: str) -> dict[str, Any]:
        """``game``'s current season (:func:`current_season`)."""
        return current_season(self.store, game)

    def new_season(self, game: str, reason: str, now: float | None = None) -> dict[str, Any]:
        """Start ``game``'s next season (:func:`start_season`)."""
        return start_season(self.store, game, reason, now)

    def _trials(self, game: str, quarantine: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
        """Per active bot version of ``game`` still in quarantine (fewer than
        ``rules.quarantine_matches`` clean matches among the stored ``quarantine`` matches):
        ``{"played", "clean", "needed"}``. A clean match: status ``ok`` and no failure of the
        bot's own seat."""
        need = self.rules.quarantine_matches
        out = {}
        for b in self.bots(game):
            ident = identity(b["bot"], b["version"])
            mine = [m for m in quarantine if ident in m["agents"]]
            clean = sum(1 for m in mine if m["status"] == "ok"
                        and not m["errors"].get(m["seats"][m["agents"].index(ident)], 0))
            if clean < need:
                out[ident] = {"played": len(mine), "clean": clean, "needed": need}
        return out

    def names(self, game: Optional[str] = None) -> dict[str, str]:
        """Display name of every identity: ``NAME v2`` for bot versions (``builtin:X`` as is)."""
        with self.store.read() as s:
            q = select(LeagueBotRow.id, LeagueBotRow.name, LeagueBotRow.version)
            if game:
                q = q.where(LeagueBotRow.game == game)
            rows = list(s.execute(q))
        out = {}
        for bid, name, version in rows:
            for v in range(1, version + 1):
                out[identity(bid, v)] = name if v == version else f"{name} (v{v})"
        return out

    def ladder(self, game: str) -> list[dict[str, Any]]:
        """The ladder of ``game``: one row per member (active uploaded bots, current version,
        and house bots) with ``rank``, ``name``, ``bot`` (id or ``None``), ``agent``
        (identity), ``mu``, ``sigma``, ``ordinal``, ``elo`` (games with ``rating_initial``,
        else ``None``), ``games``, ``wins``, ``draws``, ``losses``, ``form`` (e.g. ``"WLD"``,
        newest first), ``trial`` (a bot in quarantine: ``{"played", "clean", "needed"}``, its
        ``rank`` ``None``; else ``None``). Ordered by ordinal, then μ, then name, the bots in
        quarantine last. Raises 404 for an unknown game."""
        return self._ladder(game, self._stored(game), self._stored(game, "quarantine"))

    def _ladder(self, game: str, matches: list[dict[str, Any]],
                quarantine: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
        """:meth:`ladder` from the game's stored ladder ``matches`` (:meth:`_stored`) and
        ``quarantine`` matches (bots still in quarantine are unranked)."""
        try:
            rs = get_ruleset(game)
        except BotwarsError:
            raise ApiError(404, "unknown_game", f"no game {game[:64]!r}") from None
        names = self.names(game)
        bots = self.bots(game)
        members = [(identity(b["bot"], b["version"]), b["bot"], b["name"], b["kind"]) for b in bots]
        members += [(h, None, h, "house") for h in self.house_bots(game)]
        everyone = sorted({m[0] for m in members} | {a for m in matches for a in m["agents"]})
        osk = rating_mod.openskill_ratings(matches, everyone)
        elo = None
        table = rs.param_table()
        if "rating_initial" in table:
            initial = self.game_config(game).get("rating_initial", rating_mod.ELO_DEFAULT_INITIAL)
            elo = rating_mod.elo_ratings(matches, everyone, float(initial))
        counted = rating_mod.fixed_order(matches)
        trials = self._trials(game, quarantine) if quarantine is not None else {}
        rows = []
        for ident, bid, name, kind in members:
            mine = [m for m in counted if ident in m["agents"]]
            letters = [result_letter(m, ident) for m in mine]
            r = osk[ident]
            rows.append({"agent": ident, "bot": bid, "name": names.get(ident, name), "kind": kind,
                         "mu": r["mu"], "sigma": r["sigma"], "ordinal": r["ordinal"],
                         "elo": None if elo is None else elo[ident], "games": len(mine),
                         "wins": letters.count("W"), "draws": letters.count("D"), "losses": letters.count("L"),
                         "form": "".join(reversed(letters[-RECENT_FORM:])), "trial": trials.get(ident)})
        rows.sort(key=lambda x: (x["trial"] is not None, -x["ordinal"], -x["mu"], x["name"]))
        for i, x in enumerate(rows):
            x["rank"] = i + 1 if x["trial"] is None else None
        return rows

    def ladder_with_chart(self, game: str) -> tuple[list[dict[str, Any]], str | None]:
        """:meth:`ladder`, and an SVG chart of how the ratings of its top :data:`CHART_MEMBERS`
        members moved over the stored ladder matches
        (:func:`botwars.league.charts.rating_chart_svg`, display names as labels; ``None``
        before any match counts), from one read of the matches. The chart is drawn once per set
        of results and member list, then kept, so a page view does not redraw it. Raises 404
        for an unknown game."""
        from botwars.league.charts import rating_chart_svg
        matches = self._stored(game)
        rows = self._ladder(game, matches, self._stored(game, "quarantine"))
        counted = rating_mod.fixed_order(matches)
        top = rows[:CHART_MEMBERS]
        ids = hashlib.sha256("\n".join(m["match_id"] for m in counted).encode()).hexdigest()
        key = (ids, tuple((r["agent"], r["name"]) for r in top))
        with self._chart_lock:
            kept = self._charts.get(game)
            if kept is None or kept[0] != key:
                kept = self._charts[game] = (key, rating_chart_svg(matches, [r["agent"] for r in top],
                                                                   labels={r["agent"]: r["name"] for r in top}))
        return rows, kept[1]

    def bot_matches(self, bot_id: str, limit: int = 200) -> list[dict[str, Any]]:
        """A bot's matches (every version; ladder and challenges), newest first, public fields."""
        b = self.bot(bot_id)
        with self.store.read() as s:
            rows = list(s.scalars(select(LeagueMatchRow).where(LeagueMatchRow.game == b["game"],
                                                               LeagueMatchRow.agents.like(f'%"bot:{bot_id}@%'))
                                  .order_by(LeagueMatchRow.created_at.desc(), LeagueMatchRow.seq.desc())
                                  .limit(limit)))
        names = self.names(b["game"])
        out = []
        for r in rows:
            m = _match_dict(r)
            me = next((a for a in m["agents"] if a.startswith(f"bot:{bot_id}@")), None)
            out.append({**_public_match(m, names),
                        "result": result_letter(m, me) if m["status"] == "ok" and m["outcome"] and me else None})
        return out

    def match(self, match_id: str) -> dict[str, Any]:
        """A league match's public facts (no record); 404 if unknown."""
        r = self._match_row(match_id)
        return _public_match(_match_dict(r), self.names(r.game))

    def _match_row(self, match_id: str) -> LeagueMatchRow:
        with self.store.read() as s:
            r = s.get(LeagueMatchRow, match_id) if _key(match_id, 32) else None
        if r is None:
            raise ApiError(404, "unknown_match", "no league match with that id")
        return r

    def record(self, match_id: str) -> str:
        """The finished match's JSON Lines record; 409 while it is queued, 404 if it has none."""
        r = self._match_row(match_id)
        if r.status == "queued":
            raise ApiError(409, "match_queued", "this challenge has not been played yet")
        if not r.record:
            raise ApiError(404, "no_record", "this match could not be played; it has no record")
        return r.record

    def challenge(self, bot_id: str, token: Optional[str], opponent: str,
                  owner: Optional[str] = None) -> dict[str, Any]:
        """Queue an unrated match of the owner's bot against ``opponent`` (another active bot's
        id of the same game, or ``builtin:NAME``); returns its public facts (status
        ``queued``). ``owner``: who queues it (the client address; counted for
        :attr:`challenges_per_owner`). 503 (isolation), 403 (token), 422 (a bad opponent),
        429 ``too_many_challenges`` (the bot has :attr:`challenges_per_bot` queued challenges,
        or the owner :attr:`challenges_per_owner`)."""
        row = self._owned(bot_id, token)
        if row.status != "active":
            raise ApiError(409, "retired", "this bot is retired")
        require_isolation()
        if opponent.startswith("builtin:"):
            if opponent[len("builtin:"):] not in get_game(row.game).builtin_bots():
                raise ApiError(422, "bad_opponent", f"{row.game} has no built-in bot {opponent[8:]!r} "
                               f"(known: {', '.join(sorted(get_game(row.game).builtin_bots()))})")
            other = opponent
        else:
            try:
                o = self.bot(opponent)
            except ApiError:
                raise ApiError(422, "bad_opponent", "opponent: no league bot with that id "
                                                    "(or use builtin:NAME)") from None
            if o["game"] != row.game or o["status"] != "active":
                raise ApiError(422, "bad_opponent", f"opponent {o['name']!r} is not an active {row.game} bot")
            other = identity(o["bot"], o["version"])
        me = identity(row.id, row.version)
        rs = get_ruleset(row.game)
        seats = rs.seat_names(max(2, rs.min_seats))
        mid = secrets.token_hex(6)
        now = time.time()
        with self.store.write() as s:
            self._quota(s, row, owner)
            s.add(LeagueMatchRow(match_id=mid, game=row.game, kind="challenge", seq=0, owner=owner,
                                 seed=int(_digest(self.seed, "challenge", mid)[:12], 16), agents=canonical_json([me, other]),
                                 seats=canonical_json(seats), status="queued", outcome=None, turns=0, errors="{}",
                                 error_detail="[]", record=None, created_at=now, finished_at=None))
        self._wake.set()
        return self.match(mid)

    def _quota(self, s: Any, row: LeagueBotRow, owner: Optional[str]) -> None:
        """Raise 429 ``too_many_challenges`` when ``row``'s bot or ``owner`` has its quota of
        queued challenges (counted in the write transaction that would add one)."""
        from sqlalchemy import func
        queued = select(func.count()).select_from(LeagueMatchRow).where(LeagueMatchRow.status == "queued",
                                                                        LeagueMatchRow.kind == "challenge")
        mine = s.scalar(queued.where(LeagueMatchRow.agents.like(f'["bot:{row.id}@%')))
        if mine >= self.challenges_per_bot:
            raise ApiError(429, "too_many_challenges",
                           f"{row.name} has {mine} challenges waiting to be played, the most a bot may have "
                           f"({self.challenges_per_bot}); challenge again once they are played")
        if owner is not None:
            theirs = s.scalar(queued.where(LeagueMatchRow.owner == owner))
            if theirs >= self.challenges_per_owner:
                raise ApiError(429, "too_many_challenges",
                               f"you have {theirs} challenges waiting to be played, the most one owner may have "
                               f"({self.challenges_per_owner}); challenge again once they are played")

    # ---- the scheduler -------------------------------------------------------------------
    def _spec(self, ident: str, rows: dict[str, LeagueBotRow]) -> tuple[str, str]:
        """``(spec, identity)`` to play ``ident`` now (a bot plays its current version)."""
        if ident.startswith("builtin:"):
            return ident, ident
        bid = ident[4:].split("@", 1)[0]
        row = rows.get(bid)
        if row is None or row.status != "active":
            raise ConfigError(f"league bot {bid} is retired")
        return self.materialise(row), identity(row.id, row.version)

    def _rows(self) -> dict[str, LeagueBotRow]:
        with self.store.read() as s:
            return {r.id: r for r in s.scalars(select(LeagueBotRow))}

    def _challenge_jobs(self, limit: int) -> list[MatchJob]:
        with self.store.read() as s:
            queued = list(s.scalars(select(LeagueMatchRow).where(LeagueMatchRow.status == "queued")
                                    .order_by(LeagueMatchRow.created_at, LeagueMatchRow.match_id).limit(limit)))
        rows = self._rows()
        jobs = []
        for q in queued:
            agents = json.loads(q.agents)
            try:
                pairs = [self._spec(a, rows) for a in agents]
            except ConfigError as exc:
                self._commit(MatchReport({"match_id": q.match_id, "seats": json.loads(q.seats), "agents": agents,
                                          "status": "failed", "outcome": None, "turns": 0, "errors": {},
                                          "error_detail": [{"decision": 0, "seat": None, "code": "failed",
                                                            "detail": str(exc)}]}), "challenge", q.game)
                continue
            jobs.append(MatchJob(q.match_id, q.game, self.game_config(q.game), tuple(p[0] for p in pairs), q.seed,
                                 names=tuple(p[1] for p in pairs), budget_s=self.budget_s,
                                 max_match_s=self.max_match_s))
        return jobs

    def ladder_games(self) -> list[str]:
        """Games with at least one active uploaded bot and two ladder members, sorted."""
        out = set()
        for b in self.bots():
            if b["game"] in all_games() and (len(self.bots(b["game"])) + len(self.house_bots(b["game"]))) >= 2:
                out.add(b["game"])
        return sorted(out)

    def pairings(self, game: str, count: int) -> list[MatchJob]:
        """The next ``count`` ladder matches of ``game`` (deterministic: the same stored results,
        bots and seed give the same matches). Each pairs the uploaded bot with the fewest games
        (ladder and quarantine; ties: seeded choice) with one of the 3 members nearest to it by
        ordinal (seeded choice; ranked members before bots in quarantine); the seat order is
        seeded too. ``seq`` continues the game's schedule. A match with a bot in quarantine is
        stored as kind ``quarantine`` (see :meth:`scheduled`)."""
        return [job for job, _ in self.scheduled(game, count)]

    def scheduled(self, game: str, count: int) -> list[tuple[MatchJob, str]]:
        """:meth:`pairings` with each match's kind: ``ladder`` (rated) or ``quarantine`` (a bot
        in it is still in quarantine, issue 28 item 5: unrated)."""
        rows = self._rows()
        matches = self._stored(game)
        quarantine = self._stored(game, "quarantine")
        seq0 = max((m["seq"] for m in matches + quarantine), default=0) + 1
        lad = {r["agent"]: r for r in self._ladder(game, matches, quarantine)}
        # a bot uploaded (or retired) between the two reads is left to the next batch
        lad = {a: r for a, r in lad.items()
               if r["bot"] is None or (r["bot"] in rows and rows[r["bot"]].status == "active")}
        uploaded = sorted(a for a in lad if a.startswith("bot:"))
        members = sorted(lad)
        played = {a: lad[a]["games"] + (lad[a]["trial"] or {}).get("played", 0) for a in members}
        rs = get_ruleset(game)
        seats = rs.seat_names(max(2, rs.min_seats))
        cfg = self.game_config(game)
        jobs = []
        for k in range(count):
            if not uploaded or len(members) < 2:
                break
            seq = seq0 + k
            rng = random.Random(_digest(self.seed, game, seq))
            least = min(played[a] for a in uploaded)
            first = rng.choice([a for a in uploaded if played[a] == least])
            others = sorted((a for a in members if a != first),
                            key=lambda a: (lad[a]["trial"] is not None,
                                           abs(lad[a]["ordinal"] - lad[first]["ordinal"]), a))
            group = [first] + rng.sample(others[:3], min(len(seats) - 1, len(others[:3])))
            if len(group) < len(seats):
                break
            rng.shuffle(group)
            for a in group:
                played[a] += 1
            pairs = [self._spec(a, rows) for a in group]
            mid = _digest("ladder", self.seed, game, seq, [p[1] for p in pairs])[:12]
            kind = "quarantine" if any(lad[a]["trial"] is not None for a in group) else "ladder"
            jobs.append((MatchJob(mid, game, cfg, tuple(p[0] for p in pairs),
                                  int(_digest(self.seed, game, seq)[:12], 16), seq=seq,
                                  names=tuple(p[1] for p in pairs), budget_s=self.budget_s,
                                  max_match_s=self.max_match_s), kind))
        return jobs

    # ---- rest (issue 28 item 6) ----------------------------------------------------------
    def played_last_hour(self, game: str, now: float | None = None) -> int:
        """Ladder and quarantine matches of ``game`` stored in the hour before ``now``."""
        from sqlalchemy import func
        now = time.time() if now is None else now
        with self.store.read() as s:
            return int(s.scalar(select(func.count()).select_from(LeagueMatchRow).where(
                LeagueMatchRow.game == game, LeagueMatchRow.kind.in_(("ladder", "quarantine")),
                LeagueMatchRow.created_at > now - 3600)) or 0)

    def rest_state(self, game: str, now: float | None = None) -> dict[str, Any]:
        """Whether ``game``'s ladder plays now, by the rest rules: ``{"budget_left"`` (matches
        the hourly budget still allows, ``None``: no budget), ``"settled"`` (every member's σ is
        under ``rules.settled_sigma`` and no bot is in quarantine), ``"resting"`` (nothing
        to play now), ``"reason"`` (plain words, or ``None``)``}``. Raises 404 for an unknown
        game."""
        r = self.rules
        left = None
        reason = None
        if r.matches_per_hour is not None:
            left = max(0, r.matches_per_hour - self.played_last_hour(game, now))
            if left == 0:
                reason = f"played its budget of {r.matches_per_hour} matches in the last hour"
        rows = self.ladder(game)
        settled = (r.settled_sigma is not None and bool(rows)
                   and all(x["trial"] is None and x["sigma"] < r.settled_sigma for x in rows))
        if settled:
            reason = (f"every rating is settled (σ under {r.settled_sigma:g}); an upload, a replacement "
                      "or a new season starts the ladder again")
        return {"budget_left": left, "settled": settled, "resting": reason is not None, "reason": reason}

    def prune_replays(self, game: str) -> int:
        """Drop the replays of ``game``'s finished matches beyond the newest
        ``rules.keep_replays`` of each pair of identities (the unordered set of its agents);
        the matches' results stay, and so do the ratings. A dropped replay's copy registered
        with the replay viewer is deleted too. Returns how many replays were dropped."""
        keep = self.rules.keep_replays
        if keep is None:
            return 0
        from sqlalchemy import delete, update
        with self.store.read() as s:
            rows = list(s.execute(select(LeagueMatchRow.match_id, LeagueMatchRow.agents, LeagueMatchRow.finished_at,
                                         LeagueMatchRow.seq)
                                  .where(LeagueMatchRow.game == game, LeagueMatchRow.record.is_not(None))))
        by_pair: dict[tuple[str, ...], list[Any]] = {}
        for r in rows:
            by_pair.setdefault(tuple(sorted(json.loads(r.agents))), []).append(r)
        drop = []
        for group in by_pair.values():
            group.sort(key=lambda r: (r.finished_at or 0.0, r.seq, r.match_id), reverse=True)
            drop += [r.match_id for r in group[keep:]]
        if drop:
            with self.store.write() as s:
                s.execute(update(LeagueMatchRow).where(LeagueMatchRow.match_id.in_(drop)).values(record=None))
                s.execute(delete(MatchRow).where(MatchRow.id.in_(drop)))
        return len(drop)

    def step(self, max_matches: Optional[int] = None) -> int:
        """Play one batch (at most ``max_matches``, default ``workers``): queued challenges or
        ladder matches of the next game in turn. While challenges are queued, batches go to
        them, except that the ladder gets at least :attr:`ladder_share` of the batches played
        while challenges waited (with the default ½: every other one, challenges first).
        Returns the number played (0: nothing to play, or the sandbox is below the required
        level)."""
        from botwars.agents.sandbox import SandboxUnavailable, require_level
        try:
            require_level()
        except (SandboxUnavailable, ValueError) as exc:
            log.warning("league paused: %s", exc)
            return 0
        limit = max_matches or self.workers
        with self._step_lock:
            jobs = self._challenge_jobs(limit)
            kind, game = "challenge", ""
            contested = bool(jobs)
            done = self._batches
            kinds: dict[str, str] = {}
            if not jobs or done["ladder"] < self.ladder_share * (done["ladder"] + done["challenge"]):
                games = self.ladder_games()
                ladder: list[tuple[MatchJob, str]] = []
                for _ in range(len(games)):  # the next game in turn that is not resting
                    g = games[self._turn % len(games)]
                    self._turn += 1
                    state = self.rest_state(g)
                    if state["resting"]:
                        continue
                    left = state["budget_left"]
                    ladder = self.scheduled(g, limit if left is None else min(limit, left))
                    if ladder:
                        game = g
                        break
                if ladder:
                    kind, jobs = "ladder", [j for j, _ in ladder]
                    kinds = {j.match_id: k for j, k in ladder}
            if not jobs:
                return 0
            if contested:
                done[kind] += 1
            from botwars.league.backends import LocalBackend
            if self._backend is None:
                self._backend = LocalBackend(self.workers, keep_pool=True)
            if self._stop.is_set():
                return 0

            def done(rep: MatchReport) -> None:
                if not self._stop.is_set():  # a match cut short by the shutdown is never stored
                    self._commit(rep, kinds.get(rep.row["match_id"], kind), game)
            self._backend.run(jobs, done)
            for g in {game} | {j.game for j in jobs}:
                if g:
                    self.prune_replays(g)
            return len(jobs)

    def _commit(self, report: MatchReport, kind: str, game: str = "") -> bool:
        """Store a finished match once: a ladder or quarantine row (``kind``) is inserted
        (nothing when it exists), a queued challenge is filled in (nothing when it is no longer
        queued)."""
        row = report.row
        names = self.names()
        record = _relabel(report.record, [names.get(a, a) for a in row["agents"]]) if report.record else None
        outcome = None if row.get("outcome") is None else canonical_json(row["outcome"])
        fields = dict(agents=canonical_json(row["agents"]), seats=canonical_json(row["seats"]), status=row["status"],
                      outcome=outcome, turns=row.get("turns", 0), errors=canonical_json(row.get("errors", {})),
                      error_detail=_hide_paths(canonical_json(row.get("error_detail", [])), self.data_dir),
                      record=record, finished_at=time.time())
        with self.store.write() as s:
            old = s.get(LeagueMatchRow, row["match_id"])
            if kind == "challenge":
                if old is None or old.status != "queued":
                    return False
                for k, v in fields.items():
                    setattr(old, k, v)
                return True
            if old is not None:
                return False
            s.add(LeagueMatchRow(match_id=row["match_id"], game=game, kind=kind, seq=row["seq"],
                                 seed=row["seed"], created_at=time.time(), **fields))
        return True

    # ---- replays -------------------------------------------------------------------------
    def register_replay(self, match_id: str) -> str:
        """Register a finished league match as an ended server match (once), so the server's
        replay viewer (``/replay/{id}``) and ``GET /api/matches/{id}/record`` show it; returns
        its id. Its seats carry unusable tokens (random, never given out)."""
        r = self._match_row(match_id)
        text = self.record(match_id)
        lines = [json.loads(x) for x in text.splitlines() if x.strip()]
        header = lines[0]
        decisions = [x for x in lines[1:] if x.get("type") == "decision"]
        with self.store.write() as s:
            if s.get(MatchRow, r.match_id) is not None:
                return r.match_id
            s.add(MatchRow(id=r.match_id, ruleset=header["ruleset"], rules_version=header["rules_version"],
                           config=canonical_json(header["config"]), seed=header["seed"],
                           clock_enabled=bool(header.get("clock", True)), status="ended",
                           created_at=r.finished_at or r.created_at, decisions=len(decisions), turns=r.turns,
                           opened_at=r.finished_at or r.created_at, bank_left="{}", outcome=r.outcome))
            s.flush()
            for i, seat in enumerate(header["seats"]):
                s.add(SeatRow(match_id=r.match_id, seat=seat["seat"], idx=i, agent=str(seat["agent"])[:200],
                              token_hash=token_hash(new_token())))
            for line in decisions:
                s.add(DecisionRow(match_id=r.match_id, n=line["n"], line=canonical_json(line)))
        return r.match_id


def _name_free(s: Any, game: str, name: str) -> None:
    """Raise 409 ``name_taken`` when a bot of ``game`` (active or retired: names are never
    reused, so old matches keep naming one bot) is called ``name``."""
    status = s.scalar(select(LeagueBotRow.status).where(LeagueBotRow.game == game, LeagueBotRow.name == name))
    if status is not None:
        held = " by a retired bot (names are not reused)" if status != "active" else ""
        raise ApiError(409, "name_taken", f"name: {name!r} is taken in {game}{held}; choose another name")


def _check_source(source: str) -> None:
    size = len(source.encode("utf-8", "surrogatepass"))
    if size > MAX_SOURCE_BYTES:
        raise ApiError(422, "source_too_large", f"source: {size} bytes, over the limit of {MAX_SOURCE_BYTES}")
    if not source.strip():
        raise ApiError(422, "empty_source", "source: empty program")
    if "\x00" in source:
        line = source.count("\n", 0, source.index("\x00")) + 1
        raise ApiError(422, "nul_in_source", f"source: a NUL character on line {line} (a program is text)")


def _hide_paths(text: str, data_dir: str, own_file: str | None = None) -> str:
    """``text`` with no server path in it (issue 25): the bot's own files relative to its
    program ``own_file``, any other absolute path (the server's Python, virtual environment,
    data folder) as ``…/`` and its last part (:func:`botwars.agents.redact.hide_paths`)."""
    from botwars.agents.redact import hide_paths
    return hide_paths(text, own_file).replace(data_dir, "…")


def _relabel(record: str, names: list[str]) -> str:
    """The record with the header's agent specs (server paths) replaced by league names."""
    first, sep, rest = record.partition("\n")
    header = json.loads(first)
    for seat, name in zip(header.get("seats", []), names):
        seat["agent"] = f"league:{name}" if not name.startswith("builtin:") else name
    return canonical_json(header) + sep + rest


def _public(row: LeagueBotRow) -> dict[str, Any]:
    return {"bot": row.id, "name": row.name, "game": row.game, "kind": row.kind, "version": row.version,
            "status": row.status, "created_at": row.created_at, "updated_at": row.updated_at}


def _match_dict(r: LeagueMatchRow) -> dict[str, Any]:
    return {"match_id": r.match_id, "game": r.game, "kind": r.kind, "round": 0, "seq": r.seq, "seed": r.seed,
            "agents": json.loads(r.agents), "seats": json.loads(r.seats), "status": r.status,
            "outcome": None if r.outcome is None else json.loads(r.outcome), "turns": r.turns,
            "errors": json.loads(r.errors), "error_detail": json.loads(r.error_detail),
            "created_at": r.created_at, "finished_at": r.finished_at, "has_record": bool(r.record)}


def _public_match(m: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    bots = [a[4:].split("@", 1)[0] if a.startswith("bot:") else None for a in m["agents"]]
    return {"match": m["match_id"], "game": m["game"], "kind": m["kind"], "seq": m["seq"], "status": m["status"],
            "seats": [{"seat": s, "agent": a, "name": names.get(a, a), "bot": b}
                      for s, a, b in zip(m["seats"], m["agents"], bots)],
            "outcome": m["outcome"], "turns": m["turns"], "errors": m["errors"], "error_detail": m["error_detail"],
            "created_at": m["created_at"], "finished_at": m["finished_at"],
            "replay": f"/league/matches/{m['match_id']}/replay" if m["has_record"] else None}


# ---- HTTP ----------------------------------------------------------------------------------
class _Text(BaseModel):
    @field_validator("*", mode="before")
    @classmethod
    def _encodable(cls, v: Any) -> Any:
        if isinstance(v, str):
            try:
                v.encode("utf-8")
            except UnicodeEncodeError:
                raise ValueError("text cannot be encoded as UTF-8 (a lone surrogate)") from None
        return v


class BotUpload(_Text):
    """A new league bot: ``name`` (1-40 of ``A-Za-z0-9_.-``), ``game``, ``kind`` and the
    program text ``source`` (UTF-8, at most 128 KiB)."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(max_length=40, pattern=NAME_RE.pattern)
    game: str = Field(max_length=64)
    kind: Kind
    source: str = Field(max_length=MAX_SOURCE_BYTES)


class BotReplace(_Text):
    """A replacement program (and optionally another kind)."""

    model_config = ConfigDict(extra="forbid")
    source: str = Field(max_length=MAX_SOURCE_BYTES)
    kind: Optional[Kind] = None


class ChallengeIn(_Text):
    """An unrated match: your bot (its owner token in the header) against ``opponent``: another
    league bot's id or ``builtin:NAME``."""

    model_config = ConfigDict(extra="forbid")
    bot: str = Field(max_length=16)
    opponent: str = Field(max_length=80)


class LeagueError(BaseModel):
    error: str
    message: str


def _errs(*codes: int) -> dict[int | str, dict[str, Any]]:
    what = {403: "missing or wrong owner token", 404: "unknown bot, game or match", 409: "not possible now",
            413: "body too large", 422: "malformed request, or the bot does not work (the fault named)",
            429: "too many requests or queued challenges (the limit named)",
            503: "the sandbox is below the required isolation level, or too many uploads wait for their "
                 "check (the reason)"}
    return {c: {"model": LeagueError, "description": what[c]} for c in codes}


_bearer = HTTPBearer(auto_error=False, description="The bot's owner token")


def _owner_token(creds: Optional[HTTPAuthorizationCredentials] = Depends(_bearer),
                 token: Optional[str] = Query(None, max_length=200)) -> Optional[str]:
    if creds is not None and creds.credentials:
        return creds.credentials
    return token or None


def _env_seconds(name: str, default: float) -> float | None:
    """Seconds from the environment variable ``name`` (``default`` when unset or not a
    number; ``None`` for ``0`` or ``off``: no limit)."""
    text = os.environ.get(name, "").strip().lower()
    if text in ("0", "off", "none"):
        return None
    try:
        value = float(text) if text else default
    except ValueError:
        log.warning("%s=%r is not a number of seconds; using %g", name, text, default)
        value = default
    return value if value > 0 else None


REST_ENV = {"quarantine_matches": "BOTWARS_LEAGUE_QUARANTINE", "matches_per_hour": "BOTWARS_LEAGUE_MATCHES_PER_HOUR",
            "settled_sigma": "BOTWARS_LEAGUE_SETTLED_SIGMA", "keep_replays": "BOTWARS_LEAGUE_KEEP_REPLAYS"}
"""The environment variables that set the league's :class:`RestRules` (docs/tournaments.md)."""


def rest_rules_from_env(env: dict[str, str] | None = None) -> RestRules:
    """The league's :class:`RestRules` from :data:`REST_ENV` in ``env`` (default
    ``os.environ``): unset keeps the default; ``off`` (or ``none``) switches the rule off
    (``BOTWARS_LEAGUE_QUARANTINE=off``: 0 matches); a value the rule cannot take is logged,
    naming the variable, and the default is kept."""
    from pydantic import ValidationError
    env = os.environ if env is None else env
    values: dict[str, Any] = {}
    for field, name in REST_ENV.items():
        text = env.get(name, "").strip()
        if not text:
            continue
        value: Any = (0 if field == "quarantine_matches" else None) if text.lower() in ("off", "none") else text
        try:
            RestRules(**{field: value})
        except ValidationError as exc:
            log.warning("%s=%r is not usable (%s); using the default %s", name, text,
                        exc.errors()[0]["msg"], RestRules.model_fields[field].default)
            continue
        values[field] = value
    return RestRules(**values)


def _address(request: Request) -> str:
    """The client's address (the owner of what it queues, the key of its rate limits)."""
    return request.client.host if request.client else "unknown"


def default_data_dir(store: Store) -> str:
    """``$BOTWARS_DATA_DIR``, else ``botwars-data`` beside a SQLite database file, else in the
    working directory."""
    if os.environ.get("BOTWARS_DATA_DIR"):
        return os.environ["BOTWARS_DATA_DIR"]
    if store.url.startswith("sqlite:///") and store.url != "sqlite:///:memory:":
        return os.path.join(os.path.dirname(os.path.abspath(store.url[len("sqlite:///"):])), "botwars-data")
    return os.path.abspath("botwars-data")


def install_league(app: FastAPI, manager: MatchManager, store: Store) -> League:
    """Mount the league's API on ``app`` and return the :class:`League` (``app.state.league``);
    the app's lifespan calls its ``start``/``stop``. Workers: ``BOTWARS_LEAGUE_WORKERS``
    (default 1); a bot's time budget per match and the longest match, in seconds:
    ``BOTWARS_LEAGUE_BUDGET_S`` (default :data:`BOT_BUDGET_S`) and ``BOTWARS_LEAGUE_MAX_MATCH_S``
    (default :data:`MAX_MATCH_S`; ``0`` or ``off``: none); the quarantine and rest rules:
    :func:`rest_rules_from_env`."""
    try:
        workers = int(os.environ.get("BOTWARS_LEAGUE_WORKERS", "1"))
    except ValueError:
        workers = 1
    league = League(store, default_data_dir(store), workers=workers, bot_pool=manager.bot_pool,
                    budget_s=_env_seconds("BOTWARS_LEAGUE_BUDGET_S", BOT_BUDGET_S),
                    max_match_s=_env_seconds("BOTWARS_LEAGUE_MAX_MATCH_S", MAX_MATCH_S),
                    **rest_rules_from_env().model_dump())
    league.leader = manager._leads
    app.state.league = league
    r = APIRouter(prefix="/api/league", tags=["league"])

    @r.post("/bots", status_code=201, responses=_errs(409, 413, 422, 429, 503))
    async def upload(body: BotUpload, request: Request) -> dict[str, Any]:
        """Upload a bot; answers its id and owner token (shown once: keep it). 503 when this
        server's sandbox is below the required isolation level; 429 past the uploads one
        address may send (5 a minute, 30 an hour)."""
        league.gate.admit(_address(request))
        info, token = await league.upload(body.name, body.game, body.kind, body.source)
        return {**info, "token": token, "page": f"/league/bots/{info['bot']}"}

    @r.get("/bots", responses=_errs(422))
    def list_bots(game: Optional[str] = Query(None, max_length=64)) -> list[dict[str, Any]]:
        """Active bots (of ``game``)."""
        return league.bots(game)

    @r.get("/bots/{bot_id}", responses=_errs(404, 422))
    def get_bot(bot_id: str) -> dict[str, Any]:
        """A bot's public facts and its matches."""
        return {**league.bot(bot_id), "matches": league.bot_matches(bot_id)}

    @r.get("/bots/{bot_id}/source", responses=_errs(403, 404, 422))
    def get_source(bot_id: str, token: Optional[str] = Depends(_owner_token)) -> dict[str, Any]:
        """The bot's program (owner token only)."""
        return league.source(bot_id, token)

    @r.put("/bots/{bot_id}", responses=_errs(403, 404, 409, 413, 422, 429, 503))
    async def put_bot(bot_id: str, body: BotReplace, request: Request,
                      token: Optional[str] = Depends(_owner_token)) -> dict[str, Any]:
        """Replace the program (owner token): a new version, rated afresh (counted with the
        uploads for the address's rate limit)."""
        league.gate.admit(_address(request))
        return await league.replace(bot_id, token, body.source, body.kind)

    @r.delete("/bots/{bot_id}", responses=_errs(403, 404, 409, 422))
    def delete_bot(bot_id: str, token: Optional[str] = Depends(_owner_token)) -> dict[str, Any]:
        """Retire the bot (owner token); 409 when it is retired already."""
        return league.retire(bot_id, token)

    @r.get("/ladder/{game}", responses=_errs(404, 422))
    def ladder(game: str) -> list[dict[str, Any]]:
        """The game's ladder (ratings recomputed from the stored results)."""
        return league.ladder(game)

    @r.post("/challenges", status_code=202, responses=_errs(403, 404, 409, 413, 422, 429, 503))
    def challenge(body: ChallengeIn, request: Request,
                  token: Optional[str] = Depends(_owner_token)) -> dict[str, Any]:
        """Queue an unrated match of your bot against ``opponent``; answers its id. 429 when the
        bot (5 it challenged) or you (20, all your bots) have the most challenges waiting."""
        return league.challenge(body.bot, token, body.opponent, owner=_address(request))

    @r.get("/matches/{match_id}", responses=_errs(404, 422))
    def get_match(match_id: str) -> dict[str, Any]:
        """A league match (``queued``, ``ok`` or ``failed``) with its replay link once played."""
        return league.match(match_id)

    @r.get("/matches/{match_id}/record", response_class=Response, responses={**_errs(404, 409, 422), 200: {"content": {"application/x-ndjson": {}}, "description": "JSON Lines record"}})
    def get_record(match_id: str) -> Response:
        """The played match's JSON Lines record (``botwars replay --verify`` reads it)."""
        return Response(league.record(match_id), media_type="application/x-ndjson")

    app.include_router(r)
    return league
