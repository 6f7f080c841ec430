"""Heavy matches live outside the server's process (issue 12, item 6).

The server's event loop (HTTP, WebSockets) and every match's rules share one process and so one
GIL. A match on the largest map a request may give (90 × 90 squares, 8,100 robots) spends about
70 ms of pure Python per decision point in :meth:`Ruleset.resolve` and its state digest, and
7–10 ms per view its built-in bots are sent; while it does, every other match's
acknowledgements wait for the GIL. So a match whose resolution took more than :data:`HEAVY_S`
of CPU time, or whose configuration is big (:func:`big_config`: a map text given in the
request), is *heavy*, and is moved into one worker process of the :class:`RulesPool` (a
``multiprocessing`` manager process, :class:`MatchHost`; the same worker for every later point
of that match, so its state never travels again):

- the referee's ``state`` becomes a :class:`StateRef`: a name for the state kept in the worker,
  with the few facts the referee asks for at every point (pending seats, outcome, turn, clock
  exemption, refusal limits) computed there once per point;
- the referee's ``ruleset`` becomes a :class:`RemoteRules`, which answers those facts from the
  reference and sends everything else that needs the state (parsing orders, views) to the
  worker; a seat's default orders stay there as a :class:`DefaultOrders` marker;
- the referee's :attr:`~botwars.engine.referee.Referee.resolver` is :func:`remote_resolver`: the
  worker runs :func:`~botwars.engine.referee.resolve_local` (the same pure function the referee
  runs itself) on the state it holds and sends back only the digest, the events packed
  (:class:`~botwars.engine.referee.PackedEvents`, unpacked when a view or record asks) and the
  new reference;
- a built-in bot's view is built in the worker and sent on packed
  (:meth:`RemoteRules.packed_view`): the server's process forwards the bytes to the bot pool and
  never builds or unpickles it.

The referee stays the one decision point: submit, default, expire, resolve and the record line
are its own code, under the match's lock; checkpoint/rollback work (the worker keeps the last
:data:`KEEP` states of a match, so a rolled-back reference still names a state); the results are
those of the rule set in-process, so determinism and records are untouched
(``tests/server/test_server_rulespool.py`` plays the same match both ways).

When a worker cannot serve a match (it died, the game is not loaded there, a state is gone),
:class:`RemoteRules` re-simulates the match's record lines in the server's process (digests
checked, as at a restart), hands the referee the local state, and answers from there with the
real rule set: the match goes on, in-process, and :class:`RulesUnavailable` is raised only
when even that fails. The manager may move it to a worker again later.
"""

from __future__ import annotations

import itertools
import logging
import multiprocessing
import os
import pickle
import threading
from collections import OrderedDict
from multiprocessing.managers import BaseManager, RemoteError
from typing import Any, Sequence

from botwars.engine.codes import KernelReason
from botwars.engine.driver import replay_all
from botwars.engine.errors import BotwarsError, InvalidOrders
from botwars.engine.events import Event, Outcome
from botwars.engine.referee import PackedEvents, Referee, resolve_local, seat_view
from botwars.engine.ruleset import Ruleset
from botwars.server.botpool import WATCH_S, watch_server as _watch  # one watcher for both pools

log = logging.getLogger("botwars.server")

REMOTE_CALLS: dict[str, Any] = {
    "parse_orders": lambda rs, state, seat, payload: rs.parse_orders(state, seat, payload),
    "refusal_limit": lambda rs, state, seat: rs.refusal_limit(state, seat),
}
"""The rule-set methods on a state that the server's process may ask a worker for (by name):
nothing else can be called there."""

HEAVY_S = 0.01
"""A match whose decision point took more than this many seconds of CPU time to resolve in the
server's process is moved to the rules pool (an ordinary match takes about 1 ms; the largest
arena map a request may give about 70 ms)."""

PROBE_FIRST = 2
"""The first decision points of a match whose resolution is timed (counted from the server's
start, so a heavy match is found again at once after a restart)."""

PROBE_EVERY = 16
"""After those, every this many-th point is timed (a match may grow heavy as it goes)."""

