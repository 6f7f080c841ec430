"""The server's clocks (part of :class:`~botwars.server.manager.MatchManager`): the deadline of
each awaited seat, expiry when it passes (the referee's :meth:`~botwars.engine.referee.Referee.expire`),
the clock thread and the clock a page shows; a paused match has no deadline.
"""

from __future__ import annotations

import logging
from typing import Any

from botwars.engine.codes import ClockStatus, FailureCode
from botwars.engine.plugin import get_game
from botwars.engine.ruleset import canonical_json
from botwars.server.session import MatchSession

log = logging.getLogger("botwars.server")


class MatchClock:
    """Deadlines, expiry and the shown clock (mixed into
    :class:`~botwars.server.manager.MatchManager`).
    """

    def _clock_loop(self) -> None:
        last_beat = 0.0
        while not self._stop.wait(self.tick_s):
            try:
                self.tick()
                now = self.now()
                if now - last_beat >= self.heartbeat_s:
                    self.store.heartbeat(now)
                    last_beat = now
            except Exception:  # pragma: no cover - keep the clock alive, log the bug
                log.exception("clock thread")

    def tick(self) -> None:
        """Apply every deadline that has passed (default orders, or loss on time). In
        background mode a heavy match's expiries are applied in the heavy-match thread
        (:meth:`_heavy_work`), so the clock never waits for a heavy point to resolve. With
        several workers only the leader applies deadlines (issue 27), each through the match's
        locked transaction (:meth:`_locked`), so a deadline and an order arriving at once at
        two workers give one outcome."""
        if not self._leads():
            return
        now = self.now()
        for sess in list(self.sessions.values()):
            nd = sess.next_deadline
            if nd is None or nd > now:
                continue
            if not self._heavy_work(sess, ("tick", sess.id), self._tick_one, sess, now):
                self._tick_one(sess, now)

    def _tick_one(self, sess: MatchSession, now: float) -> None:
        """Apply ``sess``'s deadlines that passed by ``now``."""
        changed = []

        def expire_due() -> None:
            for seat in sess.awaited():
                dl = sess.deadline(seat)
                if dl is not None and now > dl and not sess.ended and sess.paused_at is None:
                    self._expire(sess, seat, now)
                    changed.append(seat)
        self._locked(sess, expire_due)
        if changed:
            self._after_change(sess)
        else:
            self._update_deadline(sess)

    def _expire(self, sess: MatchSession, seat: str, now: float) -> None:
        """``seat`` ran out of time: the referee applies its expiry (default orders, or a loss)."""
        ref = sess.ref
        if ref.over or seat not in ref.awaited():
            return
        allowed = ref.deadline(seat) or 0.0
        elapsed = max(allowed + 1e-6, sess.elapsed(seat, now))
        n = ref.n + 1
        cp = ref.checkpoint()
        ref.expire(seat, elapsed)
        st = ref.settled(seat) if ref.n + 1 == n else None
        if st is None:  # the point closed (loss on time): the line holds the seat's part
            line = ref.lines[-1]
            payload, errors = None, line.get("errors", {}).get(seat, [])
            t, expired = line.get("time_s", {}).get(seat, elapsed), True
        else:
            payload, errors, t, expired = None, st.errors, st.time_s, st.expired
        row = {"match_id": sess.id, "n": n, "seat": seat, "payload": canonical_json(payload),
               "errors": canonical_json(errors), "time_used": t,
               "clock_status": ClockStatus.EXPIRED.value if expired else "", "received_at": now,
               "request_key": canonical_json([None, {"code": FailureCode.TIMEOUT}])}
        lost = ref.over
        note = {"n": n, "at": now, "action": "missed_deadline", "seat": seat, "reason": "",
                "detail": canonical_json({"lost": lost})}
        if st is not None:  # the seat's own default orders, for its notice only
            try:
                sess.defaults_played[(n, seat)] = get_game(ref.ruleset.id).order_notation(
                    ref.state, seat, ref.ruleset.orders_json(st.orders))
            except Exception:  # noqa: BLE001 - a notice's detail is never worth a failed expiry
                log.exception("match %s: the default orders of %s could not be written out", sess.id, seat)
        try:
            self._resolve_ready(sess)
        except BaseException:
            ref.rollback(cp)
            raise
        self._commit(sess, cp, now=now, orders=[row], notes=[note])

    def _update_deadline(self, sess: MatchSession) -> None:
        if sess.paused_at is not None:  # paused by the game master: no deadline passes
            sess.next_deadline = None
            return
        dls = [d for d in (sess.deadline(s) for s in sess.awaited()) if d is not None]
        sess.next_deadline = min(dls) if dls else None

    def _clock_json(self, sess: MatchSession) -> dict[str, Any]:
        c = sess.control
        now = sess.clock_now(self.now())
        left = {}
        if sess.clock_enabled and not sess.ended:
            for s in sess.awaited():
                d = sess.deadline(s)
                if d is not None:
                    left[s] = round(max(0.0, d - now), 3)
        return {"enabled": sess.clock_enabled, "move_limit_s": c.move_limit_s, "bank_s": c.bank_s,
                "increment_s": c.increment_s,
                "on_expiry": c.on_expiry, "bank_left_s": {s: round(v, 6) for s, v in sess.bank_left.items()},
                "elapsed_s": round(max(0.0, now - sess.opened_at), 3) if not sess.ended else 0.0,
                "time_left_s": left, "paused": sess.paused_at is not None,
                "extended_s": {s: v for s, v in sess.extra.items() if v}}
