"""Where matches run: a local process pool (``local``) or Ray tasks (``ray``).

A backend takes :class:`~botwars.league.runner.MatchJob` s and calls ``on_done(report)`` in
the calling thread for each finished match, in the order they finish. Neither stores
anything: the caller commits each report (:meth:`botwars.league.results.ResultStore.commit`),
which ignores a match stored already, so a retried match is counted once.
"""

from __future__ import annotations

import logging
import os
import threading
from concurrent.futures import FIRST_COMPLETED, wait
from typing import Any, Callable, Sequence

from botwars.engine.errors import ConfigError
from botwars.league.runner import MatchJob, MatchReport, play_match

#: times a match is started again after its worker process died before the match ended
RETRIES = 3

POLL_S = 0.25
"""How often a local run looks whether it was interrupted (:meth:`LocalBackend.interrupt`), seconds."""

Task = Callable[[MatchJob], MatchReport]
OnDone = Callable[[MatchReport], None]


def lost_report(job: MatchJob, why: str) -> MatchReport:
    """The row of a match whose worker died on every try (status ``failed``)."""
    from botwars.engine import get_ruleset
    seats = get_ruleset(job.game).seat_names(len(job.specs))
    return MatchReport({"match_id": job.match_id, "round": job.round, "seq": job.seq,
                        "game_index": job.game_index, "seed": job.seed, "agents": list(job.names or job.specs),
                        "seats": seats, "status": "failed", "outcome": None, "turns": 0,
                        "errors": {s: 0 for s in seats},
                        "error_detail": [{"decision": 0, "seat": None, "code": "lost", "detail": why}],
                        "wall_s": 0.0})


def _ignore_sigint() -> None:
    """Worker start: Ctrl-C is the parent's to handle (it stops the pool), so that a match under
    way is dropped, never stored as failed."""
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)


_kept: dict[int, Any] = {}


def _keep_hosts() -> None:
    """In a worker process, once: sandboxed Python hosts are kept across the matches it plays
    (:func:`botwars.agents.reuse_hosts`, issue 15 item 5: start-up is not paid per match; each
    match still gets a freshly imported bot). The kept hosts end with the worker (bubblewrap's
    ``--die-with-parent``) or at its exit."""
    pid = os.getpid()
    if pid in _kept:
        return
    import atexit
    from botwars.agents import reuse_hosts
    ctx = reuse_hosts()
    ctx.__enter__()
    _kept[pid] = ctx
    atexit.register(ctx.__exit__, None, None, None)


def _play_in_worker(task: Task, job: MatchJob) -> MatchReport:
    """What a worker (a pool process or a Ray task) runs: ``task(job)`` with kept hosts."""
    _keep_hosts()
    return task(job)


