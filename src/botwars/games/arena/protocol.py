"""The arena bot protocol (P1–P14): text and JSON observations and responses.

Parsing here implements P5–P8 and P12; :class:`BotwarsIoAgent` implements the `text`
transport (P2, P3): a fresh process per turn fed the P4 line.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
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

    The process gets the P4 line on stdin (then EOF) and must exit within the deadline; its
    response is stdout up to the first LF (one trailing CR removed). Exit status ≠ 0 is
    ``crash``; running past the deadline is ``timeout`` (killed); undecodable output is
    ``malformed``.
    """

    def __init__(self, argv: list[str], spec: str = ""):
        self.argv = argv
        self.spec = spec

    def act(self, view: dict[str, Any], deadline_s: float | None) -> Any:
        line = text_observation(view) + "\n"
        try:
            proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.DEVNULL, start_new_session=True)
        except OSError as exc:
            raise AgentFailure("crash", f"cannot start {self.argv[0]}: {exc.strerror}") from None
        try:
            out, _ = proc.communicate(line.encode(), timeout=deadline_s)
        except subprocess.TimeoutExpired:
            _kill(proc)
            raise AgentFailure("timeout", f"still running after {deadline_s:g} s") from None
        if proc.returncode != 0:
            raise AgentFailure("crash", f"exit status {proc.returncode}")
        first = out.split(b"\n", 1)[0]
        if first.endswith(b"\r"):
            first = first[:-1]
        try:
            return first.decode("utf-8")
        except UnicodeDecodeError:
            raise AgentFailure("malformed", "response is not valid UTF-8") from None


def _kill(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, 9)
    except OSError:
        proc.kill()
    try:
        proc.communicate(timeout=2)
    except Exception:
        pass
