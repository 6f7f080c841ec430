"""The arena bot protocol (P1–P14): text and JSON observations and responses.

Parsing here implements P5–P8 and P12; :class:`BotwarsIoAgent` implements the `text`
transport (P2, P3): a fresh process per turn fed the P4 line.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from botwars.agents.base import Agent, AgentFailure
from botwars.engine.errors import InvalidOrders

Square = tuple[int, int]
DIRS = {"N": (0, 1), "E": (1, 0), "S": (0, -1), "W": (-1, 0)}
_TOKEN = re.compile(r"^(\d{1,3}):(\d{1,3})-([MADS])(?:-([NESW]))?$", re.IGNORECASE)


@dataclass
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
    return all(0x20 <= ord(c) <= 0x7E for c in s)


def _malformed(detail: str, part: object = None) -> InvalidOrders:
    return InvalidOrders(detail, code="malformed", part=part)


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
        m = _TOKEN.match(piece)
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


def parse_json_response(obj: Any, max_chars: int = 8192) -> tuple[list[tuple[str, Square, str, str | None]], str | None]:
    """Validate a P12 JSON response; same result shape as :func:`parse_text_response`."""
    if len(json.dumps(obj, separators=(",", ":"))) > max_chars:
        raise _malformed(f"response longer than {max_chars} characters")
    if not isinstance(obj, dict):
        raise _malformed("response is not a JSON object")
    orders = obj.get("orders")
    if not isinstance(orders, list):
        raise _malformed("response lacks an 'orders' array")
    tokens = []
    for i, o in enumerate(orders):
        where = f"orders[{i}]"
        if not isinstance(o, dict):
            raise _malformed(f"{where} is not an object", where)
        for k in ("x", "y"):
            v = o.get(k)
            if type(v) is not int or not 0 <= v <= 999:
                raise _malformed(f"{where}.{k} must be an integer 0..999, got {json.dumps(v)}", where)
        a = o.get("action")
        if not isinstance(a, str) or a.upper() not in ("M", "A", "D", "S"):
            raise _malformed(f"{where}.action must be M, A, D or S, got {json.dumps(a)}", where)
        a = a.upper()
        d = o.get("dir")
        if d is None:
            if a in "MA":
                raise _malformed(f"{where}: {a} needs a dir", where)
        elif not isinstance(d, str) or d.upper() not in DIRS:
            raise _malformed(f"{where}.dir must be N, E, S or W, got {json.dumps(d)}", where)
        else:
            d = d.upper()
        if a in "DS":
            d = None
        raw = f"{o['x']}:{o['y']}-{a}" + (f"-{d}" if d else "")
        tokens.append((raw, (o["x"], o["y"]), a, d))
    user = obj.get("user_data")
    if user is not None:
        if not isinstance(user, str):
            raise _malformed("user_data must be a string or null")
        if not _printable(user):
            raise _malformed("user_data contains a character outside 0x20-0x7E")
    return tokens, user


def accept(tokens: list[tuple[str, Square, str, str | None]], user: str | None, own: set[Square],
           user_max: int) -> ArenaOrders:
    """P7 and P8: accepted orders, ignored tokens and the new user data."""
    out = ArenaOrders()
    for raw, sq, a, d in tokens:
        if sq not in own:
            out.errors.append({"code": "no_robot", "detail": raw})
        elif sq in out.orders:
            out.errors.append({"code": "duplicate", "detail": raw})
        else:
            out.orders[sq] = (a, d)
    if user is None:
        out.user_data = ""  # H19
    elif len(user) > user_max:
        out.user_data = user[:user_max]  # H20
        out.errors.append({"code": "user_data_truncated", "detail": f"{len(user)} characters"})
    else:
        out.user_data = user
    return out


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

    Each turn the program is started afresh in the sandbox (:mod:`botwars.agents.sandbox`:
    own process group, ``memory_limit_mib``, no network where the OS allows it), gets the P4
    line and LF on stdin, then EOF, and must exit within the deadline (P2). The response is
    stdout up to the first LF with one trailing CR removed (all of stdout if it has no LF);
    stderr is ignored except for error details. Failures (P3, P6):

    - still running at the deadline: the whole process group is killed, ``timeout``;
    - cannot be started or exit status ≠ 0: ``crash`` (``memory`` when it died of the memory
      limit), with the exit status and the last stderr line;
    - response not valid UTF-8, or longer than ``max_output_chars``: ``malformed``.
    """

    def __init__(self, argv: list[str], spec: str = ""):
        self.argv = argv
        self.spec = spec
        self.memory_limit_mib: int | None = 512
        self.max_output_chars = 8192

    def start(self, game: str, seat: str, config: dict[str, Any], seed: int = 0) -> None:
        """Take ``memory_limit_mib`` and ``max_output_chars`` from the match configuration."""
        self.memory_limit_mib = config.get("memory_limit_mib", self.memory_limit_mib)
        self.max_output_chars = config.get("max_output_chars", self.max_output_chars)

    def act(self, view: dict[str, Any], deadline_s: float | None) -> Any:
        from botwars.agents import sandbox
        line = text_observation(view) + "\n"
        cap = self.max_output_chars * 4 + 2  # UTF-8: at most 4 bytes a character, plus CR LF
        try:
            res = sandbox.run_once(self.argv, line.encode("utf-8"), deadline_s, max_stdout=cap,
                                   memory_limit_mib=self.memory_limit_mib)
        except OSError as exc:
            raise AgentFailure("crash", f"cannot start {self.argv[0]}: {exc.strerror or exc}") from None
        if res.timed_out:
            raise AgentFailure("timeout", f"still running after {deadline_s:g} s")
        if res.returncode != 0:
            code, detail = sandbox.exit_failure(res.returncode, res.stderr_tail)
            raise AgentFailure(code, detail)
        first, nl, _ = res.stdout.partition(b"\n")
        if not nl and res.overflow:
            raise AgentFailure("malformed", f"response longer than {self.max_output_chars} characters")
        if first.endswith(b"\r"):
            first = first[:-1]
        try:
            return first.decode("utf-8")
        except UnicodeDecodeError:
            raise AgentFailure("malformed", "response is not valid UTF-8") from None
