"""The arena bot protocol (P1–P14): text and JSON observations and responses.

Parsing here implements P5–P8 and P12; :class:`BotwarsIoAgent` implements the `text`
transport (P2, P3): a fresh process per turn fed the P4 line.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from botwars.engine.agent import Agent, AgentFailure, AgentTools
from botwars.engine.codes import FailureCode, RefusalCode
from botwars.engine.errors import InvalidOrders

Square = tuple[int, int]
DIRS = {"N": (0, 1), "E": (1, 0), "S": (0, -1), "W": (-1, 0)}
# P5: X and Y are 1-3 ASCII digits (``\d`` would also accept other scripts' digits, and ``$``
# a trailing LF): match the whole piece with explicit ASCII classes.
_TOKEN = re.compile(r"([0-9]{1,3}):([0-9]{1,3})-([MADSmads])(?:-([NESWnesw]))?")


@dataclass(slots=True)
class ArenaOrders:
    """Accepted orders of one player for one turn (P8).

    ``orders`` maps a robot's square to ``(action, direction)`` with action in ``M A D S`` and
    direction in ``N E S W`` or ``None``; ``user_data`` is the new stored user data, or ``None``
    to keep it unchanged (P10); ``errors`` lists ignored tokens and warnings (P14).
    """

    orders: dict[Square, tuple[str, str | None]] = field(default_factory=dict)
    user_data: str | None = None
    errors: list[dict[str, Any]] = field(default_factory=list)


def _printable(s: str) -> bool:
    """Only characters 0x20-0x7E (P6, P12)."""
    return s.isascii() and s.isprintable()


def _malformed(detail: str, part: object = None) -> InvalidOrders:
    return InvalidOrders(detail, code=RefusalCode.MALFORMED, part=part)


def parse_text_response(text: str, max_chars: int = 8192) -> tuple[list[tuple[str, Square, str, str | None]], str | None]:
    """Split a P5 text response into tokens ``(raw, square, action, dir)`` and USER (or None).

    Raises :class:`InvalidOrders` (``malformed``) per P6.
    """
    if len(text) > max_chars:
        raise _malformed(f"response longer than {max_chars} characters")
    orders_part, sep, user = text.partition("#")
    if sep and not _printable(user):
        raise _malformed("user data contains a character outside 0x20-0x7E")
    tokens = []
    for piece in orders_part.split(","):
        piece = piece.strip(" \t")
        if not piece:
            continue
        m = _TOKEN.fullmatch(piece)
        if not m:
            raise _malformed(f"bad token {piece!r}", piece)
        a = m.group(3).upper()
        d = m.group(4).upper() if m.group(4) else None
        if a in "MA" and d is None:
            raise _malformed(f"bad token {piece!r}: {a} needs a direction", piece)
        if a in "DS":
            d = None  # H22: a direction after D or S is ignored
        tokens.append((piece, (int(m.group(1)), int(m.group(2))), a, d))
    return tokens, (user if sep else None)


_ACTIONS = {"M": "M", "A": "A", "D": "D", "S": "S", "m": "M", "a": "A", "d": "D", "s": "S"}
_DIRS = {"N": "N", "E": "E", "S": "S", "W": "W", "n": "N", "e": "E", "s": "S", "w": "W"}
_ORDER_KEYS = frozenset(("x", "y", "action", "dir"))
_TOP_KEYS = frozenset(("orders", "user_data"))
# Longest compact JSON of one order object holding only known, valid keys:
# {"x":999,"y":999,"action":"M","dir":null} is 41 characters, plus a separating comma.
_ORDER_MAX = 42


def _show(v: Any) -> str:
    """A JSON value for an error message (never raises)."""
    try:
        return json.dumps(v)
    except (TypeError, ValueError):
        return type(v).__name__


def _fast_json(obj: Any, max_chars: int) -> tuple[list[tuple[None, Square, str, str | None]], str | None] | None:
    """The common case of :func:`parse_json_response`: plain, valid, short. ``None`` otherwise.

    Anything unusual (unknown keys, wrong types, a response that might exceed the length limit)
    returns ``None`` (or raises TypeError, for unhashable values) and is left to the full
    validator, which gives the exact error. Both accept exactly the same responses.
    """
    if type(obj) is not dict or not obj.keys() <= _TOP_KEYS:
        return None
    orders = obj.get("orders")
    if type(orders) is not list:
        return None
    user = obj.get("user_data")
    if user is not None and (type(user) is not str or not (user.isascii() and user.isprintable())):
        return None
    if 13 + _ORDER_MAX * len(orders) + (17 if user is None else 17 + 2 * len(user)) > max_chars:
        return None
    actions = _ACTIONS
    dirs = _DIRS
    keys = _ORDER_KEYS
    tokens = []
    append = tokens.append
    for o in orders:
        if type(o) is not dict or not o.keys() <= keys:
            return None
        x = o.get("x")
        y = o.get("y")
        if type(x) is not int or type(y) is not int or not (0 <= x <= 999 and 0 <= y <= 999):
            return None
        a = actions.get(o.get("action"))
        if a is None:
            return None
        d = o.get("dir")
        if a == "M" or a == "A":
            d = dirs.get(d)
            if d is None:
                return None
        elif d is not None:
            if dirs.get(d) is None:
                return None
            d = None  # H22, H27
        append((None, (x, y), a, d))
    return tokens, user


def fast_accept_json(obj: Any, robots: dict[Square, tuple[int, int, int]], player: int, max_chars: int,
                     user_max: int) -> ArenaOrders | None:
    """P12 + P7 + P8 in one pass for the common case: a plain, valid, short JSON response.

    ``robots`` maps square → ``(id, player, hp)`` at the start of the turn. Returns exactly what
    ``accept(*parse_json_response(obj, max_chars), own, user_max)`` returns, or ``None`` when
    the response is anything but plain (then the caller takes that general path, which also
    produces the error of a malformed response). May raise TypeError for unhashable values.
    """
    parsed = _fast_json(obj, max_chars)
    if parsed is None:
        return None
    tokens, user = parsed
    accepted: dict[Square, tuple[str, str | None]] = {}
    errors: list[dict[str, Any]] = []
    for _, sq, a, d in tokens:
        r = robots.get(sq)
        if r is None or r[1] != player:
            errors.append({"code": "no_robot", "detail": _raw(sq, a, d)})
        elif sq in accepted:
            errors.append({"code": "duplicate", "detail": _raw(sq, a, d)})
        else:
            accepted[sq] = (a, d)
    if user is None:
        user = ""  # H19
    elif len(user) > user_max:
        errors.append({"code": "user_data_truncated", "detail": f"{len(user)} characters"})
        user = user[:user_max]  # H20
    return ArenaOrders(accepted, user, errors)


def parse_json_response(obj: Any, max_chars: int = 8192) -> tuple[list[tuple[str | None, Square, str, str | None]], str | None]:
    """Validate a P12 JSON response (a decoded object); same result shape as :func:`parse_text_response`.

    The length limit (P12: ``max_output_chars``) applies to the compact JSON line of ``obj``.
    Hot path: when every key is a known one, that length is bounded from the order count and
    the user data without serialising; only larger or unusual responses are serialised. A
    value that cannot be serialised as JSON at all is malformed. Tokens carry ``None`` as their
    raw text (it is rebuilt by :func:`accept` only when an error needs it).
    Raises :class:`InvalidOrders` (``malformed``) per P12.
    """
    try:
        fast = _fast_json(obj, max_chars)
    except TypeError:  # an unhashable action or dir: the full validator names it
        fast = None
    if fast is not None:
        return fast
    return _full_json(obj, max_chars)


def _full_json(obj: Any, max_chars: int) -> tuple[list[tuple[None, Square, str, str | None]], str | None]:
    """The complete P12 validator behind :func:`parse_json_response` (exact error messages)."""
    if type(obj) is not dict and not isinstance(obj, dict):
        raise _malformed("response is not a JSON object")
    orders = obj.get("orders")
    if type(orders) is not list and not isinstance(orders, list):
        raise _malformed("response lacks an 'orders' array")
    tokens = []
    simple = len(obj) <= 2 and _TOP_KEYS.issuperset(obj)
    actions = _ACTIONS
    dirs = _DIRS
    for i, o in enumerate(orders):
        if type(o) is not dict and not isinstance(o, dict):
            raise _malformed(f"orders[{i}] is not an object", f"orders[{i}]")
        x = o.get("x")
        y = o.get("y")
        if type(x) is not int or not 0 <= x <= 999 or type(y) is not int or not 0 <= y <= 999:
            k, v = ("x", x) if type(x) is not int or not 0 <= x <= 999 else ("y", y)
            raise _malformed(f"orders[{i}].{k} must be an integer 0..999, got {_show(v)}", f"orders[{i}]")
        a = o.get("action")
        a = actions.get(a) if type(a) is str else None
        if a is None:
            raise _malformed(f"orders[{i}].action must be M, A, D or S, got {_show(o.get('action'))}",
                             f"orders[{i}]")
        d = o.get("dir")
        if d is not None:
            dd = dirs.get(d) if type(d) is str else None
            if dd is None:
                raise _malformed(f"orders[{i}].dir must be N, E, S or W, got {_show(d)}", f"orders[{i}]")
            d = dd if a == "M" or a == "A" else None  # H22: ignored on D and S
        elif a == "M" or a == "A":
            raise _malformed(f"orders[{i}]: {a} needs a dir", f"orders[{i}]")
        if simple and (len(o) > 4 or not _ORDER_KEYS.issuperset(o)):
            simple = False
        tokens.append((None, (x, y), a, d))
    user = obj.get("user_data")
    if user is not None:
        if type(user) is not str and not isinstance(user, str):
            raise _malformed("user_data must be a string or null")
        if not (user.isascii() and user.isprintable()):
            raise _malformed("user_data contains a character outside 0x20-0x7E")
    # compact JSON: {"orders":[...],"user_data":"..."}; printable ASCII escapes to <= 2 chars each
    bound = 13 + _ORDER_MAX * len(tokens) + (15 + 2 * len(user) + 2 if user is not None else 17)
    if not simple or bound > max_chars:
        try:
            size = len(json.dumps(obj, separators=(",", ":")))
        except (TypeError, ValueError) as exc:
            raise _malformed(f"response is not JSON: {exc}") from None
        if size > max_chars:
            raise _malformed(f"response longer than {max_chars} characters")
    return tokens, user


def _raw(sq: Square, a: str, d: str | None) -> str:
    return f"{sq[0]}:{sq[1]}-{a}-{d}" if d else f"{sq[0]}:{sq[1]}-{a}"


def accept(tokens: list[tuple[str, Square, str, str | None]], user: str | None, own: set[Square],
           user_max: int) -> ArenaOrders:
    """P7 and P8: accepted orders, ignored tokens and the new user data."""
    orders: dict[Square, tuple[str, str | None]] = {}
    errors: list[dict[str, Any]] = []
    for raw, sq, a, d in tokens:
        if sq not in own:
            errors.append({"code": "no_robot", "detail": raw or _raw(sq, a, d)})
        elif sq in orders:
            errors.append({"code": "duplicate", "detail": raw or _raw(sq, a, d)})
        else:
            orders[sq] = (a, d)
    if user is None:
        user = ""  # H19
    elif len(user) > user_max:
        errors.append({"code": "user_data_truncated", "detail": f"{len(user)} characters"})
        user = user[:user_max]  # H20
    return ArenaOrders(orders, user, errors)


def text_observation(view: dict[str, Any]) -> str:
    """The P4 input line for a P11 view (no trailing LF)."""
    robots = ",".join(f"{r['side']}-{r['x']}:{r['y']}-{r['hp']}" for r in view["robots"])
    return f"{view['turn']},{view['max_turns']},{view['player']}#{robots}#{view['user_data']}"


def text_orders(orders: ArenaOrders) -> str:
    """The P5 text form of accepted orders (without user data)."""
    parts = []
    for (x, y), (a, d) in orders.orders.items():
        parts.append(f"{x}:{y}-{a}" + (f"-{d}" if d else ""))
    return ",".join(parts)


class BotwarsIoAgent(Agent):
    """The BotWars.io V2 `text` transport (P1a, P2, P3): a fresh process every turn.

    Each turn the program is started afresh in the sandbox (``tools.run_once``, i.e. :mod:`botwars.agents.sandbox`:
    bubblewrap namespaces, seccomp, ``memory_limit_mib`` and the other rlimits, a pids cgroup,
    an environment without the engine's variables; ``docs/sandbox.md``), gets the P4 line and
    LF on stdin, then EOF, and must exit within the deadline (P2); whatever it started is killed
    when it exits. The response is
    stdout up to the first LF with one trailing CR removed (all of stdout if it has no LF);
    stderr is ignored except for error details. Failures (P3, P6):

    - still running at the deadline: the program and everything it started is killed, ``timeout``;
    - cannot be started or exit status ≠ 0: ``crash`` (``memory`` when it died of the memory
      limit), with the exit status and the last stderr line;
    - response not valid UTF-8, or longer than ``max_output_chars``: ``malformed``.
    """

    def __init__(self, argv: list[str], spec: str = "", *, tools: AgentTools):
        self.argv = argv
        self.spec = spec
        self.tools = tools
        self.memory_limit_mib: int | None = 512
        self.max_output_chars = 8192

    def start(self, game: str, seat: str, config: dict[str, Any], seed: int = 0) -> None:
        """Take ``memory_limit_mib`` and ``max_output_chars`` from the match configuration."""
        self.memory_limit_mib = config.get("memory_limit_mib", self.memory_limit_mib)
        self.max_output_chars = config.get("max_output_chars", self.max_output_chars)

    def act(self, view: dict[str, Any], deadline_s: float | None) -> Any:
        line = text_observation(view) + "\n"
        cap = self.max_output_chars * 4 + 2  # UTF-8: at most 4 bytes a character, plus CR LF
        try:
            res = self.tools.run_once(self.argv, line.encode("utf-8"), deadline_s, max_stdout=cap,
                                   memory_limit_mib=self.memory_limit_mib)
        except OSError as exc:
            raise AgentFailure(FailureCode.CRASH, f"cannot start {self.argv[0]}: {exc.strerror or exc}") from None
        if res.timed_out:
            raise AgentFailure(FailureCode.TIMEOUT, f"still running after {deadline_s:g} s")
        if res.returncode != 0:
            code, detail = self.tools.exit_failure(res.returncode, res.stderr_tail)
            raise AgentFailure(code, detail)
        first, nl, _ = res.stdout.partition(b"\n")
        if not nl and res.overflow:
            raise AgentFailure(FailureCode.MALFORMED, f"response longer than {self.max_output_chars} characters")
        if first.endswith(b"\r"):
            first = first[:-1]
        try:
            return first.decode("utf-8")
        except UnicodeDecodeError:
            raise AgentFailure(FailureCode.MALFORMED, "response is not valid UTF-8") from None
