"""Kept bot hosts: sandboxed Python hosts reused across the matches of one process (issue 15 item 5).

Starting a sandboxed host (bubblewrap, seccomp, Landlock launcher, a Python interpreter
importing botwars) costs about 0.1-0.2 s of CPU; a tournament used to pay it for every seat of
every match. Inside :func:`reuse_hosts`, the hosts of Python-file and ``rgkit:`` bots
(:mod:`botwars.agents.pyhost`) are kept when their match ends and handed to the next match
with the same program (the same argv: the same spec), memory limit and network setting:

- the kept host is a *template* (``BOTWARS_HOST_REUSE=1``, see :mod:`botwars.agents.pyhost`)
  that never runs bot code; each match forks a child from it that loads the bot file afresh,
  so no module state, object or global of one match reaches the next (rgkit, too, keeps module
  state within a game, not across games), in a fresh working folder removed afterwards;
- the sandbox is the same as without reuse (the template was started by
  :func:`botwars.agents.sandbox.spawn`; the child inherits every layer); what the two
  matches share is the sandbox's private ``/tmp`` outside that folder, and only between
  matches of the same program of the same author (same spec), never another bot's;
- a host whose match had any failure (timeout, crash, malformed reply, a restart) or that does
  not confirm the end of its match within :data:`END_S` is killed, never reused;
- when a match ends, every process of the host's sandbox but the host itself is killed
  (:func:`botwars.agents.sandbox.sweep`: its cgroup, else its PID namespace's process tree),
  so a daemon or a fork bomb's children die with their match (issue 25 item 5); a host that
  left any such process behind, or that has served :data:`MAX_MATCHES` matches, is replaced
  by a fresh one;
- only one match uses a host at a time; a host is keyed by argv, so two seats playing the same
  bot get two hosts.

``cmd:`` programs and ``botwars-io:`` bots speak no control protocol and are never kept.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any, Iterator

#: seconds a kept host has to confirm the end of its match (``{"botwars_control": "done"}``)
END_S = 2.0
#: matches one kept host serves before it is replaced by a fresh one
MAX_MATCHES = 100


class HostPool:
    """Idle kept hosts by key; at most ``per_key`` idle hosts per key and ``limit`` in all
    (more are closed); a host serves at most ``max_matches`` matches. Thread-safe."""

    def __init__(self, limit: int = 32, per_key: int = 2, max_matches: int = MAX_MATCHES):
        self.limit = limit
        self.per_key = per_key
        self.max_matches = max(1, max_matches)
        self.swept = 0     # hosts not kept because their match left processes behind
        self._idle: dict[Any, list[Any]] = {}
        self._lock = threading.Lock()
        self.started = 0   # hosts started while this pool was active
        self.reused = 0    # matches that got a kept host

    def take(self, key: Any) -> Any | None:
        """An idle host (an object with ``proc``) for ``key``, or ``None``."""
        with self._lock:
            hosts = self._idle.get(key)
            while hosts:
                h = hosts.pop()
                if h.proc.poll() is None:
                    self.reused += 1
                    return h
                h.discard()
            return None

    def give(self, key: Any, host: Any) -> bool:
        """Keep ``host`` for a later match; False (the caller closes it) when the pool is full."""
        with self._lock:
            total = sum(len(v) for v in self._idle.values())
            hosts = self._idle.setdefault(key, [])
            if total >= self.limit or len(hosts) >= self.per_key:
                return False
            hosts.append(host)
            return True

    def close(self) -> None:
        """End every idle host (end of input: the template exits; then its sandbox is removed)."""
        with self._lock:
            hosts = [h for v in self._idle.values() for h in v]
            self._idle.clear()
        for h in hosts:
            h.shutdown()


_active: HostPool | None = None


def active() -> HostPool | None:
    """The pool of the innermost :func:`reuse_hosts` block, or ``None`` (no reuse)."""
    return _active


@contextlib.contextmanager
def reuse_hosts(limit: int = 32) -> Iterator[HostPool]:
    """Within this block, agents made by :func:`botwars.agents.make_agent` keep their sandboxed
    Python hosts across matches (see the module docstring); at its end every kept host is
    ended. A tournament worker wraps its loop of matches in it::

        with reuse_hosts():
            for spec_a, spec_b, seed in pairings:
                Match(rs, cfg, {"p1": make_agent(spec_a, game), "p2": make_agent(spec_b, game)}, seed).run()

    Matches played inside give the same results as outside (same seeds, same replies). Yields
    the :class:`HostPool` (``started``/``reused`` count hosts). Not re-entrant across threads:
    one block per process at a time.
    """
    global _active
    prev = _active
    pool = HostPool(limit)
    _active = pool
    try:
        yield pool
    finally:
        _active = prev
        pool.close()
