"""The server's gate for untrusted bot uploads (issue 12, item 2 and "Done when").

The league (issue 15, item 4; :mod:`botwars.server.league`) calls
:func:`require_upload_isolation` before it accepts, replaces or plays an uploaded bot: where this machine isolates
bots below the operator's minimum (``BOTWARS_SANDBOX_MIN``, default ``full``; levels in
:data:`botwars.agents.sandbox.LEVELS`), the upload is refused with HTTP 503 and a message naming
the level reached, the one required and why (the same words as ``botwars sandbox check``).

:class:`UploadGate` keeps uploads from crowding out everything else (issue 25 item 4): a
per-address rate limit (the ``limits`` library) and a bound on the checks at once; the checks
themselves run in the server's bot pool (:meth:`botwars.server.botpool.BotPool.run_task`),
awaited, so an upload holds none of the server's request threads while its bot is checked.
"""

from __future__ import annotations

import os
from typing import Any, Callable

from botwars.agents import sandbox
from botwars.server.manager import ApiError


def require_upload_isolation(minimum: str | None = None) -> sandbox.Report:
    """Check, before accepting an uploaded bot, that bots are isolated at least at ``minimum``
    (default: ``BOTWARS_SANDBOX_MIN``, else ``full``). Returns the sandbox
    :class:`~botwars.agents.sandbox.Report` (its ``level`` is what the upload will run under).

    Raises :class:`~botwars.server.manager.ApiError` 503 ``sandbox_unavailable`` when the level
    is lower (the message says which level this machine has, which is required and why), and
    503 ``sandbox_misconfigured`` when the configured minimum is not a known level.
    The probe is cached by :func:`botwars.agents.sandbox.probe` (one probe per process).
    """
    try:
        return sandbox.require_level(minimum)
    except sandbox.SandboxUnavailable as exc:
        raise ApiError(503, "sandbox_unavailable", f"uploads are refused: {exc}") from None
    except ValueError as exc:
        raise ApiError(503, "sandbox_misconfigured",
                       f"uploads are refused: BOTWARS_SANDBOX_MIN: {exc}") from None


def uploads_off_reason(minimum: str | None = None) -> str | None:
    """``None`` when uploads are accepted here; else why not, in words for the lobby (issue 25
    item 10): the level this machine isolates bots at, the one uploads need (``minimum``,
    default ``BOTWARS_SANDBOX_MIN``, else ``full``) and what keeps it lower."""
    try:
        sandbox.require_level(minimum)
    except sandbox.SandboxUnavailable:
        report = sandbox.probe()
        need = minimum or os.environ.get("BOTWARS_SANDBOX_MIN", "").strip() or "full"
        why = "; ".join(report.reasons) or "no isolation layer works here"
        return (f"this machine can isolate bots only at level '{report.level}', and uploads need '{need}' "
                f"({why}). The operator can run 'botwars sandbox check' to see what is missing.")
    except ValueError as exc:
        return f"the operator's setting BOTWARS_SANDBOX_MIN is wrong: {exc}."
    return None
UPLOAD_RATE = "5/minute;30/hour"
"""Uploads and replacements one client address may send (the ``limits`` library's notation;
``BOTWARS_UPLOAD_RATE`` overrides it): beyond, 429 ``too_many_uploads``."""


class UploadGate:
    """What lets an upload's check start (issue 25 item 4): a per-address rate limit and a
    bound on the checks that run or wait at once.

    ``rate``: per client address, in the notation of the ``limits`` library (e.g.
    ``"5/minute;30/hour"``; default :data:`UPLOAD_RATE`, or ``BOTWARS_UPLOAD_RATE``), counted
    over a moving window in memory; ``slots``: checks running at once (the rest wait, holding
    no thread); ``waiting``: most uploads waiting for a slot (503 ``uploads_busy`` beyond).
    ``store``: a migrated :class:`~botwars.store.repo.Store` whose workers share the count
    (issue 27 item 4: fixed windows in the table ``rate_hits``, so spreading uploads over
    workers gains nothing); ``None``: this process's memory only.
    Raises ``ValueError`` for a rate the ``limits`` library cannot read."""

    def __init__(self, rate: str | None = None, slots: int = 1, waiting: int = 32, store: Any = None):
        import os

        from limits import parse_many, storage, strategies
        self.rate_text = rate or os.environ.get("BOTWARS_UPLOAD_RATE", "").strip() or UPLOAD_RATE
        self.rates = parse_many(self.rate_text)
        self._limiter = strategies.MovingWindowRateLimiter(storage.MemoryStorage())
        self._shared = None
        if store is not None:
            from botwars.store.shared import SharedRate
            self._shared = SharedRate(store)
        self.slots = max(1, slots)
        self.waiting = max(0, waiting)
        self._sem: Any = None
        self._queued = 0

    def admit(self, address: str) -> None:
        """Count one upload from ``address``; raise :class:`ApiError` 429 ``too_many_uploads``
        (naming the limit and when to try again) when it is over the rate."""
        if self._shared is not None:
            return self._admit_shared(address)
        for rate in self.rates:
            if not self._limiter.hit(rate, "upload", address):
                reset = self._limiter.get_window_stats(rate, "upload", address).reset_time
                import time
                wait = max(1, int(reset - time.time() + 0.999))
                raise ApiError(429, "too_many_uploads",
                               f"too many uploads from your address: at most {rate} (uploads and "
                               f"replacements); try again in {wait} s", retry_after=wait)

    def _admit_shared(self, address: str) -> None:
        """:meth:`admit` over the database's shared fixed windows."""
        import time
        for rate in self.rates:
            ok, reset = self._shared.hit(f"upload|{rate}|{address}", rate.amount, rate.get_expiry())
            if not ok:
                wait = max(1, int(reset - time.time() + 0.999))
                raise ApiError(429, "too_many_uploads",
                               f"too many uploads from your address: at most {rate} (uploads and "
                               f"replacements); try again in {wait} s", retry_after=wait)

    async def run(self, start: Callable[[], Any]) -> Any:
        """Wait for a check slot (503 ``uploads_busy`` when :attr:`waiting` uploads wait
        already), then call ``start()`` (it returns a :class:`concurrent.futures.Future`, e.g.
        of the bot pool) and await its result without holding a thread."""
        import asyncio
        if self._sem is None:
            self._sem = asyncio.Semaphore(self.slots)
        if self._sem.locked() and self._queued >= self.waiting:
            raise ApiError(503, "uploads_busy", f"the server is checking {self.slots + self._queued} uploads; "
                                                "try again in a minute")
        self._queued += 1
        try:
            await self._sem.acquire()
        finally:
            self._queued -= 1
        try:
            return await asyncio.wrap_future(start())
        finally:
            self._sem.release()