class LocalBackend:
    """``workers`` processes (a :class:`pebble.ProcessPool`) play the matches; a worker that
    dies mid-match is replaced and its match started again (at most :data:`RETRIES` times).

    ``keep_pool=True`` (the league's scheduler, which calls :meth:`run` once per batch): the
    pool and its worker processes, and so the sandboxed hosts they keep (issue 15 item 5), stay
    from one :meth:`run` to the next until :meth:`close`; a worker is replaced after
    :data:`MAX_TASKS` matches, so that nothing a long-lived worker gathers grows without bound.
    Raises :class:`ConfigError` for ``workers`` < 1."""

    name = "local"

    #: matches a kept pool's worker plays before it is replaced (its kept hosts end with it)
    MAX_TASKS = 500

    def __init__(self, workers: int = 1, task: Task = play_match, keep_pool: bool = False):
        if workers < 1:
            raise ConfigError("must be at least 1", source="--workers")
        self.workers = workers
        self.task = task
        self.keep_pool = keep_pool
        self._pool: Any = None
        self._interrupted = threading.Event()

    def interrupt(self) -> None:
        """From another thread: make a :meth:`run` under way (or the next) return within
        :data:`POLL_S` seconds, unreported matches dropped and the pool stopped, as on Ctrl-C
        (the server's shutdown: the league plays the dropped matches again after a restart)."""
        self._interrupted.set()

    def _get_pool(self, jobs: int) -> Any:
        from pebble import ProcessPool
        if self.keep_pool:
            if self._pool is None or not self._pool.active:
                self._pool = ProcessPool(max_workers=self.workers, max_tasks=self.MAX_TASKS,
                                         initializer=_ignore_sigint)
            return self._pool
        return ProcessPool(max_workers=min(self.workers, jobs), initializer=_ignore_sigint)

    def close(self) -> None:
        """Stop a kept pool (its workers and their kept hosts end); nothing without one."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.stop()
            pool.join(timeout=10)

    def run(self, jobs: Sequence[MatchJob], on_done: OnDone) -> None:
        """Play ``jobs``; returns when all are reported. ``KeyboardInterrupt`` stops the pool
        (the matches under way are dropped, to be played on the next run) and is re-raised."""
        if not jobs:
            return
        from pebble import ProcessExpired

        pool = self._get_pool(len(jobs))
        finished = False
        try:
            tries: dict[str, int] = {}
            pending = {pool.schedule(_play_in_worker, args=(self.task, j)): j for j in jobs}
            while pending:
                done, _ = wait(list(pending), timeout=POLL_S, return_when=FIRST_COMPLETED)
                if self._interrupted.is_set():
                    return  # the matches under way are dropped (finally: the pool is stopped)
                for fut in done:
                    job = pending.pop(fut)
                    try:
                        report = fut.result()
                    except ProcessExpired as exc:
                        tries[job.match_id] = tries.get(job.match_id, 0) + 1
                        if tries[job.match_id] <= RETRIES:
                            pending[pool.schedule(_play_in_worker, args=(self.task, job))] = job
                            continue
                        report = lost_report(job, f"worker process died {RETRIES + 1} times ({exc})")
                    except Exception as exc:  # the task itself raised: a bug, reported in the row
                        report = lost_report(job, f"{type(exc).__name__}: {exc}")
                    on_done(report)
            finished = True
        finally:
            if not self.keep_pool:
                if finished:
                    pool.close()
                pool.stop()
                pool.join(timeout=10)
            elif not finished:  # interrupted or failed: the matches under way are dropped
                self.close()


class RayBackend:
    """Matches as Ray tasks on the cluster at ``address`` (else ``$RAY_ADDRESS``, else a
    local Ray instance started here). A task whose worker dies is retried by Ray
    (``max_retries`` = :data:`RETRIES`). If Ray is already initialised in this process it is
    used as it is. Raises :class:`ConfigError` when ``ray`` is not installed (the
    ``botwars[ray]`` extra) or the cluster cannot be reached.

    The workers need botwars (and the bots' files, at the same paths) installed on every node."""

    name = "ray"

    def __init__(self, address: str | None = None, task: Task = play_match):
        self.address = address or os.environ.get("RAY_ADDRESS") or None
        self.task = task

    def _init(self) -> Any:
        try:
            import ray
        except ImportError:
            raise ConfigError("ray is not installed (pip install 'botwars[ray]')", source="--backend ray") from None
        if not ray.is_initialized():
            _check_reachable(self.address)
            env = {k: os.environ[k] for k in ("PYTHONPATH",) if os.environ.get(k)}
            try:
                ray.init(address=self.address, include_dashboard=False, log_to_driver=False,
                         logging_level=logging.ERROR, runtime_env={"env_vars": env} if env else None)
            except Exception as exc:
                where = self.address or "a local Ray instance"
                msg = " ".join(str(exc).split())[:300]
                raise ConfigError(f"cannot connect to {where}: {msg}", source="--ray-address") from None
        return ray

    def run(self, jobs: Sequence[MatchJob], on_done: OnDone) -> None:
        """Play ``jobs`` as Ray tasks; ``KeyboardInterrupt`` cancels the tasks left and is re-raised."""
        if not jobs:
            return
        ray = self._init()
        remote = ray.remote(max_retries=RETRIES, retry_exceptions=False, num_cpus=1)(_call)
        task = ray.put(self.task)
        pending = {remote.remote(task, j): j for j in jobs}
        try:
            while pending:
                done, _ = ray.wait(list(pending), num_returns=1, timeout=None)
                for ref in done:
                    job = pending.pop(ref)
                    try:
                        report = ray.get(ref)
                    except Exception as exc:  # WorkerCrashedError after every retry, RayTaskError
                        report = lost_report(job, " ".join(f"{type(exc).__name__}: {exc}".split())[:300])
                    on_done(report)
        except BaseException:
            for ref in pending:
                try:
                    ray.cancel(ref, force=True)
                except Exception:
                    pass
            raise


def _check_reachable(address: str | None, timeout_s: float = 5.0) -> None:
    """Raise :class:`ConfigError` when ``address`` (``HOST:PORT``; ``None``, ``auto``,
    ``local`` and ``ray://`` addresses are left to Ray) takes no TCP connection within
    ``timeout_s`` seconds, instead of Ray's long retry loop."""
    import socket

    if not address or address in ("auto", "local") or "://" in address:
        return
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit():
        raise ConfigError(f"{address!r} is not HOST:PORT", source="--ray-address")
    try:
        socket.create_connection((host, int(port)), timeout=timeout_s).close()
    except OSError as exc:
        raise ConfigError(f"cannot reach the Ray cluster at {address}: {exc.strerror or exc}",
                          source="--ray-address") from None


def _call(task: Task, job: MatchJob) -> MatchReport:
    """The Ray task: ``task(job)`` (a function, so any callable can be the task), with kept hosts."""
    return _play_in_worker(task, job)


def make_backend(name: str, workers: int = 1, address: str | None = None) -> LocalBackend | RayBackend:
    """The backend called ``name`` (``local`` or ``ray``); :class:`ConfigError` otherwise."""
    if name == "local":
        return LocalBackend(workers)
    if name == "ray":
        return RayBackend(address)
    raise ConfigError(f"unknown backend {name!r} (use local or ray)", source="--backend")