BIG_CONFIG_CHARS = 2048
"""A match whose configuration (canonical JSON) is longer than this many characters (a map,
board, rooms or pool text given in the request) is heavy from its start, before any point is
timed: timing its first point in the server's process would cost every other match that
point (about 0.1 s for the largest arena map; ordinary configurations are under 200)."""

DEFAULT_WORKERS = 2
"""Worker processes of the rules pool; heavy matches are spread over them (fewest first)."""

KEEP = 4
"""States of a match a worker keeps (the newest ones), so that a referee rolled back to an
earlier reference still finds its state."""


def big_config(config: dict[str, Any]) -> bool:
    """Whether ``config`` makes a match heavy from its start (:data:`BIG_CONFIG_CHARS`)."""
    from botwars.engine.ruleset import canonical_json
    return len(canonical_json(config)) > BIG_CONFIG_CHARS


class RulesUnavailable(BotwarsError):
    """A heavy match's state could be neither reached in its worker nor rebuilt in-process."""


class StateRef:
    """The server's name for a state kept in a rules-pool worker (what a heavy match's referee
    holds as ``state``), with the facts the referee reads at every decision point.

    ``v``: version (unique per pool); ``lines``: how many record lines lead to this state;
    ``pending``: seats awaited (``[]`` once over); ``outcome``; ``turn`` (the game's turn
    counter); ``exempt`` (:meth:`Ruleset.clock_exempt`, ``None`` once over); ``limits``:
    :meth:`Ruleset.refusal_limit` of each pending seat."""

    __slots__ = ("v", "lines", "pending", "outcome", "turn", "exempt", "limits", "_local")

    def __init__(self, v: int, lines: int, facts: tuple[list[str], Outcome | None, int, float | None,
                                                          dict[str, int | None]]):
        self.v, self.lines = v, lines
        self.pending, self.outcome, self.turn, self.exempt, self.limits = facts
        self._local: Any = None

    def __repr__(self) -> str:
        return f"StateRef(v={self.v}, lines={self.lines})"


class DefaultOrders:
    """Placeholder for ``seat``'s :meth:`Ruleset.default_orders` of the state a decision point is
    resolved from: the worker that holds the state puts the orders in (a heavy match's default
    orders may name thousands of robots; they never travel)."""

    __slots__ = ("seat",)

    def __init__(self, seat: str):
        self.seat = seat

    def __reduce__(self) -> tuple[Any, ...]:
        return (DefaultOrders, (self.seat,))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DefaultOrders) and other.seat == self.seat

    def __hash__(self) -> int:
        return hash(("DefaultOrders", self.seat))


# ---- in the worker ------------------------------------------------------------------------------
def _facts(rs: Ruleset, state: Any) -> tuple[list[str], Outcome | None, int, float | None, dict[str, int | None]]:
    out = rs.outcome(state)
    pending = [] if out is not None else list(rs.pending(state))
    exempt = None if out is not None else rs.clock_exempt(state)
    return pending, out, rs.turn_number(state), exempt, {s: rs.refusal_limit(state, s) for s in pending}


def _error(exc: BaseException) -> tuple[str, type, str, dict[str, Any]]:
    """An exception as plain data (``pickle`` would lose the keyword-only fields of
    :class:`~botwars.engine.errors.InvalidOrders` and friends)."""
    return ("err", type(exc), str(exc.args[0]) if exc.args else "", dict(getattr(exc, "__dict__", {})))


