"""The game master's seat (issue 24 item 1): what a match's GM may do, over the API.

Every match has a game master: :meth:`MatchManager.create` returns a GM token once (stored as
its SHA-256, as seat tokens are), and ``POST /api/matches/{id}/gm/ACTION`` with
``Authorization: Bearer GM_TOKEN`` (or ``?token=``) does one action; any other token, a seat's
included, is a 403. The actions:

- ``pause`` / ``resume`` (with a reason, as ``adjudicate``, ``end`` and ``abort``): every clock stands still while paused; on resume the open decision
  point's opening moves by the pause, so every deadline moves by it. Orders are still accepted
  while paused (nobody is charged time).
- ``extend``: add seconds to the current deadline of one seat or of every awaited seat (the
  time is not charged to the seat's bank).
- ``replace``: the seat goes to a player with a fresh token (the old one stops working), or to
  a built-in bot (``builtin:NAME``), or back to its player (``remote``).
- ``adjudicate``: set a seat's orders for the open decision point (they pass the same rules
  check as a player's, :meth:`Referee.adjudicate`) or cancel them (the seat is awaited again),
  with a reason.
- ``end`` (a winner or a draw) and ``abort`` (no result), with a reason
  (:meth:`Referee.end`).

Each action is stored (``gm_actions``) in the same transaction as what it changes, shown to the
players in plain words (the snapshot's ``notes``), and written into the match's record as a
``gm`` line; what changes the game (adjudicated orders, the end) is in the decision lines, so
``botwars replay --verify`` re-simulates through it. A refused action (a finished match, orders
the rules refuse, an unknown bot, a pause twice, a resume when not paused) is a 4xx whose
message names the problem, and changes nothing.
"""

from __future__ import annotations

import copy
import hmac
import pickle
from typing import Any, Literal, Optional

from fastapi import APIRouter, Depends, Query, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy import delete, update
from pydantic import BaseModel, ConfigDict, Field, StrictFloat, StrictInt, field_validator

from botwars.engine.errors import InvalidOrders
from botwars.engine.plugin import get_game
from botwars.engine.referee import NotAwaited
from botwars.engine.ruleset import canonical_json
from botwars.render.palette import seat_colours
from botwars.server.cluster import match_lease
from botwars.server.deps import ManagerDep
from botwars.server.manager import ApiError, MatchManager, MatchSession, GM_REQUEST, new_token, note_text, token_hash
from botwars.store.models import BotMemoryRow, GmActionRow, MatchRow, SeatRow

MAX_REASON = 500
"""Longest reason a game master may give, in characters."""

MAX_EXTEND_S = 30 * 86400
"""Most seconds one extension may add (30 days)."""

_bearer = HTTPBearer(auto_error=False, description="The game master's token")


def gm_token(creds: Optional[HTTPAuthorizationCredentials] = Depends(_bearer),
             token: Optional[str] = Query(None, max_length=200, description="The GM token (instead of the header)")
             ) -> Optional[str]:
    """The token of the request: ``Authorization: Bearer`` or ``?token=``."""
    if creds is not None and creds.credentials:
        return creds.credentials
    return token or None


def authenticate_gm(sess: MatchSession, token: Optional[str]) -> None:
    """Raises :class:`ApiError` 403 unless ``token`` is ``sess``'s game-master token (compared
    in constant time; a seat's token is refused)."""
    if not token:
        raise ApiError(403, "token_required", "the game master's token is required (Authorization: Bearer TOKEN)")
    if sess.gm_hash is None or not hmac.compare_digest(token_hash(token), sess.gm_hash):
        raise ApiError(403, "not_game_master", "this token is not the game master's of this match")


def game_master(manager: ManagerDep, match_id: str, token: Optional[str] = Depends(gm_token)) -> MatchSession:
    """FastAPI dependency: the match, once the request's token is its game master's (403
    otherwise, 404 for an unknown match)."""
    sess = manager.get(match_id)
    authenticate_gm(sess, token)
    return sess


