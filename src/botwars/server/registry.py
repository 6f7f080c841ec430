"""The match registry (part of :class:`~botwars.server.manager.MatchManager`): creating a match,
finding it (loaded on demand), its seats' tokens, the list of matches and seat names.
"""

from __future__ import annotations

import hmac
import json
import pickle
import secrets
from typing import Any

from sqlalchemy import select

from botwars.engine.errors import BotwarsError, ConfigError
from botwars.engine.plugin import get_game
from botwars.engine.referee import Referee
from botwars.engine.ruleset import canonical_json, get_ruleset
from botwars.server import rulespool
from botwars.render.palette import seat_colours
from botwars.server.cluster import match_lease
from botwars.server.session import ApiError, GM_KEY, MatchSession, _MATCH_ID, new_token, shown_turn, token_hash
from botwars.store.models import MatchRow, SeatRow


class MatchRegistry:
    """The match registry: matches by id, their seats and tokens (mixed into
    :class:`~botwars.server.manager.MatchManager`).
    """

    def create(self, game: str, seats: list[str] | None, config: dict[str, Any] | None, seed: int,
               clock: bool = True, names: list[str | None] | None = None,
               preset_s: float | None = None) -> tuple[MatchSession, dict[str, str]]:
        """Create a match; returns the session and the token of each seat, plus the game
        master's token under the key ``""`` (:data:`GM_KEY`; shown once, stored hashed).

        ``seats``: one spec per seat, ``remote`` (a player over the API) or ``builtin:NAME``
        (played by the server); ``None`` = ``remote`` for the rule set's minimum seat count.
        ``names``: display names in seat order (already checked by
        :func:`~botwars.server.names.clean_name`; ``None`` entries: no name yet). ``preset_s``:
        seconds per turn of a clock preset, turned into parameters by
        :meth:`Ruleset.clock_settings` (parameters in ``config`` win).
        Raises :class:`ApiError` 422 naming the bad game, seat spec, seat count, name list or
        parameter.
        """
        try:
            rs = get_ruleset(game)
            bots = get_game(game).builtin_bots()
        except BotwarsError as exc:
            raise ApiError(422, "unknown_game", str(exc)) from None
        specs = list(seats) if seats is not None else ["remote"] * rs.min_seats
        if not rs.min_seats <= len(specs) <= rs.max_seats:
            want = str(rs.min_seats) if rs.min_seats == rs.max_seats else f"{rs.min_seats} to {rs.max_seats}"
            raise ApiError(422, "bad_seats", f"{game} needs {want} seats, got {len(specs)}")
        for spec in specs:
            if spec == "remote":
                continue
            if spec.startswith("builtin:") and spec[len("builtin:"):] in bots:
                continue
            # bot options (builtin:NAME(KEY=VALUE), the command line's) are not offered here: a
            # client could otherwise buy server CPU time with a search bot's budget
            raise ApiError(422, "bad_seats", f"seat {spec!r}: use remote or builtin:NAME, without options "
                                             f"(built-in bots of {game}: {', '.join(sorted(bots)) or 'none'})")
        if names is not None and len(names) != len(specs):
            raise ApiError(422, "bad_seats", f"names: {len(names)} names for {len(specs)} seats (give one per "
                                             f"seat, null for a seat without a name)")
        display = names or []
        if preset_s is not None:
            config = {**rs.clock_settings(preset_s), **(config or {})}
        try:
            cfg = rs.validate_config(config or {}, source="config")
            names = rs.seat_names(len(specs))
            ref = Referee(rs, cfg, names, seed, clock=clock, agents=dict(zip(names, specs)), keep_free_refusals=False)
        except ConfigError as exc:
            raise ApiError(422, "bad_config", exc.one_line()) from None
        tokens = {s: new_token() for s in names}
        gm_token = new_token()
        now = self.now()
        sess = MatchSession(id=secrets.token_hex(6), rs=rs, ref=ref,
                            token_hashes={s: token_hash(t) for s, t in tokens.items()}, created_at=now, opened_at=now,
                            heavy=rulespool.big_config(cfg), gm_hash=token_hash(gm_token),
                            names={s: n for s, n in zip(names, display) if n})
        self._make_bots(sess)
        sess.open_cp = ref.checkpoint()
        with self.store.write() as s:
            s.add(MatchRow(id=sess.id, ruleset=rs.id, rules_version=rs.rules_version, config=canonical_json(cfg),
                           seed=seed, clock_enabled=sess.clock_enabled, status=sess.status, created_at=now,
                           decisions=0, turns=ref.turn(), opened_at=now,
                           bank_left=canonical_json(sess.bank_left),
                           outcome=canonical_json(sess.outcome.to_json()) if sess.outcome else None,
                           gm_token_hash=sess.gm_hash))
            s.flush()
            for i, name in enumerate(names):
                s.add(SeatRow(match_id=sess.id, seat=name, idx=i, agent=specs[i], token_hash=sess.token_hashes[name],
                              name=sess.names.get(name)))
        if sess.bots and self.leases is not None:  # this worker plays its bots (issue 27)
            self.leases.claim(match_lease(sess.id))
        for seat, agent in sess.bots.items():  # as started: a restart before its first answer restores this
            self._save_memory(sess, seat, 0, pickle.dumps(agent, protocol=pickle.HIGHEST_PROTOCOL))
        with self._lock:
            self.sessions[sess.id] = sess
        if sess.heavy:
            with sess.lock:
                self._adopt(sess)
        self._after_change(sess)
        return sess, {**tokens, GM_KEY: gm_token}

    def get(self, match_id: str) -> MatchSession:
        """The session of a match (finished matches are loaded on demand); 404 if unknown
        (anything but 1-32 letters, digits, ``-`` or ``_`` is unknown without a look-up)."""
        sess = self.sessions.get(match_id)
        if sess is not None:
            if self.leases is not None:  # another worker may have changed it (issue 27)
                with sess.lock:
                    self._sync(sess)
            return sess
        if not isinstance(match_id, str) or not _MATCH_ID.fullmatch(match_id):
            # not echoed: it may be a pasted token; and no other text (a NUL character, which
            # PostgreSQL text cannot hold) reaches a database look-up
            raise ApiError(404, "unknown_match", "no match with that id (match ids are 12 characters)")
        with self._lock:
            sess = self.sessions.get(match_id)
            if sess is None:
                sess = self._load(match_id)
                self.sessions[match_id] = sess
        return sess

    def _session(self, match_id: str) -> MatchSession:
        """The cached session of ``match_id`` as it is, else :meth:`get`: for actions that run
        in :meth:`_locked`, which brings the cache up to the database under the match's lock
        anyway (one version read an order fewer with several workers, issue 27)."""
        sess = self.sessions.get(match_id)
        return sess if sess is not None else self.get(match_id)

    def authenticate(self, sess: MatchSession, token: str | None) -> str:
        """The seat ``token`` belongs to; 403 if missing or wrong (compared in constant time)."""
        if not token:
            raise ApiError(403, "token_required", "a seat token is required (Authorization: Bearer TOKEN "
                                                  "or ?token=TOKEN)")
        h = token_hash(token)
        found = None
        for seat in sess.seats:
            if hmac.compare_digest(h, sess.token_hashes[seat]):
                found = seat
        if found is None:
            raise ApiError(403, "bad_token", "this token is not a seat of this match")
        sess.last_seen[found] = self.now()
        return found

    def find_seat(self, token: str | None) -> tuple[MatchSession, str]:
        """The match and seat of a token (for clients that only hold a token); 403 if unknown."""
        if not token:
            raise ApiError(403, "token_required", "a seat token is required")
        with self.store.read() as s:
            row = s.scalar(select(SeatRow).where(SeatRow.token_hash == token_hash(token)))
        if row is None:
            raise ApiError(403, "bad_token", "this token is not a seat of any match")
        sess = self.get(row.match_id)
        return sess, self.authenticate(sess, token)

    def list(self, status: str | None = None, limit: int = 100, offset: int = 0) -> list[dict[str, Any]]:
        """Public summaries of matches, newest first."""
        with self.store.read() as s:
            q = select(MatchRow).order_by(MatchRow.created_at.desc(), MatchRow.id).limit(limit).offset(offset)
            if status:
                q = q.where(MatchRow.status == status)
            rows = list(s.scalars(q))
            seat_rows = list(s.scalars(select(SeatRow).where(SeatRow.match_id.in_([r.id for r in rows]))
                                       .order_by(SeatRow.match_id, SeatRow.idx))) if rows else []
        by_match: dict[str, list[dict[str, Any]]] = {}
        for sr in seat_rows:
            by_match.setdefault(sr.match_id, []).append({"seat": sr.seat, "agent": sr.agent, "name": sr.name})
        for seats in by_match.values():  # each seat's colour, as pages name it ("Red", not "p1")
            colours = seat_colours([d["seat"] for d in seats])
            for d in seats:
                d["colour"] = colours[d["seat"]].name
        return [{"match": r.id, "game": r.ruleset, "status": r.status, "decisions": r.decisions,
                 "turn": shown_turn(r.turns, r.status == "ended"),
                 "created_at": r.created_at, "seats": by_match.get(r.id, []),
                 "outcome": json.loads(r.outcome) if r.outcome else None} for r in rows]

    def set_name(self, sess: MatchSession, seat: str, name: str) -> dict[str, Any]:
        """Give ``seat`` the display name ``name`` (already checked by
        :func:`~botwars.server.names.clean_name`), once: :class:`ApiError` 409 ``name_set`` when
        the seat already has one (the stored name is unchanged). Stored before it is shown."""
        def name_it() -> None:
            if seat in sess.names:
                raise ApiError(409, "name_set", f"seat {seat} is already named {sess.names[seat]!r}; a name is "
                                                f"set once")
            with self.store.write() as s:
                version = self._bump(s, sess)
                row = s.get(SeatRow, (sess.id, seat))
                if row is not None:
                    row.name = name
            sess.version = version
            sess.names[seat] = name
        self._locked(sess, name_it)
        self.notify(sess.id)
        return {"match": sess.id, "seat": seat, "name": name}