class MatchHost:
    """In a worker process: the states of the heavy matches placed there, ``KEEP`` per match,
    and the rule-set calls on them. Every method returns plain data; :class:`RemoteRules` is
    its client. An unknown match or version raises ``KeyError``."""

    def __init__(self) -> None:
        self._matches: dict[str, tuple[Ruleset, OrderedDict[int, Any]]] = {}
        self._lock = threading.Lock()

    def _keep(self, key: str, rs: Ruleset, v: int, state: Any) -> None:
        with self._lock:
            entry = self._matches.get(key)
            if entry is None:
                entry = self._matches[key] = (rs, OrderedDict())
            entry[1][v] = state
            while len(entry[1]) > KEEP:
                entry[1].popitem(last=False)

    def _get(self, key: str, v: int) -> tuple[Ruleset, Any]:
        with self._lock:
            rs, states = self._matches[key]
            return rs, states[v]

    def adopt(self, key: str, game: str, blob: bytes, v: int) -> Any:
        """Keep the pickled state ``blob`` of match ``key`` as version ``v``; its facts."""
        from botwars.engine.ruleset import get_ruleset
        rs = get_ruleset(game)
        state = pickle.loads(blob)
        self._keep(key, rs, v, state)
        return _facts(rs, state)

    def resolve_at(self, key: str, v: int, nv: int, orders: dict[str, Any], history: bool) -> Any:
        """:func:`resolve_local` of version ``v`` (markers replaced by the default orders); the
        new state kept as ``nv``. Returns ``("ok", facts, packed events, digest)`` or an error."""
        rs, state = self._get(key, v)
        try:
            orders = {s: rs.default_orders(state, o.seat) if isinstance(o, DefaultOrders) else o
                      for s, o in orders.items()}
            new, events, dig = resolve_local(rs, state, orders, history)
        except Exception as exc:
            return _error(exc)
        self._keep(key, rs, nv, new)
        return ("ok", _facts(rs, new), PackedEvents.pack(events), dig)

    def call(self, key: str, v: int, name: str, args: tuple[Any, ...]) -> Any:
        """``ruleset.<name>(state, *args)`` for a name of :data:`REMOTE_CALLS`: ``("ok",
        result)`` or an error."""
        rs, state = self._get(key, v)
        try:
            return ("ok", REMOTE_CALLS[name](rs, state, *args))
        except Exception as exc:
            return _error(exc)

    def view(self, key: str, v: int, seat: str | None, bank: dict[str, float] | None) -> Any:
        """``seat``'s view (with the clock when ``bank`` is given), pickled: ``("ok", bytes)``."""
        rs, state = self._get(key, v)
        try:
            return ("ok", pickle.dumps(seat_view(rs, state, seat, bank), protocol=pickle.HIGHEST_PROTOCOL))
        except Exception as exc:
            return _error(exc)

    def state(self, key: str, v: int) -> bytes:
        """The state itself, pickled (for pages that draw it)."""
        return pickle.dumps(self._get(key, v)[1], protocol=pickle.HIGHEST_PROTOCOL)

    def drop(self, key: str) -> None:
        """Forget match ``key``."""
        with self._lock:
            self._matches.pop(key, None)

    def pid(self) -> int:
        return os.getpid()


_HOST: MatchHost | None = None


def _the_host() -> MatchHost:
    global _HOST
    if _HOST is None:
        _HOST = MatchHost()
    return _HOST


class _HostManager(BaseManager):
    pass


_HostManager.register("MatchHost", callable=_the_host)


def _init_worker(server_pid: int) -> None:
    """Worker start-up: nothing of the server's environment, a lower CPU priority than the
    server's own process (which answers the requests): nice 19 and, on Linux, the ``SCHED_IDLE``
    policy, and a thread that ends the worker
    when the server's process ``server_pid`` is gone."""
    os.environ.clear()
    try:
        os.nice(19)
    except OSError:  # pragma: no cover
        pass
    try:  # Linux: run only on CPU time nothing else wants (the server preempts it at once)
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        pass
    threading.Thread(target=_watch, args=(server_pid,), name="botwars-rules-watch", daemon=True).start()


# ---- in the server ------------------------------------------------------------------------------
_LOST = (EOFError, OSError, KeyError, pickle.PickleError, RemoteError)
"""What a call to a worker raises when the worker or the state is gone (or cannot travel)."""


def _raise(reply: tuple[Any, ...]) -> None:
    _, cls, message, fields = reply
    exc = cls.__new__(cls)
    Exception.__init__(exc, message)
    exc.__dict__.update(fields)
    raise exc