# ---- bodies ----------------------------------------------------------------------------------
class _GmBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reason: str = Field("", max_length=MAX_REASON, description="Why (shown to every player)")

    @field_validator("reason")
    @classmethod
    def _plain(cls, v: str) -> str:
        v = " ".join(v.split())
        try:
            v.encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError("the reason cannot be encoded as UTF-8 (a lone surrogate)") from None
        return v


class _Reasoned(_GmBody):
    """A GM action that needs a reason: empty or blank is refused (422 with a sentence)."""

    reason: str = Field("", max_length=MAX_REASON, validate_default=True,
                        description="Why (required; shown to every player)")

    @field_validator("reason")
    @classmethod
    def _needed(cls, v: str) -> str:
        v = " ".join(v.split())
        if not v:
            raise ValueError("give a reason for this action (it is shown to every player)")
        return v


class PauseIn(_Reasoned):
    """Pause or resume the match (issue 24: a reason is required, e.g. "holiday")."""


class ExtendIn(_GmBody):
    """Add ``seconds`` to the current deadline of ``seat`` (``None``: every awaited seat)."""

    seconds: StrictInt | StrictFloat = Field(gt=0, le=MAX_EXTEND_S)
    seat: Optional[str] = Field(None, max_length=64)


class ReplaceIn(_GmBody):
    """Who plays ``seat`` from now: ``remote`` (a player; ``new_token``: with a fresh link, the
    old one void) or ``builtin:NAME`` (a built-in bot of the game)."""

    seat: str = Field(max_length=64)
    to: str = Field("remote", max_length=80)
    new_token: bool = False


class AdjudicateIn(_Reasoned):
    """Set ``seat``'s orders for the open decision point to ``orders``, or ``cancel`` them."""

    seat: str = Field(max_length=64)
    orders: Any = None
    cancel: bool = False


class EndIn(_Reasoned):
    """End the match: ``winner`` a seat, ``None`` a draw."""

    winner: Optional[str] = Field(None, max_length=64)


class AbortIn(_Reasoned):
    """Abort the match (no result)."""


class GmSeat(BaseModel):
    seat: str
    name: Optional[str] = Field(None, description="the seat's display name; None before it has one")
    colour: str = Field(description="the seat's colour word as the pages draw it, e.g. 'Red' (render/palette.py)")
    agent: str
    awaited: bool
    submitted: bool
    time_left_s: Optional[float]
    extended_s: float
    last_seen: Optional[float]
    adjudicated: Optional[str]


class GmView(BaseModel):
    match: str
    game: str
    status: Literal["running", "ended"]
    decision: int
    turn: int = Field(description="turns played so far (the page says turn + 1 while the match runs)")
    setup: bool = Field(False, description="the open decision point is the game's setup (placing fleets, "
                                           "choosing supers), which the page names 'Setup', not a turn")
    paused: bool
    paused_at: Optional[float]
    clock: dict[str, Any]
    seats: list[GmSeat]
    bots: list[str]
    notes: list[dict[str, Any]]
    outcome: Optional[dict[str, Any]]


class GmDone(BaseModel):
    match: str
    action: str
    text: str
    token: Optional[str] = Field(None, description="replace with new_token: the seat's new token (shown once)")
    url: Optional[str] = None


# ---- the actions -------------------------------------------------------------------------------
def _running(sess: MatchSession) -> None:
    if sess.ended:
        raise ApiError(409, "match_ended", f"match {sess.id} has ended; the game master can change nothing now")


def _seat(sess: MatchSession, seat: Optional[str]) -> str:
    if seat not in sess.seats:
        raise ApiError(422, "unknown_seat", f"seat: no seat {seat!r} in this match (seats: {', '.join(sess.seats)})")
    return seat  # type: ignore[return-value]


def _note(sess: MatchSession, now: float, action: str, seat: Optional[str], reason: str,
          **detail: Any) -> dict[str, Any]:
    return {"n": sess.ref.n + 1, "at": now, "action": action, "seat": seat, "reason": reason,
            "detail": canonical_json(detail)}


