"""Persistence (part of :class:`~botwars.server.manager.MatchManager`): committing what the referee
did (order, refusal and decision rows, in one transaction, rolled back in memory on failure),
loading a match by re-simulating its record lines through the seat driver, and the built-in
bots' stored memory.
"""

from __future__ import annotations

import json
import logging
import pickle
from typing import Any

from sqlalchemy import bindparam, select

from botwars.engine import driver
from botwars.engine.codes import ClockStatus
from botwars.engine.errors import InvalidOrders, RecordError
from botwars.engine.referee import NotAwaited, Referee
from botwars.engine.ruleset import canonical_json, get_ruleset
from botwars.server import rulespool
from botwars.server.cluster import LostLease, match_lease
from botwars.server.session import ApiError, GM_REQUEST, MatchSession, gm_row_json
from botwars.store.models import BotMemoryRow, DecisionRow, GmActionRow, MatchRow, OrderRow, RefusalRow, SeatRow

log = logging.getLogger("botwars.server")


# The hot path's statements, built once (SQLAlchemy Core: a fraction of the ORM's cost per order)
_INSERT_ORDER = OrderRow.__table__.insert()


_INSERT_DECISION = DecisionRow.__table__.insert()


_INSERT_REFUSAL = RefusalRow.__table__.insert()


_INSERT_GM = GmActionRow.__table__.insert()


_B = BotMemoryRow.__table__


_DELETE_MEMORY = _B.delete().where(_B.c.match_id == bindparam("mid"), _B.c.seat == bindparam("mseat"))


_INSERT_MEMORY = _B.insert()


_DELETE_MEMORIES = _B.delete().where(_B.c.match_id == bindparam("mid"))


_O = OrderRow.__table__


_DELETE_ORDER = _O.delete().where(_O.c.match_id == bindparam("mid"), _O.c.n == bindparam("dn"),
                                  _O.c.seat == bindparam("dseat"))


_M = MatchRow.__table__


_UPDATE_MATCH = (_M.update().where(_M.c.id == bindparam("mid"))
                 .values(decisions=bindparam("decisions"), turns=bindparam("turns"), opened_at=bindparam("opened_at"),
                         bank_left=bindparam("bank_left"), status=bindparam("status"), outcome=bindparam("outcome"),
                         extensions=None))


def answered_points(lines: list[dict[str, Any]], order_rows: list[Any], open_point: int) -> dict[str, int]:
    """The last decision point each seat's answer is stored for: the highest ``n`` of the
    record ``lines`` whose orders hold the seat, or ``open_point`` where an order row of the open
    point holds it (0: none yet). Used to check a built-in bot's stored memory against what was
    stored of its answers (:meth:`MatchManager._restore_bots`)."""
    out: dict[str, int] = {}
    for line in lines:
        for seat in line.get("orders", {}):
            out[seat] = max(out.get(seat, 0), int(line["n"]))
    for o in order_rows:
        if o.n == open_point:
            out[o.seat] = max(out.get(o.seat, 0), open_point)
    return out