class RemoteRules:
    """A heavy match's rule set as its referee sees it: the real ``rules`` where no state is
    involved, the worker ``host`` (slot ``slot`` of ``pool``) for everything on a
    :class:`StateRef`. ``ref`` is the referee (for its record lines when the worker is lost).
    Not a :class:`Ruleset` subclass: it implements the referee's port
    (:class:`~botwars.engine.rulesport.RulesPort`), every call written out; what needs the
    state and is not answered from the reference or in the worker is the real rule set's,
    called with the state fetched from the worker (:meth:`local`)."""

    def __init__(self, pool: "RulesPool", slot: int, key: str, rules: Ruleset, ref: Referee,
                 lock: Any = None):
        self.pool, self.slot, self.key, self.rules, self.ref = pool, slot, key, rules, ref
        self.lock = lock if lock is not None else threading.RLock()
        """The match's lock (re-entrant): taken when a lost state is rebuilt, since a page may
        ask for the state without holding it."""

    # the facts every point reads: no round trip
    def pending(self, state: Any) -> list[str]:
        return list(state.pending) if isinstance(state, StateRef) else self.rules.pending(state)

    def outcome(self, state: Any) -> Outcome | None:
        return state.outcome if isinstance(state, StateRef) else self.rules.outcome(state)

    def turn_number(self, state: Any) -> int:
        return state.turn if isinstance(state, StateRef) else self.rules.turn_number(state)

    def clock_exempt(self, state: Any) -> float | None:
        return state.exempt if isinstance(state, StateRef) else self.rules.clock_exempt(state)

    def refusal_limit(self, state: Any, seat: str) -> int | None:
        if isinstance(state, StateRef) and seat in state.limits:
            return state.limits[seat]
        return self._call(state, "refusal_limit", seat)

    def default_orders(self, state: Any, seat: str) -> Any:
        return DefaultOrders(seat) if isinstance(state, StateRef) else self.rules.default_orders(state, seat)

    # what needs the state: in the worker
    def parse_orders(self, state: Any, seat: str, payload: Any) -> Any:
        return self._call(state, "parse_orders", seat, payload)

    def view(self, state: Any, seat: str | None) -> dict[str, Any]:
        return pickle.loads(self.packed_view(state, seat, None))

    def packed_view(self, state: Any, seat: str | None, bank: dict[str, float] | None) -> bytes:
        """``seat``'s view (:meth:`Ruleset.view`, then :meth:`Ruleset.clock_view` with ``bank``
        when given), pickled, built where the state is."""
        if isinstance(state, StateRef):
            done, state = self._ask(state, lambda host, v: host.view(self.key, v, seat, bank))
            if done:
                return state
        return pickle.dumps(seat_view(self.rules, state, seat, bank), protocol=pickle.HIGHEST_PROTOCOL)

    def resolve_remote(self, state: Any, orders: dict[str, Any], history: bool
                       ) -> tuple[Any, Sequence[Event], str | None]:
        """:func:`resolve_local` where the state is: ``(new StateRef, PackedEvents, digest)``."""
        if isinstance(state, StateRef):
            nv = self.pool.next_version()
            try:
                reply = self._host().resolve_at(self.key, state.v, nv, orders, history)
            except _LOST as exc:
                state = self._lost(state, exc)
            else:
                if reply[0] != "ok":
                    _raise(reply)
                self.pool.remote += 1
                return StateRef(nv, state.lines + (1 if history else 0), reply[1]), PackedEvents(reply[2]), reply[3]
        orders = {s: self.rules.default_orders(state, o.seat) if isinstance(o, DefaultOrders) else o
                  for s, o in orders.items()}
        return resolve_local(self.rules, state, orders, history)

    def local(self, state: Any) -> Any:
        """The state itself (fetched from the worker once per reference)."""
        if not isinstance(state, StateRef):
            return state
        if state._local is None:
            try:
                state._local = pickle.loads(self._host().state(self.key, state.v))
            except _LOST as exc:
                return self._lost(state, exc)
        return state._local

    # what needs no state, or the state itself (fetched once per reference): the real rule set
    @property
    def id(self) -> str:
        return self.rules.id

    @property
    def rules_version(self) -> int:
        return self.rules.rules_version

    @property
    def replaces_submissions(self) -> bool:
        return self.rules.replaces_submissions

    @property
    def native_observations(self) -> bool:
        """``False``: a heavy match's bots get JSON views, built where the state is."""
        return False

    def order_warnings(self, orders: Any) -> list[dict[str, Any]]:
        return self.rules.order_warnings(orders)

    def orders_json(self, orders: Any) -> Any:
        return self.rules.orders_json(orders)

    def clock_view(self, view: dict[str, Any], bank_left: dict[str, float]) -> dict[str, Any]:
        return self.rules.clock_view(view, bank_left)

    def agent_seed(self, seed: int, seat: str) -> int:
        return self.rules.agent_seed(seed, seat)

    def rejected_orders(self, state: Any, seat: str, error: InvalidOrders) -> Any:
        return self.rules.rejected_orders(self.local(state), seat, error)

    def native_view(self, state: Any, seat: str) -> Any:
        return self.rules.native_view(self.local(state), seat)

    def timeout_outcome(self, state: Any, seat: str, reason: KernelReason = KernelReason.TIME) -> Outcome:
        return self.rules.timeout_outcome(self.local(state), seat, reason)

    # ---- plumbing --------------------------------------------------------------------------
    def _host(self) -> Any:
        return self.pool.host(self.slot)

    def _ask(self, state: StateRef, ask: Any) -> tuple[bool, Any]:
        """``ask(worker, state version)`` in this match's worker: ``(True, its result)``; the
        worker's error raised here; ``(False, the local state)`` when the worker cannot serve
        it (:meth:`_lost`)."""
        try:
            reply = ask(self._host(), state.v)
        except _LOST as exc:
            return False, self._lost(state, exc)
        if reply[0] != "ok":
            _raise(reply)
        return True, reply[1]

    def _call(self, state: Any, name: str, *args: Any) -> Any:
        if isinstance(state, StateRef):
            done, state = self._ask(state, lambda host, v: host.call(self.key, v, name, args))
            if done:
                return state
        return REMOTE_CALLS[name](self.rules, state, *args)

    def _lost(self, state: StateRef, exc: BaseException) -> Any:
        """The worker cannot serve ``state``: rebuild it in this process from the referee's
        record lines (digests checked); when it is the referee's current state, the referee
        holds the local state from then on (this object answers for a local state with the real
        rule set) and the match goes on in-process. Returns the local state.
        Raises :class:`RulesUnavailable` when the lines do not re-simulate."""
        with self.lock:
            return self._rebuild(state, exc)

    def _rebuild(self, state: StateRef, exc: BaseException) -> Any:
        ref = self.ref
        local = state._local  # known already (the adopted state, or one a page fetched)
        if local is None:
            log.warning("rules pool: match %s lost in its worker (%s); re-simulating it here", self.key,
                        type(exc).__name__)
            rebuilt = Referee(self.rules, ref.config, ref.seats, ref.seed, clock=ref.clock_enabled,
                              agents=ref.agents, keep_free_refusals=ref.keep_free_refusals)
            try:
                replay_all(rebuilt, ref.lines[:state.lines])
            except BotwarsError as err:
                raise RulesUnavailable(f"match {self.key}: its worker is lost and its record does not "
                                       f"re-simulate ({err})") from None
            local = state._local = rebuilt.state
            self.pool.lost += 1
        if ref.state is state:  # this rule set answers for a local state with the real one
            ref.state = local
        return local