class GameMaster:
    """The game master's actions on the matches of one :class:`MatchManager`. Each runs under
    the match's lock, commits what it changes with its note in one transaction (nothing changes
    when the commit fails or the action is refused), then tells the players (the manager's
    ``notify`` hook) and lets built-in bots play."""

    def __init__(self, manager: MatchManager):
        self.m = manager

    def _done(self, sess: MatchSession, note: dict[str, Any], **extra: Any) -> dict[str, Any]:
        self.m._after_change(sess)
        return {"match": sess.id, "action": note["action"], "text": note_text(note, sess.seats, sess.names), **extra}

    def _store(self, sess: MatchSession, note: dict[str, Any], **match_values: Any) -> None:
        """Commit ``note`` (and ``match_values`` on the match row) in one transaction; the
        referee is not involved."""
        with self.m.store.write() as s:
            version = self.m._bump(s, sess)  # another worker's change of the match first: retried (issue 27)
            if match_values:
                s.execute(update(MatchRow).where(MatchRow.id == sess.id).values(**match_values))
            s.add(GmActionRow(match_id=sess.id, **note))
        sess.version = version
        sess.notes.append(note)

    def view(self, sess: MatchSession) -> dict[str, Any]:
        """What the GM page shows: every seat (its display name or ``None``, its colour word as
        the pages draw it (render/palette.py), awaited, submitted, time left, extension, last
        seen, GM-set orders), the pause, the notes, the game's bots."""
        m = self.m
        with sess.lock:
            ref = sess.ref
            clock = m._clock_json(sess)
            pend = ref.pending()
            colours = seat_colours(sess.seats)
            public = ref.view(None) if not sess.ended else {}
            setup = public.get("phase") == "setup" or public.get("setup") is True
            seats = [{"seat": s, "name": sess.names.get(s), "colour": colours[s].name, "agent": sess.agents[s],
                      "awaited": s in ref.awaited(),
                      "submitted": s in pend and ref.settled(s) is not None,
                      "time_left_s": clock["time_left_s"].get(s), "extended_s": sess.extra.get(s, 0.0),
                      "last_seen": sess.last_seen.get(s), "adjudicated": ref._gm.get(s)} for s in sess.seats]
            return {"match": sess.id, "game": sess.rs.id, "status": sess.status, "decision": ref.decision,
                    "turn": ref.turn(), "setup": setup, "paused": sess.paused_at is not None, "paused_at": sess.paused_at,
                    "clock": clock, "seats": seats, "bots": sorted(get_game(sess.rs.id).builtin_bots()),
                    "notes": [{**x, "text": note_text(x, sess.seats, sess.names)} for x in sess.notes],
                    "outcome": sess.outcome.to_json() if sess.outcome else None}

    def pause(self, sess: MatchSession, reason: str) -> dict[str, Any]:
        """Stop every clock. 409 when the match has ended or is already paused."""
        def pause() -> dict[str, Any]:
            _running(sess)
            if sess.paused_at is not None:
                raise ApiError(409, "already_paused", "the match is already paused; resume it first")
            now = self.m.now()
            note = _note(sess, now, "pause", None, reason)
            self._store(sess, note, paused_at=now)
            sess.paused_at = now
            return note
        return self._done(sess, self.m._locked(sess, pause))

    def resume(self, sess: MatchSession, reason: str) -> dict[str, Any]:
        """Start the clocks again; the open point's opening (so every deadline) moves by the
        pause. 409 when the match has ended or is not paused."""
        def resume() -> dict[str, Any]:
            _running(sess)
            if sess.paused_at is None:
                raise ApiError(409, "not_paused", "the match is not paused; there is nothing to resume")
            now = self.m.now()
            paused = max(0.0, now - sess.paused_at)
            note = _note(sess, now, "resume", None, reason, paused_s=round(paused, 3))
            opened = sess.opened_at + paused
            self._store(sess, note, paused_at=None, opened_at=opened)
            sess.paused_at = None
            sess.opened_at = opened
            return note
        return self._done(sess, self.m._locked(sess, resume))

    def extend(self, sess: MatchSession, seconds: float, seat: Optional[str], reason: str) -> dict[str, Any]:
        """Add ``seconds`` to the current deadline of ``seat`` (``None``: every awaited seat).
        409 when the match has ended or the seat is not awaited now; 422 an unknown seat."""
        def extend() -> dict[str, Any]:
            _running(sess)
            awaited = sess.awaited()
            if seat is not None:
                _seat(sess, seat)
                if seat not in awaited:
                    raise ApiError(409, "not_awaited", f"seat {seat} is not awaited at this decision point; "
                                                       "there is no deadline of its to extend")
                targets = [seat]
            else:
                if not awaited:
                    raise ApiError(409, "not_awaited", "no seat is awaited at this decision point")
                targets = awaited
            if not sess.clock_enabled:
                raise ApiError(409, "no_clock", "this match has no clock; there is no deadline to extend")
            now = self.m.now()
            extra = dict(sess.extra)
            for s in targets:
                extra[s] = extra.get(s, 0.0) + float(seconds)
            note = _note(sess, now, "extend", seat, reason, seconds=float(seconds), seats=targets)
            self._store(sess, note, extensions=canonical_json(extra))
            sess.extra = extra
            return note
        return self._done(sess, self.m._locked(sess, extend, point=True))

    def replace(self, sess: MatchSession, seat: str, to: str, fresh: bool, reason: str,
                base_url: str) -> dict[str, Any]:
        """Give ``seat`` to a player (``remote``; ``fresh``: with a new token, the old one void)
        or to a built-in bot (``builtin:NAME``). 409 when ended; 422 an unknown seat or bot."""
        m = self.m
        bots = get_game(sess.rs.id).builtin_bots()

        def replace() -> tuple[dict[str, Any], str | None]:
            _running(sess)
            _seat(sess, seat)
            if to == "remote":
                agent = "remote"
            elif to.startswith("builtin:") and to[len("builtin:"):] in bots:
                agent = to
                if fresh:
                    raise ApiError(422, "bad_replace", "new_token: only a seat given to a player gets a new link")
            else:
                raise ApiError(422, "unknown_bot", f"to: {to!r} is no built-in bot of {sess.rs.id} (use remote or "
                                                   f"builtin:NAME with NAME one of {', '.join(sorted(bots)) or 'none'})")
            if agent == sess.agents[seat] and not fresh:
                raise ApiError(409, "no_change", f"seat {seat} is already played by "
                                                 f"{'its player' if agent == 'remote' else agent}")
            return self._hand_over(sess, seat, agent, fresh, reason)
        note, token = m._locked(sess, replace)
        if token is None and to != "remote" and m.leases is not None:  # this worker plays the bot (issue 27)
            m.leases.claim(match_lease(sess.id))
        extra: dict[str, Any] = {}
        if token is not None:
            extra = {"token": token, "url": f"{base_url}/play/{sess.id}?token={token}"}
        return self._done(sess, note, **extra)

    def _hand_over(self, sess: MatchSession, seat: str, agent: str, fresh: bool,
                   reason: str) -> tuple[dict[str, Any], str | None]:
        """Store and make ``seat``'s new agent (under the match's lock); returns the note and
        the seat's new token (``fresh``) or ``None``. 409 when the bot cannot start."""
        from botwars.agents.base import AgentFailure, CallableAgent
        m = self.m
        bots = get_game(sess.rs.id).builtin_bots()
        now = m.now()
        token = new_token() if fresh else None
        note = _note(sess, now, "replace", seat, reason, to=agent, new_token=fresh)
        values: dict[str, Any] = {"agent": agent}
        if token is not None:
            values["token_hash"] = token_hash(token)
        bot = None
        if agent != "remote":
            bot = CallableAgent(bots[agent[len("builtin:"):]](), agent)
            try:
                bot.start(sess.rs.id, seat, copy.deepcopy(sess.config), sess.rs.agent_seed(sess.seed, seat))
            except AgentFailure as exc:
                raise ApiError(409, "bot_failed", f"the bot {agent} could not start: {exc}") from None
        with m.store.write() as s:
            version = m._bump(s, sess)
            s.execute(update(SeatRow).where(SeatRow.match_id == sess.id, SeatRow.seat == seat).values(**values))
            s.execute(delete(BotMemoryRow).where(BotMemoryRow.match_id == sess.id, BotMemoryRow.seat == seat))
            if bot is not None:
                s.add(BotMemoryRow(match_id=sess.id, seat=seat, decision=sess.ref.n,
                                   state=pickle.dumps(bot, protocol=pickle.HIGHEST_PROTOCOL)))
            s.add(GmActionRow(match_id=sess.id, **note))
        sess.version = version
        sess.notes.append(note)
        sess.ref.agents[seat] = agent
        if token is not None:
            sess.token_hashes[seat] = token_hash(token)
        if bot is not None:
            sess.bots[seat] = bot
        else:
            sess.bots.pop(seat, None)
        return note, token

    def adjudicate(self, sess: MatchSession, seat: str, orders: Any, cancel: bool, reason: str) -> dict[str, Any]:
        """Set (or ``cancel``) ``seat``'s orders for the open decision point, with ``reason``.
        The orders pass the rules' check (422 naming the refusal; nothing changes); 409 when
        ended or the seat has no orders to give now; 422 an unknown seat."""
        m = self.m

        def adjudicate() -> dict[str, Any]:
            _running(sess)
            _seat(sess, seat)
            ref = sess.ref
            now = m.now()
            n = ref.n + 1
            cp = ref.checkpoint()
            had = ref.settled(seat) is not None
            try:
                if cancel:
                    if not ref.cancel(seat):
                        raise ApiError(409, "nothing_to_cancel", f"seat {seat} has no orders to cancel at this "
                                                                 "decision point")
                    note = _note(sess, now, "cancel", seat, reason)
                    rows: list[dict[str, Any]] = []
                else:
                    if orders is None:
                        raise ApiError(422, "invalid_request", "orders: give the seat's orders (or cancel: true)")
                    ref.adjudicate(seat, orders, reason)
                    note = _note(sess, now, "adjudicate", seat, reason)
                    st = ref.settled(seat)
                    assert st is not None
                    rows = [{"match_id": sess.id, "n": n, "seat": seat, "payload": canonical_json(st.payload),
                             "errors": canonical_json(st.errors), "time_used": 0.0, "clock_status": "",
                             "received_at": now, "request_key": canonical_json([GM_REQUEST, reason])}]
            except NotAwaited as exc:
                ref.rollback(cp)
                raise ApiError(409, exc.code, str(exc)) from None
            except InvalidOrders as exc:
                ref.rollback(cp)
                raise ApiError(422, "invalid_orders", f"the rules refuse these orders for seat {seat}: {exc.message}",
                               rule_code=exc.code) from None
            except ApiError:
                ref.rollback(cp)
                raise
            try:
                m._resolve_ready(sess)
            except BaseException:
                ref.rollback(cp)
                raise
            m._commit(sess, cp, now=now, orders=rows, notes=[note], replace=[(n, seat)] if had else [])
            if not cancel and ref.n + 1 == n:
                sess.keys[seat] = canonical_json([GM_REQUEST, reason])
            elif cancel:
                sess.keys.pop(seat, None)
            return note
        return self._done(sess, m._locked(sess, adjudicate, point=True))

    def end(self, sess: MatchSession, winner: Optional[str], reason: str, abort: bool) -> dict[str, Any]:
        """End the match with ``winner`` (``None``: a draw), or ``abort`` it. 409 when ended;
        422 a winner that is no seat."""
        m = self.m

        def end() -> dict[str, Any]:
            _running(sess)
            if winner is not None:
                _seat(sess, winner)
            now = m.now()
            note = _note(sess, now, "abort" if abort else "end", None, reason, winner=winner)
            cp = sess.ref.checkpoint()
            try:
                sess.ref.end(winner, reason, abort)
            except NotAwaited as exc:
                raise ApiError(409, exc.code, str(exc)) from None
            m._commit(sess, cp, now=now, notes=[note])
            return note
        return self._done(sess, m._locked(sess, end))


