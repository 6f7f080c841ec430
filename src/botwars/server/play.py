"""Playing the seats through the seat driver (part of :class:`~botwars.server.manager.MatchManager`):
players' submissions and reported failures, built-in bots (inline or in the bot pool) settled with
the driver's refusal policy (:func:`botwars.engine.driver.settle`), resolution
(:func:`botwars.engine.driver.close_point`) and heavy matches handed to the rules pool.
"""

from __future__ import annotations

import copy
import logging
import pickle
import time
from typing import Any, Callable

from botwars.engine import driver
from botwars.engine.codes import ClockStatus, FailureCode, NotAwaitedCode, OnExpiry, Receipt
from botwars.engine.plugin import get_game
from botwars.engine.referee import NotAwaited, Ticket
from botwars.engine.ruleset import canonical_json
from botwars.server import rulespool
from botwars.server.session import ApiError, MAX_RECORDED_REFUSALS, MatchSession

log = logging.getLogger("botwars.server")


class SeatPlay:
    """Submissions, built-in bots and resolution through the seat driver (mixed into
    :class:`~botwars.server.manager.MatchManager`).
    """

    def _bot_loop(self) -> None:
        """Background: start the decisions of awaited built-in bots (a match id on the queue),
        and apply what the bot pool answered (``(match id, seat, decision, BotResult)``)."""
        while True:
            item = self._bot_queue.get()
            if item is None:
                return
            try:
                sess = self.sessions[item if isinstance(item, str) else item[0]]
                if isinstance(item, str):
                    if not self._heavy_work(sess, None, self._play_bots, sess):
                        self._play_bots(sess)
                elif not self._heavy_work(sess, None, self._apply_answer, item):
                    self._apply_answer(item)
            except Exception:  # pragma: no cover
                log.exception("bot thread, %s", item if isinstance(item, str) else item[:3])

    def _apply_answer(self, item: tuple[str, str, int, Any]) -> None:
        """Apply what the bot pool answered for one decision (``(match id, seat, decision,
        BotResult)``)."""
        mid, seat, n, res = item
        sess = self.sessions[mid]
        kept = []

        def apply() -> None:
            if seat not in sess.bots:
                return  # the game master gave the seat back to a player meanwhile
            if res.agent is not None and not kept:
                kept.append(seat)
                sess.bots[seat].bot = res.agent.bot  # its memory after the decision
                if res.memory is not None and not sess.ended:  # n: points resolved when asked
                    self._save_memory(sess, seat, n + 1, res.memory)
            if sess.ended or sess.n != n or seat not in sess.awaited():
                return  # the clock expired it meanwhile, or the match ended
            self._apply_bot(sess, seat, res.payload, res.failure, res.spent)
        try:
            self._fenced(lambda: self._locked(sess, apply))
        finally:
            self.bot_pool.release((mid, seat))
        self._after_change(sess)

    def _make_bots(self, sess: MatchSession) -> None:
        from botwars.agents.base import AgentFailure, CallableAgent
        bots = get_game(sess.rs.id).builtin_bots()
        for seat, spec in sess.agents.items():
            if spec.startswith("builtin:"):
                agent = CallableAgent(bots[spec[len("builtin:"):]](), spec)
                try:
                    agent.start(sess.rs.id, seat, copy.deepcopy(sess.config), sess.rs.agent_seed(sess.seed, seat))
                except AgentFailure as exc:
                    log.warning("match %s: bot %s failed to start: %s", sess.id, spec, exc)
                sess.bots[seat] = agent

    def _replay_bots(self, sess: MatchSession, seats: set[str]) -> None:
        """Feed the bots of ``seats`` the views they already answered at the referee's open
        point, so their memory matches (answers discarded): :meth:`Referee.view`, the clock
        included, exactly as the live bots were shown it."""
        from botwars.agents.base import AgentFailure
        for seat, agent in sess.bots.items():
            if seat in seats:
                try:
                    agent.act(sess.ref.view(seat), None)
                except AgentFailure:
                    pass

    def _resolve_ready(self, sess: MatchSession) -> None:
        """Resolve the open decision point while it is complete (under ``sess.lock``). A match
        whose resolution here took over :data:`~botwars.server.rulespool.HEAVY_S` of CPU time
        (measured on the first :data:`~botwars.server.rulespool.PROBE_FIRST` points this process
        resolves for it, also after a restart, and every
        :data:`~botwars.server.rulespool.PROBE_EVERY`-th after) becomes ``heavy``: with a running
        ``rules_pool`` its referee resolves there from then on (the same result, computed
        outside this process's GIL; issue 12)."""
        ref = sess.ref
        while ref.ready():
            self._adopt(sess)
            # CPU time, so that a busy machine does not make a match heavy; only now and then,
            # as reading a thread's CPU clock is a system call (perf_counter is not)
            k = sess.resolved_here
            probe = not sess.heavy and (k < rulespool.PROBE_FIRST or k % rulespool.PROBE_EVERY == 0)
            c0 = time.thread_time() if probe else 0.0
            driver.close_point(ref)
            sess.resolved_here = k + 1
            if probe and time.thread_time() - c0 > rulespool.HEAVY_S:
                sess.heavy = True
                log.info("match %s is heavy: its decision points are resolved in the rules pool", sess.id)
            self._adopt(sess)

    def _adopt(self, sess: MatchSession) -> None:
        """Move a heavy match into the rules pool when it is not there (under ``sess.lock``):
        its state then lives in one worker process (:meth:`RulesPool.adopt`)."""
        pool = self.rules_pool
        if (sess.heavy and not sess.stays_here and pool is not None and pool.running
                and not isinstance(sess.ref.state, rulespool.StateRef)):
            if pool.adopt(sess.id, sess.ref, sess.lock):
                log.info("match %s now lives in the rules pool", sess.id)
            else:
                sess.stays_here = True

    def _settle(self, sess: MatchSession, seat: str, key: str, now: float, elapsed: float, payload: Any,
                failure: dict[str, str] | None, agent: bool = False) -> Ticket:
        """Hand one submission (or an agent failure) to the referee, resolve when the point is
        complete, and commit it all; returns the referee's ticket. ``agent``: the answer of a
        built-in bot, settled by the seat driver with its refusal policy
        (:func:`botwars.engine.driver.settle`: refused gives the default orders unless the rules
        count refusals); a player's refused submission is only answered (it may submit again).
        Whatever fails on the way leaves the referee as it was; a heavy match whose state is
        lost with its worker and cannot be rebuilt is a 503 ``rules_unavailable`` (nothing was
        accepted)."""
        cp = sess.ref.checkpoint()
        try:
            return self._settle_from(sess, cp, seat, key, now, elapsed, payload, failure, agent)
        except rulespool.RulesUnavailable as exc:
            sess.ref.rollback(cp)
            raise ApiError(503, "rules_unavailable", str(exc)) from None
        except BaseException:
            sess.ref.rollback(cp)
            raise

    def _settle_from(self, sess: MatchSession, cp: Any, seat: str, key: str, now: float, elapsed: float,
                     payload: Any, failure: dict[str, str] | None, agent: bool = False) -> Ticket:
        ref = sess.ref
        n = ref.n + 1
        had = ref.settled(seat) is not None
        before = ref.refusals(seat)
        try:
            if failure is not None:
                tk = driver.fail(ref, seat, failure, elapsed)
            elif agent:
                tk, _ = driver.settle(ref, seat, payload, elapsed)
            else:
                tk = ref.submit(seat, payload, elapsed)
        except NotAwaited as exc:
            raise ApiError(409, exc.code, str(exc)) from None
        orders: list[dict[str, Any]] = []
        refusals: list[dict[str, Any]] = []
        if ref.refusals(seat) > before and before < MAX_RECORDED_REFUSALS:
            refusals.append({"match_id": sess.id, "n": n, "seat": seat, "k": before + 1,
                             "payload": canonical_json(payload), "received_at": now})
        closed = ref.n >= n
        if closed:
            # the point closed (a loss on time): the seat's part is in the line; store it too
            line = ref.lines[-1] if ref.lines else {}
            if seat in line.get("orders", {}):
                orders.append({"match_id": sess.id, "n": n, "seat": seat,
                               "payload": canonical_json(line["orders"][seat]),
                               "errors": canonical_json(line.get("errors", {}).get(seat, [])),
                               "time_used": line.get("time_s", {}).get(seat, 0.0),
                               "clock_status": line.get("clock", {}).get(seat, ""), "received_at": now,
                               "request_key": key})
        else:
            st = ref.settled(seat)
            if st is not None and (not had or tk.receipt == Receipt.REPLACED):
                orders.append({"match_id": sess.id, "n": n, "seat": seat, "payload": canonical_json(st.payload),
                               "errors": canonical_json(st.errors), "time_used": st.time_s,
                               "clock_status": ClockStatus.EXPIRED.value if st.expired else "",
                               "received_at": now, "request_key": key})
        self._resolve_ready(sess)  # a point may await nobody (e.g. a game's ending step): resolve it too
        self._commit(sess, cp, now=now, orders=orders, refusals=refusals,
                     replace=[(n, seat)] if had and orders else [], fence=agent)
        if orders and ref.n + 1 == n:
            sess.keys[seat] = key
        return tk

    def submit(self, match_id: str, seat: str, decision: int, payload: Any,
               failure: dict[str, str] | None = None) -> dict[str, Any]:
        """Accept ``seat``'s orders for decision point ``decision``; returns the acknowledgement.

        ``failure`` (``{"code", "detail"}``, code in ``timeout crash memory malformed``) reports
        that the seat's agent failed: its default orders apply and the error is recorded, as in
        a local match. A later valid submission replaces an earlier one where the rules allow it
        (factory F-5.5, geeko G-16.1). Raises :class:`ApiError`: 409 when the match has ended,
        the decision point is not open, the seat is not awaited or already gave orders the rules
        do not let it replace, or its time ran out; 422 when the orders are invalid (the seat
        alone is told; it may submit again; the clock keeps running).
        """
        return self._submit_as(match_id, lambda _sess: seat, decision, payload, failure)

    def submit_with_token(self, match_id: str, token: str | None, decision: int, payload: Any,
                          failure: dict[str, str] | None = None) -> dict[str, Any]:
        """:meth:`submit` for the request of a seat token (the order route): the token is
        checked inside the locked action, on the cache the action decides on, so that a token
        the game master replaced on another worker is refused even by a cache that had not
        caught up yet. Raises what :meth:`submit` and :meth:`authenticate` raise (403 for a
        wrong token)."""
        return self._submit_as(match_id, lambda sess: self.authenticate(sess, token), decision, payload, failure)

    def _submit_as(self, match_id: str, seat_of: Callable[[MatchSession], str], decision: int, payload: Any,
                   failure: dict[str, str] | None) -> dict[str, Any]:
        """The order path of :meth:`submit` and :meth:`submit_with_token`: ``seat_of(sess)``
        names the seat inside the locked action, on the cache it decides on."""
        sess = self._session(match_id)
        ack = self._locked(sess, lambda: self._submit_locked(sess, seat_of(sess), decision, payload, failure),
                           optimistic=True)
        self._after_change(sess)
        return ack

    def _submit_locked(self, sess: MatchSession, seat: str, decision: int, payload: Any,
                       failure: dict[str, str] | None) -> dict[str, Any]:
        ref = sess.ref
        key = canonical_json([payload, failure])
        base = {"match": sess.id, "seat": seat, "decision": decision}
        if decision <= ref.n or (sess.ended and decision == ref.n + 1):
            old = self._stored_order(sess.id, decision, seat)
            if old is not None and old == key:
                return {**base, "accepted": True, "duplicate": True, "resolved": decision <= ref.n, "errors": []}
            if sess.ended:
                raise ApiError(409, NotAwaitedCode.MATCH_ENDED, f"match {sess.id} has ended")
            # one seat, one decision (issue 23 item 6): a tab that is behind never gives orders
            # for a point it did not show
            raise ApiError(409, "wrong_decision", f"this turn was already played: decision point {decision} is "
                                                  f"closed; the open one is {ref.n + 1}", already_played=True,
                           open_decision=ref.n + 1)
        if seat in sess.bots:
            raise ApiError(409, "seat_played_by_bot", f"seat {seat} is played by the built-in bot "
                                                      f"{sess.agents[seat].removeprefix('builtin:')} (the game "
                                                      "master handed it over); ask the game master for it back")
        if sess.ended:
            raise ApiError(409, NotAwaitedCode.MATCH_ENDED, f"match {sess.id} has ended")
        if decision != ref.n + 1:
            raise ApiError(409, "wrong_decision", f"decision point {decision} is not open; the open one is {ref.n + 1}")
        if seat not in ref.pending():
            raise ApiError(409, NotAwaitedCode.NOT_YOUR_TURN,
                           f"seat {seat} has no orders to give at decision point {decision} "
                           f"(awaited: {', '.join(ref.pending())})")
        st = ref.settled(seat)
        if st is not None:
            if sess.keys.get(seat) == key:
                return {**base, "accepted": True, "duplicate": True, "resolved": False, "errors": st.errors}
            if not (sess.rs.replaces_submissions and st.payload is not None):
                raise ApiError(409, NotAwaitedCode.ALREADY_SUBMITTED,
                               f"seat {seat} already gave orders for decision point {decision}")
        if failure is not None:
            try:
                code = FailureCode.parse(failure.get("code"))
            except ValueError as exc:
                raise ApiError(422, "bad_failure", str(exc)) from None
            failure = {"code": code.value, "detail": str(failure.get("detail", ""))[:500]}
        counted = ref.ruleset.refusal_limit(ref.state, seat) is not None
        now = self.now()
        elapsed = sess.elapsed(seat, now)
        tk = self._settle(sess, seat, key, now, elapsed, payload, failure)
        if tk.receipt == Receipt.TOO_LATE:
            raise ApiError(409, Receipt.TOO_LATE, f"seat {seat} ran out of time at decision point {decision}; "
                                                  + ("it lost on time" if sess.control.on_expiry == OnExpiry.LOSS
                                                     else "its default orders applied"))
        if tk.receipt == Receipt.REFUSED:
            exc = tk.error
            assert exc is not None
            extra: dict[str, Any] = {"rule_code": exc.code, "part": None if exc.part is None else str(exc.part)}
            if counted:
                extra["counted"] = True
            raise ApiError(422, "invalid_orders", exc.message, **extra)
        resolved = ref.n >= decision
        return {**base, "accepted": True, "duplicate": False, "resolved": resolved,
                **({"replaced": True} if tk.receipt == Receipt.REPLACED else {}), "errors": tk.warnings}

    def resign(self, match_id: str, seat: str) -> dict[str, Any]:
        """``seat`` resigns: the rule set's ``timeout_outcome`` with reason ``resign`` ends the match
        (recorded as a line of its own). 409 if it has already ended."""
        sess = self._session(match_id)

        def resign() -> None:
            if sess.ended:
                raise ApiError(409, NotAwaitedCode.MATCH_ENDED, f"match {sess.id} has ended")
            cp = sess.ref.checkpoint()
            sess.ref.resign(seat)
            self._commit(sess, cp, now=self.now())
        self._locked(sess, resign)
        self._after_change(sess)
        assert sess.outcome is not None
        return {"match": sess.id, "seat": seat, "outcome": sess.outcome.to_json()}

    def _heavy_work(self, sess: MatchSession, key: Any, fn: Callable[..., None], *args: Any) -> bool:
        """Background mode, heavy ``sess`` (its points are resolved in the rules pool): run
        ``fn(*args)`` in the heavy-match thread instead of the calling (clock or bot) thread,
        in order, at most one at a time per ``key`` (``None``: no such limit). Returns ``False``
        (the caller does it itself) otherwise."""
        ex = self._heavy_ex
        if ex is None or not sess.heavy:
            return False
        if key is not None:
            with self._lock:
                if key in self._heavy_busy:
                    return True
                self._heavy_busy.add(key)

        def run() -> None:
            try:
                fn(*args)
            except Exception:  # pragma: no cover - keep the thread alive, log the bug
                log.exception("heavy-match thread, %s", key)
            finally:
                with self._lock:
                    self._heavy_busy.discard(key)
        try:
            ex.submit(run)
        except RuntimeError:  # stopping
            with self._lock:
                self._heavy_busy.discard(key)
        return True

    def _after_change(self, sess: MatchSession) -> None:
        self._update_deadline(sess)
        self.notify(sess.id)
        if sess.bots and any(s in sess.bots for s in sess.awaited()) and self._owns(sess):
            if self.background:
                self._bot_queue.put(sess.id)
            else:
                self._play_bots(sess)

    def _play_bots(self, sess: MatchSession) -> None:
        """Let built-in bots give their orders until no bot is awaited. With a running
        ``bot_pool`` (background mode), hand each awaited bot's decision to the pool instead and
        return at once; :meth:`_bot_loop` applies the answers. A bot's refused orders get
        its default orders, except where the rules count refusals (it is asked again)."""
        from botwars.agents.base import AgentFailure
        pool = self.bot_pool
        if not self._owns(sess):
            return  # another worker plays them (issue 27)
        if pool is not None and pool.running and self.background:
            with sess.lock:
                self._sync(sess)
                self._adopt(sess)  # a heavy match's bots get views built in its worker
                n = sess.n
                for seat in [s for s in sess.awaited() if s in sess.bots]:
                    if pool.busy((sess.id, seat)):
                        continue
                    ex = sess.exempt()
                    limit = ex if ex is not None else (sess.control.deadline(sess.bank_left[seat])
                                                       if sess.clock_enabled else None)
                    if limit is not None:  # what is left of it: the decision point opened earlier
                        limit = max(0.0, limit - (self.now() - sess.opened_at))
                    pool.submit((sess.id, seat), sess.bots[seat], self._seat_view(sess, seat), limit,
                                lambda res, mid=sess.id, seat=seat: self._bot_queue.put((mid, seat, n, res)))
            return
        memo: dict[tuple[str, int], tuple[Any, Any, float]] = {}  # asked once, even when its commit is retried

        def play_one() -> bool:
            ref = sess.ref
            todo = [s for s in ref.awaited() if s in sess.bots]
            if not todo:
                return False
            seat = todo[0]
            if (seat, ref.n) not in memo:
                view = ref.view(seat)
                t0 = time.perf_counter()
                payload, failure = None, None
                try:
                    payload = sess.bots[seat].act(view, ref.deadline(seat))
                except AgentFailure as exc:
                    failure = {"code": exc.code, "detail": exc.detail}
                memo[(seat, ref.n)] = (payload, failure, time.perf_counter() - t0)
                self._save_memory(sess, seat, ref.n + 1, pickle.dumps(sess.bots[seat], protocol=pickle.HIGHEST_PROTOCOL))
            self._apply_bot(sess, seat, *memo[(seat, ref.n)])
            return True
        while self._owns(sess) and self._fenced(lambda: self._locked(sess, play_one)):
            self._update_deadline(sess)
            self.notify(sess.id)

    def _apply_bot(self, sess: MatchSession, seat: str, payload: Any, failure: dict[str, str] | None,
                   spent: float) -> None:
        """Hand a built-in bot's answer (or failure) to the referee through the seat driver
        (under ``sess.lock``). Its refused orders get its default orders with the refusal
        recorded, except where the rules count refusals: then it stays awaited and is asked
        again (submarine S-7.10)."""
        now = self.now()
        if failure is not None:
            try:
                failure = {"code": FailureCode.parse(failure.get("code")).value,
                           "detail": str(failure.get("detail", ""))[:500]}
            except ValueError:
                failure = {"code": FailureCode.CRASH.value, "detail": str(failure.get("detail", ""))[:500]}
        self._settle(sess, seat, canonical_json([payload, failure]), now, spent, payload, failure, agent=True)

    @staticmethod
    def _seat_view(sess: MatchSession, seat: str | None) -> Any:
        """The seat's observation with the live clock (:meth:`Referee.view`) for a built-in
        bot; a heavy match's is built in its rules-pool worker and comes packed
        (:class:`~botwars.server.botpool.PackedView`), unpacked only in the bot's worker."""
        ref = sess.ref
        rules = ref.ruleset
        if isinstance(ref.state, rulespool.StateRef) and isinstance(rules, rulespool.RemoteRules):
            from botwars.server.botpool import PackedView
            return PackedView(rules.packed_view(ref.state, seat, dict(ref.bank) if ref.clock_enabled else None))
        return ref.view(seat)