def remote_resolver(rs: Any, state: Any, orders: dict[str, Any], history: bool
                    ) -> tuple[Any, Sequence[Event], str | None]:
    """The :data:`~botwars.engine.referee.Resolver` of a heavy match's referee:
    :meth:`RemoteRules.resolve_remote` (or :func:`resolve_local` once the referee has its own
    rule set back)."""
    if isinstance(rs, RemoteRules):
        return rs.resolve_remote(state, orders, history)
    return resolve_local(rs, state, orders, history)


class RulesPool:
    """Worker processes that hold heavy matches' states and resolve their decision points.

    ``workers``: processes (default :data:`DEFAULT_WORKERS`). :meth:`start` before use,
    :meth:`stop` at the end. Thread-safe; calls block the calling thread (never call them on
    the event loop). A worker that died is started again at the next :meth:`adopt`.
    """

    def __init__(self, workers: int | None = None):
        self.workers = workers or DEFAULT_WORKERS
        self._managers: list[Any] = []
        self._hosts: list[Any] = []
        self._load: list[int] = []
        self._lock = threading.Lock()
        self._versions = itertools.count(1)
        self._ctx: Any = None
        self.remote = 0
        """Decision points resolved in a worker (for tests and the benchmark)."""
        self.lost = 0
        """States rebuilt in-process because a worker could not serve them."""

    def start(self) -> None:
        """Start the workers (forkserver, the games' modules loaded once)."""
        with self._lock:
            if self._hosts:
                return
            from botwars.server.botpool import bot_modules
            if "forkserver" in multiprocessing.get_all_start_methods():
                ctx = multiprocessing.get_context("forkserver")
                ctx.set_forkserver_preload(["__main__", __name__, *bot_modules()])
            else:  # pragma: no cover - platforms without fork
                ctx = multiprocessing.get_context("spawn")
            self._ctx = ctx
            for _ in range(self.workers):
                m, h = self._spawn()
                self._managers.append(m)
                self._hosts.append(h)
                self._load.append(0)

    def _spawn(self) -> tuple[Any, Any]:
        m = _HostManager(ctx=self._ctx)
        m.start(_init_worker, (os.getpid(),))
        return m, m.MatchHost()

    def stop(self) -> None:
        """Stop the workers (a match still using one is re-simulated in-process if it is used)."""
        with self._lock:
            managers, self._managers, self._hosts, self._load = self._managers, [], [], []
        for m in managers:
            try:
                m.shutdown()
            except Exception:  # pragma: no cover - already gone
                pass

    @property
    def running(self) -> bool:
        return bool(self._hosts)

    def next_version(self) -> int:
        return next(self._versions)

    def host(self, slot: int) -> Any:
        """The proxy of worker ``slot``; raises ``EOFError`` once the pool is stopped."""
        hosts = self._hosts
        if slot >= len(hosts):
            raise EOFError("the rules pool is stopped")
        return hosts[slot]

    def pids(self) -> list[int]:
        """Process ids of the workers (for tests)."""
        return [m._process.pid for m in self._managers]

    def adopt(self, key: str, ref: Referee, lock: Any = None) -> bool:
        """Move match ``key`` (its referee ``ref``, holding a state of this process) into the
        worker with the fewest matches: the state travels once; from then on ``ref.state`` is a
        :class:`StateRef`, ``ref.ruleset`` a :class:`RemoteRules` and ``ref.resolver``
        :func:`remote_resolver`. Returns ``False`` (and changes nothing) when no worker can take
        it (the pool is stopped, the game is not loaded there, a state that cannot be pickled).
        ``lock``: the match's re-entrant lock (see :attr:`RemoteRules.lock`)."""
        port = ref.ruleset
        if isinstance(ref.state, StateRef) or not self._hosts:
            return False
        # the real rule set (a referee back from a lost worker still holds its RemoteRules)
        rules = port.rules if isinstance(port, RemoteRules) else port
        if not isinstance(rules, Ruleset):
            return False
        with self._lock:
            if not self._hosts:
                return False
            slot = min(range(len(self._hosts)), key=lambda i: self._load[i])
            m = self._managers[slot]
            if m._process is None or not m._process.is_alive():
                try:
                    self._managers[slot], self._hosts[slot] = self._spawn()
                except Exception as exc:  # pragma: no cover - cannot start a process
                    log.warning("rules pool: cannot restart a worker (%s)", exc)
                    return False
            host = self._hosts[slot]
        v = self.next_version()
        try:
            facts = host.adopt(key, rules.id, pickle.dumps(ref.state, protocol=pickle.HIGHEST_PROTOCOL), v)
        except Exception as exc:
            log.warning("rules pool: match %s stays in-process (%s: %s)", key, type(exc).__name__, exc)
            return False
        with self._lock:
            if slot < len(self._load):
                self._load[slot] += 1
        sref = StateRef(v, len(ref.lines), facts)
        sref._local = ref.state
        ref.ruleset = RemoteRules(self, slot, key, rules, ref, lock)
        ref.state = sref
        ref.resolver = remote_resolver
        return True