# ---- the API ---------------------------------------------------------------------------------
router = APIRouter(prefix="/api/matches/{match_id}/gm", tags=["game master"])
_ERR = {403: {"description": "not the game master's token"}, 404: {"description": "unknown match"},
        409: {"description": "not possible now (the message says why)"},
        422: {"description": "a bad seat, bot, orders or body (the message names it)"}}


def _gm(request: Request) -> GameMaster:
    app = request.app
    gm = getattr(app.state, "game_master", None)
    if gm is None:
        gm = app.state.game_master = GameMaster(app.state.manager)
    return gm


@router.get("", response_model=GmView, responses=_ERR)
def gm_view(request: Request, sess: MatchSession = Depends(game_master)) -> dict[str, Any]:
    """The game master's view: every seat (awaited, submitted, time left, last seen), the
    pause, and the match's GM actions and missed deadlines in words."""
    return _gm(request).view(sess)


@router.get("/seat/{seat}", responses=_ERR)
def gm_seat_view(manager: ManagerDep, seat: str, sess: MatchSession = Depends(game_master)) -> dict[str, Any]:
    """What ``seat`` itself sees now (its snapshot, its own orders of the open point
    included): the game master sets a seat's orders with that seat's own controls. 422 for no
    such seat."""
    return manager.snapshot(sess, _seat(sess, seat))