class MatchPersistence:
    """Commit and load (mixed into :class:`~botwars.server.manager.MatchManager`).
    """

    def _load(self, match_id: str) -> MatchSession:
        """Rebuild a match from the store by replaying its record lines through the referee
        (digests checked), then its open decision point's stored refusals and orders. An
        unfinished match with a big configuration is moved into the rules pool first (when it
        runs), so its lines are re-simulated in its worker, not in this process."""
        with self.store.snapshot() as s:  # one snapshot: other workers may be committing (issue 27)
            row = s.get(MatchRow, match_id)
            if row is None:
                raise ApiError(404, "unknown_match", f"no match {match_id!r}")
            seat_rows = list(s.scalars(select(SeatRow).where(SeatRow.match_id == match_id).order_by(SeatRow.idx)))
            lines = [json.loads(x) for x in s.scalars(select(DecisionRow.line).where(DecisionRow.match_id == match_id)
                                                      .order_by(DecisionRow.n))]
            order_rows = list(s.scalars(select(OrderRow).where(OrderRow.match_id == match_id,
                                                               OrderRow.n == row.decisions + 1)
                                        .order_by(OrderRow.seat)))
            refusal_rows = list(s.scalars(select(RefusalRow).where(RefusalRow.match_id == match_id,
                                                                   RefusalRow.n == row.decisions + 1)
                                          .order_by(RefusalRow.seat, RefusalRow.k)))
            notes = [gm_row_json(g) for g in s.scalars(select(GmActionRow).where(GmActionRow.match_id == match_id)
                                                       .order_by(GmActionRow.id))]
        rs = get_ruleset(row.ruleset)
        if row.rules_version != rs.rules_version:
            log.warning("match %s was created under %s rules version %s, now %s", match_id, rs.id,
                        row.rules_version, rs.rules_version)
        config = json.loads(row.config)
        seats = [r.seat for r in seat_rows]
        ref = Referee(rs, config, seats, row.seed, clock=row.clock_enabled,
                      agents={r.seat: r.agent for r in seat_rows}, keep_free_refusals=False)
        sess = MatchSession(id=row.id, rs=rs, ref=ref, token_hashes={r.seat: r.token_hash for r in seat_rows},
                            created_at=row.created_at, opened_at=row.opened_at, heavy=rulespool.big_config(config),
                            gm_hash=row.gm_token_hash, paused_at=row.paused_at,
                            extra={k: float(v) for k, v in json.loads(row.extensions or "{}").items()},
                            notes=notes, names={r.seat: r.name for r in seat_rows if r.name},
                            version=row.version or 0)
        restored: set[str] = set()
        if not row.outcome:
            self._make_bots(sess)
            restored = self._restore_bots(sess, answered_points(lines, order_rows, row.decisions + 1))
            if sess.heavy:  # a big configuration: re-simulated where it will live (in its worker)
                with sess.lock:
                    self._adopt(sess)
        def feed_bots(ref: Referee, _line: dict[str, Any]) -> None:
            self._replay_bots(sess, set(ref.pending()) - restored)
        try:
            driver.replay_all(ref, lines, feed_bots)  # the one re-simulation path (digests checked)
            if row.outcome:
                return sess
            sess.open_cp = ref.checkpoint()  # where catching up with another worker starts
            self._apply_open(sess, refusal_rows, order_rows)
        except (RecordError, NotAwaited, InvalidOrders) as exc:
            raise ApiError(409, "match_unreadable", f"match {match_id} cannot be re-simulated: {exc}") from None
        self._replay_bots(sess, {s for s in ref.pending() if ref.settled(s) is not None} - restored)
        if ref.ready() or (ref.over and not row.outcome):
            tried: list[bool] = []

            def settle() -> None:
                if tried and not sess.ref.ready():
                    return  # another worker settled it while this one was loading (issue 27)
                tried.append(True)
                cp = sess.ref.checkpoint()
                self._resolve_ready(sess)  # also points that await nobody (e.g. a game's ending step)
                self._commit(sess, cp, now=self.now())
            self._locked(sess, settle)  # with several workers: again on the database's state when it lost a race
        return sess

    @staticmethod
    def _apply_open(sess: MatchSession, refusal_rows: list[Any], order_rows: list[Any]) -> None:
        """Give the referee the stored refusals and orders of its open decision point (a
        restart, or catching up with another worker) and remember each order's request key.
        Raises :class:`RecordError`, :class:`NotAwaited` or :class:`InvalidOrders` when they
        do not replay."""
        ref, seats = sess.ref, sess.seats
        sess.keys = {}
        for r in refusal_rows:
            if r.seat in seats and ref.settled(r.seat) is None:
                ref.apply_refusal(r.seat, json.loads(r.payload))
        for o in order_rows:
            if o.seat not in seats or not ref.pending() or o.seat not in ref.pending():
                continue
            key = json.loads(o.request_key) if o.request_key.startswith('["gm"') else None
            if isinstance(key, list) and len(key) == 2 and key[0] == GM_REQUEST:
                ref.adjudicate(o.seat, json.loads(o.payload), str(key[1]))  # the game master's orders
            else:
                ref.apply_entry(o.seat, json.loads(o.payload), json.loads(o.errors), o.time_used,
                                o.clock_status == ClockStatus.EXPIRED)
            sess.keys[o.seat] = o.request_key

    def _save_memory(self, sess: MatchSession, seat: str, n: int, blob: bytes) -> None:
        """Store built-in bot ``seat``'s memory (its pickled agent) after decision point ``n``
        (0: as started), replacing the one stored before."""
        try:
            with self.store.write_core() as c:
                if self.leases is not None:  # only the match's owner keeps its bots' memory (issue 27)
                    self.leases.check(c, match_lease(sess.id))
                c.execute(_DELETE_MEMORY, {"mid": sess.id, "mseat": seat})
                c.execute(_INSERT_MEMORY, {"match_id": sess.id, "seat": seat, "decision": n, "state": blob})
        except LostLease:
            log.info("match %s: another worker took it over; the memory of bot %s is its to keep", sess.id, seat)
        except Exception:  # the match goes on; a restart would replay this bot's views instead
            log.exception("match %s: the memory of bot %s was not stored", sess.id, seat)

    def _restore_bots(self, sess: MatchSession, answered: dict[str, int]) -> set[str]:
        """Put back the stored memory of the match's built-in bots (:meth:`_save_memory`);
        returns the seats restored. ``answered``: the last decision point each seat's answer is
        stored for (:func:`answered_points`). A memory stored after another point than that one
        is not restored: the server was killed between storing the bot's memory and its answer
        (or the memory could not be stored), and a bot asked again with a memory that already
        made that decision would decide differently. Such a bot, and those of a match stored
        before memories were kept, are replayed the views they answered instead
        (:meth:`_replay_bots`), so a restart never changes what they play."""
        with self.store.read() as s:
            rows = list(s.scalars(select(BotMemoryRow).where(BotMemoryRow.match_id == sess.id)))
        restored = set()
        for row in rows:
            if row.seat not in sess.bots:
                continue
            if row.decision != answered.get(row.seat, 0):
                log.info("match %s: the memory of bot %s is from decision %d, its last stored answer from %d: "
                         "its views are replayed", sess.id, row.seat, row.decision, answered.get(row.seat, 0))
                continue
            try:
                sess.bots[row.seat] = pickle.loads(row.state)  # botwars' own objects, stored by this server
            except Exception as exc:
                log.warning("match %s: the memory of bot %s cannot be restored (%s): its views are replayed",
                            sess.id, row.seat, type(exc).__name__)
                continue
            restored.add(row.seat)
        return restored

    def _commit(self, sess: MatchSession, cp: Any, *, now: float, orders: list[dict[str, Any]] = (),
                refusals: list[dict[str, Any]] = (), replace: list[tuple[int, str]] = (),
                notes: list[dict[str, Any]] = (), fence: bool = False) -> None:
        """Commit, in one transaction, the order and refusal rows of a change, the game
        master's ``notes`` (:class:`GmActionRow` dicts, added to ``sess.notes`` once committed)
        and every record line the referee wrote since ``cp`` (with the match row); on failure
        the referee is rolled back to ``cp`` and the error raised. A new decision point opens at
        ``now`` (while paused: at the moment of the pause, so that its clock stands still) with
        no extensions.

        With several workers (issue 27) the transaction first bumps the match's version from
        the one this memory holds (:meth:`_bump`; :class:`StaleMatch` when another worker
        changed the match meanwhile); ``fence``: only while this worker owns the match
        (a built-in bot's answer; :class:`LostLease` otherwise)."""
        ref = sess.ref
        new_lines = ref.lines[cp.lines:]
        opened = sess.clock_now(now)
        try:
            with self.store.write_core() as c:
                version = self._bump(c, sess, fence=fence)
                for row in notes:
                    c.execute(_INSERT_GM, {"match_id": sess.id, **row})
                for n, seat in replace:
                    c.execute(_DELETE_ORDER, {"mid": sess.id, "dn": n, "dseat": seat})
                for row in orders:
                    c.execute(_INSERT_ORDER, row)
                for row in refusals:
                    c.execute(_INSERT_REFUSAL, row)
                for line in new_lines:
                    c.execute(_INSERT_DECISION, {"match_id": sess.id, "n": line["n"], "line": canonical_json(line)})
                if new_lines:
                    out = ref.outcome
                    if out:  # an ended match is never re-simulated with its bots: their memory goes
                        c.execute(_DELETE_MEMORIES, {"mid": sess.id})
                    c.execute(_UPDATE_MATCH, {"mid": sess.id, "decisions": ref.n, "turns": ref.turn(),
                                              "opened_at": opened, "bank_left": canonical_json(ref.bank),
                                              "status": "ended" if out else "running",
                                              "outcome": canonical_json(out.to_json()) if out else None})
        except BaseException:
            ref.rollback(cp)
            raise
        sess.version = version
        sess.notes.extend(notes)
        if new_lines:
            sess.opened_at = opened
            sess.keys = {}
            sess.extra = {}
            sess.open_cp = None if ref.over else ref.checkpoint()

    def _stored_order(self, match_id: str, n: int, seat: str) -> str | None:
        with self.store.read() as s:
            row = s.get(OrderRow, (match_id, n, seat))
        return None if row is None else row.request_key