@router.post("/pause", response_model=GmDone, responses=_ERR)
def gm_pause(request: Request, body: PauseIn, sess: MatchSession = Depends(game_master)) -> dict[str, Any]:
    """Stop every clock (orders are still accepted; nobody is charged time)."""
    return _gm(request).pause(sess, body.reason)


@router.post("/resume", response_model=GmDone, responses=_ERR)
def gm_resume(request: Request, body: PauseIn, sess: MatchSession = Depends(game_master)) -> dict[str, Any]:
    """Start the clocks again; every deadline moves by the pause."""
    return _gm(request).resume(sess, body.reason)


@router.post("/extend", response_model=GmDone, responses=_ERR)
def gm_extend(request: Request, body: ExtendIn, sess: MatchSession = Depends(game_master)) -> dict[str, Any]:
    """Add seconds to the current deadline of one seat (``seat``) or of every awaited seat."""
    return _gm(request).extend(sess, float(body.seconds), body.seat, body.reason)


@router.post("/replace", response_model=GmDone, responses=_ERR)
def gm_replace(request: Request, body: ReplaceIn, sess: MatchSession = Depends(game_master)) -> dict[str, Any]:
    """Give a seat to a player (``remote``, with ``new_token`` a fresh link and the old one
    void) or to a built-in bot (``builtin:NAME``)."""
    return _gm(request).replace(sess, body.seat, body.to, body.new_token, body.reason,
                                str(request.base_url).rstrip("/"))


@router.post("/adjudicate", response_model=GmDone, responses=_ERR)
def gm_adjudicate(request: Request, body: AdjudicateIn, sess: MatchSession = Depends(game_master)) -> dict[str, Any]:
    """Set a seat's orders for the open decision point (checked by the rules as a player's),
    or cancel them, with a reason."""
    return _gm(request).adjudicate(sess, body.seat, body.orders, body.cancel, body.reason)


@router.post("/end", response_model=GmDone, responses=_ERR)
def gm_end(request: Request, body: EndIn, sess: MatchSession = Depends(game_master)) -> dict[str, Any]:
    """End the match now: ``winner`` a seat (or null for a draw), with a reason."""
    return _gm(request).end(sess, body.winner, body.reason, abort=False)


@router.post("/abort", response_model=GmDone, responses=_ERR)
def gm_abort(request: Request, body: AbortIn, sess: MatchSession = Depends(game_master)) -> dict[str, Any]:
    """Abort the match: no result, with a reason."""
    return _gm(request).end(sess, None, body.reason, abort=True)
