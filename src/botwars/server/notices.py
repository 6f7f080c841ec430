"""Turn notices (issue 14 item 3): e-mail and webhooks telling a seat's player that it is their
move, reminding them before the deadline, and telling them the result.

**Registration.** A seat's player registers an e-mail address and/or a webhook URL with the
seat's token (``POST /api/matches/{id}/notices``); only that token reads them back (``GET``) or
removes them (``DELETE``). A webhook registration answers a fresh per-seat secret once; every
webhook request carries ``X-Botwars-Signature: sha256=HEX``, the HMAC-SHA256 of the raw body
under that secret (docs/server.md, "Turn notices").

**What a notice says.** Only public facts and facts about the seat itself: the match id, game,
seat, decision point and turn numbers, the seat's deadline (server time), a link, and at the end
the public result (``outcome`` as ``GET /api/matches/{id}`` shows it). Never a view, an event,
another seat's orders or anything the rules hide.

**The queue.** The game path only *observes*: :meth:`NoticeService.observe` (called through the
manager's ``notify`` hook after every change) compares the match's decision counter with the
last one it saw and, when a point opened or the match ended, puts a small tuple on an in-memory
queue. A background thread (its own asyncio loop) turns those into rows of the ``notices`` table
(one per seat, channel, kind and point; a unique key makes that idempotent, so a restart, which
re-observes every watched match, never sends a notice twice) and delivers the rows that are due:
``move`` and ``result`` at once, ``reminder`` rows at ``deadline - offset`` (offsets from
``BOTWARS_NOTICE_REMINDERS``, default 24 h and 1 h). A failed delivery is logged (never with a
password) and tried again after ``retry_s * 2**(attempts-1)`` seconds (capped at
``retry_max_s``) until ``max_attempts``; a move or reminder whose point has closed, or whose
seat has moved, is cancelled instead of sent. Nothing the game does waits on a mail server or a
webhook.

**Who may be mailed (issue 25 item 6).** Notices are off unless the operator sets
``BOTWARS_PUBLIC_URL``: every link in a notice is built from it, never from the ``Host`` a
request named. An e-mail address is mailed nothing but one confirmation link (``GET
/notices/confirm?token=...``, the answer ``POST /api/notices/confirm``) until its owner agrees;
an owner who declines is never mailed again. One match may ask at most ``confirms_per_match``
addresses, and one address (e-mail or webhook URL) may be registered in at most
``matches_per_address`` running matches.

**Webhook addresses (issue 25 item 7).** A URL must be ``http`` or ``https`` on port 80 or 443
(``BOTWARS_WEBHOOK_PORTS`` allows others). Its host is resolved at registration and again before
every delivery, and refused when any address is not global unicast (loopback, private,
link-local, shared, reserved, multicast) or is an IPv6 form that embeds such an IPv4 address
(mapped, compatible, NAT64, 6to4, Teredo: :func:`embedded_ipv4`), unless the operator allows it
with ``BOTWARS_WEBHOOK_ALLOW`` (a comma-separated list of networks such as
``127.0.0.0/8,10.1.0.0/16``, or ``any``). The connection goes to the address that was checked
(the host name is kept for ``Host`` and TLS), and redirects are not followed, so a stranger
cannot make the server probe an internal address.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import ipaddress
import json
import logging
import os
import queue
import secrets
import socket
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from email.message import EmailMessage
from typing import Any, Callable, Mapping, Optional
from urllib.parse import urlsplit

from fastapi import Depends
from pydantic import BaseModel, ConfigDict, EmailStr, Field, HttpUrl, field_validator
from sqlalchemy import delete, func, select, update

from botwars.engine.errors import ConfigError
from botwars.engine.ruleset import canonical_json
from botwars.render.palette import seat_colours
from botwars.server.manager import ApiError
from botwars.server.names import label
from botwars.store import Store
from botwars.store.models import MatchRow, NoticeAddressRow, NoticeRegistrationRow, NoticeRow, OrderRow

log = logging.getLogger("botwars.server.notices")

CHANNELS = ("email", "webhook")
SIGNATURE_HEADER = "X-Botwars-Signature"
"""Header of every webhook request: ``sha256=`` and the hex HMAC-SHA256 of the raw body."""

MAX_EMAIL_CHARS = 254
MAX_URL_CHARS = 2048
MAX_ERROR_CHARS = 500

NOTICES_OFF = ("BOTWARS_PUBLIC_URL is not set (the address players open this server at; the links in "
               "notices lead there, never to the address a request named)")
"""Why notices are off without a public URL (logged at start, and the 409 of a registration)."""


# ---- settings ------------------------------------------------------------------------------
PBEM_REMINDER_S = 2 * 86_400.0
"""A decision point of :data:`PBEM_MIN_S` or more (play by e-mail: the lobby's 5-day preset)
also gets a reminder this long before its deadline (issue 24 item 6)."""
PBEM_MIN_S = 4 * 86_400.0


def reminder_offsets(configured: tuple[float, ...] | list[float], deadline: Optional[float],
                     opened: float) -> list[float]:
    """Seconds before ``deadline`` (server time) at which a seat is reminded: the server's
    ``BOTWARS_NOTICE_REMINDERS``, plus two days (:data:`PBEM_REMINDER_S`) for a point that
    allows four days or more from ``opened``; none without a deadline."""
    if deadline is None:
        return []
    out = list(configured)
    if deadline - opened >= PBEM_MIN_S and PBEM_REMINDER_S not in out:
        out.append(PBEM_REMINDER_S)
    return out


_SUMMARY_WORDS = {"hp": "HP", "robots_left": "robots left", "hand_size": "cards in hand", "time_left_s": "time left"}


def summary_text(summary: dict[str, Any]) -> str:
    """A seat's private summary in words: ``"HP 7, robots left 2, cards in hand 9, time left
    23:59:00"`` (times as ``[D d ]H:MM:SS``)."""
    parts = []
    known = [k for k in _SUMMARY_WORDS if k in summary]
    for k in known[:-1] + sorted(k for k in summary if k not in _SUMMARY_WORDS) + known[-1:]:
        v = summary[k]
        if k == "time_left_s" and isinstance(v, (int, float)):
            s = int(v)
            d, h, m, x = s // 86400, s // 3600 % 24, s // 60 % 60, s % 60
            v = (f"{d} d " if d else "") + f"{h}:{m:02d}:{x:02d}"
        parts.append(f"{_SUMMARY_WORDS.get(k, k.replace('_', ' '))} {v}")
    return ", ".join(parts)


def parse_duration(text: str) -> float:
    """Seconds in ``text``: a number with an optional unit ``s``, ``m``, ``h`` or ``d``
    (``"24h"`` → 86400.0). Raises ``ValueError`` naming the text."""
    t = text.strip().lower()
    mult = {"s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}.get(t[-1:], None)
    num = t[:-1] if mult is not None else t
    try:
        v = float(num) * (mult or 1.0)
    except ValueError:
        raise ValueError(f"not a duration: {text!r} (e.g. 24h, 90m, 30s)") from None
    if not v > 0 or v != v or v == float("inf"):
        raise ValueError(f"not a positive duration: {text!r}")
    return v


@dataclass(frozen=True)
class NoticeSettings:
    """How this server sends notices (every field from the environment: :meth:`from_env`).

    Mail: ``smtp_host`` (``None``: no mail; e-mail registrations are refused), ``smtp_port``,
    ``smtp_user``/``smtp_password`` (login when a user is set), ``smtp_from``, ``smtp_starttls``
    (upgrade with STARTTLS, the default), ``smtp_tls`` (implicit TLS, port 465),
    ``smtp_timeout_s``. Reminders: ``reminders_s``, seconds before the deadline (default 24 h
    and 1 h). Webhooks: ``webhook_allow`` (networks a webhook may reach though not global;
    ``any_address`` allows every address), ``webhook_timeout_s``, ``webhook_tries`` (tries
    within one attempt, exponential back-off from ``webhook_backoff_s``). The queue:
    ``retry_s``/``retry_max_s`` (back-off between attempts, seconds), ``max_attempts``,
    ``poll_s`` (how often the worker looks for due notices). ``public_url``: the base of every
    link in a notice and of the confirmation link (issue 25 item 6); without it notices are
    off (never the ``Host`` a request named). ``webhook_ports``: the ports a webhook URL may
    name (default 80 and 443; ``any_port``: every one). ``confirms_per_match``: how many
    e-mail addresses one match may ask to confirm; ``matches_per_address``: in how many running
    matches one address (e-mail or webhook URL) may be registered at once.
    """

    smtp_host: Optional[str] = None
    smtp_port: int = 587
    smtp_user: Optional[str] = None
    smtp_password: Optional[str] = field(default=None, repr=False)
    smtp_from: str = "botwars@localhost"
    smtp_starttls: bool = True
    smtp_tls: bool = False
    smtp_timeout_s: float = 30.0
    reminders_s: tuple[float, ...] = (86400.0, 3600.0)
    webhook_allow: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = ()
    any_address: bool = False
    webhook_timeout_s: float = 10.0
    webhook_tries: int = 3
    webhook_backoff_s: float = 0.5
    retry_s: float = 60.0
    retry_max_s: float = 3600.0
    max_attempts: int = 10
    poll_s: float = 1.0
    public_url: Optional[str] = None
    webhook_ports: tuple[int, ...] = (80, 443)
    any_port: bool = False
    confirms_per_match: int = 4
    matches_per_address: int = 20

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "NoticeSettings":
        """Settings from ``env`` (default ``os.environ``):

        ``BOTWARS_SMTP_HOST``, ``BOTWARS_SMTP_PORT``, ``BOTWARS_SMTP_USER``,
        ``BOTWARS_SMTP_PASSWORD``, ``BOTWARS_SMTP_FROM``, ``BOTWARS_SMTP_STARTTLS`` (``1``/``0``),
        ``BOTWARS_SMTP_TLS``, ``BOTWARS_SMTP_TIMEOUT``, ``BOTWARS_NOTICE_REMINDERS`` (``24h,1h``;
        empty: none), ``BOTWARS_WEBHOOK_ALLOW`` (networks, or ``any``), ``BOTWARS_WEBHOOK_TIMEOUT``,
        ``BOTWARS_WEBHOOK_TRIES``, ``BOTWARS_WEBHOOK_BACKOFF``, ``BOTWARS_NOTICE_RETRY`` (first back-off, a duration),
        ``BOTWARS_NOTICE_RETRY_MAX``, ``BOTWARS_NOTICE_MAX_ATTEMPTS``, ``BOTWARS_NOTICE_POLL``,
        ``BOTWARS_PUBLIC_URL`` (``https://host[:port][/prefix]``), ``BOTWARS_WEBHOOK_PORTS``
        (``80,443,8443`` or ``any``), ``BOTWARS_NOTICE_CONFIRMS_PER_MATCH``,
        ``BOTWARS_NOTICE_MATCHES_PER_ADDRESS``. Raises :class:`ConfigError` naming the variable that is wrong."""
        try:
            return cls._from_env(os.environ if env is None else env)
        except ValueError as exc:
            raise ConfigError(str(exc), source="environment") from None

    @classmethod
    def _from_env(cls, e: Mapping[str, str]) -> "NoticeSettings":

        def get(name: str) -> Optional[str]:
            v = e.get(name)
            return v if v not in (None, "") else None

        def num(name: str, conv: Callable[[str], Any], default: Any) -> Any:
            v = get(name)
            if v is None:
                return default
            try:
                return conv(v)
            except ValueError as exc:
                raise ValueError(f"{name}: {exc}") from None

        def flag(name: str, default: bool) -> bool:
            v = get(name)
            if v is None:
                return default
            if v.lower() in ("1", "true", "yes", "on"):
                return True
            if v.lower() in ("0", "false", "no", "off"):
                return False
            raise ValueError(f"{name}: expected 1 or 0, got {v!r}")

        reminders = e.get("BOTWARS_NOTICE_REMINDERS")
        if reminders is None:
            rem: tuple[float, ...] = (86400.0, 3600.0)
        else:
            try:
                rem = tuple(sorted({parse_duration(x) for x in reminders.split(",") if x.strip()}, reverse=True))
            except ValueError as exc:
                raise ValueError(f"BOTWARS_NOTICE_REMINDERS: {exc}") from None
        allow_text = (get("BOTWARS_WEBHOOK_ALLOW") or "").strip()
        any_address = allow_text.lower() == "any"
        nets = []
        if allow_text and not any_address:
            for part in allow_text.split(","):
                if part.strip():
                    try:
                        nets.append(ipaddress.ip_network(part.strip(), strict=False))
                    except ValueError as exc:
                        raise ValueError(f"BOTWARS_WEBHOOK_ALLOW: {exc}") from None
        smtp_tls = flag("BOTWARS_SMTP_TLS", False)
        ports = _ports(get("BOTWARS_WEBHOOK_PORTS") or "80,443")
        return cls(
            smtp_host=get("BOTWARS_SMTP_HOST"),
            smtp_port=num("BOTWARS_SMTP_PORT", int, 465 if smtp_tls else 587),
            smtp_user=get("BOTWARS_SMTP_USER"),
            smtp_password=get("BOTWARS_SMTP_PASSWORD"),
            smtp_from=get("BOTWARS_SMTP_FROM") or "botwars@localhost",
            smtp_starttls=flag("BOTWARS_SMTP_STARTTLS", not smtp_tls),
            smtp_tls=smtp_tls,
            smtp_timeout_s=num("BOTWARS_SMTP_TIMEOUT", parse_duration, 30.0),
            reminders_s=rem,
            webhook_allow=tuple(nets),
            any_address=any_address,
            webhook_timeout_s=num("BOTWARS_WEBHOOK_TIMEOUT", parse_duration, 10.0),
            webhook_tries=max(1, num("BOTWARS_WEBHOOK_TRIES", int, 3)),
            webhook_backoff_s=num("BOTWARS_WEBHOOK_BACKOFF", parse_duration, 0.5),
            retry_s=num("BOTWARS_NOTICE_RETRY", parse_duration, 60.0),
            retry_max_s=num("BOTWARS_NOTICE_RETRY_MAX", parse_duration, 3600.0),
            max_attempts=max(1, num("BOTWARS_NOTICE_MAX_ATTEMPTS", int, 10)),
            poll_s=num("BOTWARS_NOTICE_POLL", parse_duration, 1.0),
            public_url=_public_url(get("BOTWARS_PUBLIC_URL")),
            webhook_ports=ports or (),
            any_port=ports is None,
            confirms_per_match=max(1, num("BOTWARS_NOTICE_CONFIRMS_PER_MATCH", int, 4)),
            matches_per_address=max(1, num("BOTWARS_NOTICE_MATCHES_PER_ADDRESS", int, 20)),
        )


def _ports(text: str) -> Optional[tuple[int, ...]]:
    """``BOTWARS_WEBHOOK_PORTS`` (``80,443,8443``) as sorted ports; ``None`` for ``any``. Raises
    ``ValueError`` naming the variable and the part that is not a port (1 to 65535)."""
    if text.strip().lower() == "any":
        return None
    ports: set[int] = set()
    for part in text.split(","):
        if part.strip():
            try:
                port = int(part)
            except ValueError:
                raise ValueError(f"BOTWARS_WEBHOOK_PORTS: not a port: {part.strip()!r}") from None
            if not 0 < port < 65536:
                raise ValueError(f"BOTWARS_WEBHOOK_PORTS: not a port: {port} (1 to 65535)")
            ports.add(port)
    return tuple(sorted(ports))


def _public_url(text: Optional[str]) -> Optional[str]:
    """``BOTWARS_PUBLIC_URL`` without its trailing ``/``; ``None`` when unset. Raises
    ``ValueError`` naming the variable unless it is an ``http(s)://host...`` URL without a
    query or fragment."""
    if text is None:
        return None
    parts = urlsplit(text.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment:
        raise ValueError(f"BOTWARS_PUBLIC_URL: {text!r} is not an http(s)://HOST[:PORT][/PATH] address "
                         "(the address players open this server at)")
    return text.strip().rstrip("/")


# ---- webhook addresses ---------------------------------------------------------------------
class AddressRefused(ValueError):
    """A webhook URL whose host is (or resolves to) an address this server will not reach."""


NAT64_WELL_KNOWN = ipaddress.IPv6Network("64:ff9b::/96")
"""RFC 6052's well-known NAT64 prefix: the last 32 bits are an IPv4 address the translator reaches."""

NAT64_LOCAL_USE = ipaddress.IPv6Network("64:ff9b:1::/48")
"""RFC 8215's local-use NAT64 prefix: the IPv4 address sits where the operator chose; never
globally routable, so always refused (Python 3.11 still calls it global)."""

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


def embedded_ipv4(ip: IPAddress) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses that a packet to ``ip`` may reach in the end: none for an IPv4
    address; for IPv6, the address of an IPv4-mapped (``::ffff:a.b.c.d``), IPv4-compatible
    (``::a.b.c.d``, RFC 4291 2.5.5.1) or NAT64 (``64:ff9b::a.b.c.d``, RFC 6052) address, the
    router of a 6to4 one (``2002:AABB:CCDD::``, RFC 3056) and the server and client of a
    Teredo one (``2001::/32``, RFC 4380)."""
    if not isinstance(ip, ipaddress.IPv6Address):
        return []
    out: list[ipaddress.IPv4Address] = []
    if ip.ipv4_mapped is not None:
        out.append(ip.ipv4_mapped)
    raw = ip.packed
    if raw[:12] == bytes(12) and int(ip) > 1:  # IPv4-compatible (:: and ::1 are not)
        out.append(ipaddress.IPv4Address(raw[12:]))
    if ip in NAT64_WELL_KNOWN:
        out.append(ipaddress.IPv4Address(raw[12:]))
    if ip.sixtofour is not None:
        out.append(ip.sixtofour)
    if ip.teredo is not None:
        out.extend(ip.teredo)
    return out


def _reachable(ip: IPAddress) -> bool:
    """Whether ``ip`` is a global unicast address: not loopback, private, link-local, shared
    (100.64/10), reserved, unspecified nor multicast."""
    return (ip.is_global and not (ip.is_multicast or ip.is_loopback or ip.is_link_local or ip.is_reserved
                                  or ip.is_unspecified or ip.is_private) and ip not in NAT64_LOCAL_USE)


def address_allowed(ip: IPAddress, settings: NoticeSettings) -> bool:
    """Whether a webhook may connect to ``ip`` (issue 25 item 7): ``ip`` and every IPv4 address
    it embeds (:func:`embedded_ipv4`) is global unicast (:func:`_reachable`) or inside the
    operator's ``webhook_allow`` networks (``BOTWARS_WEBHOOK_ALLOW``; ``any`` allows every
    address). An IPv4-mapped, -compatible or NAT64 address is judged as the IPv4 address it
    stands for."""
    if settings.any_address:
        return True
    inner = embedded_ipv4(ip)
    if isinstance(ip, ipaddress.IPv6Address) and (ip.ipv4_mapped is not None or ip.packed[:12] == bytes(12)
                                                  or ip in NAT64_WELL_KNOWN):
        candidates: list[IPAddress] = list(inner) or [ip]  # the IPv4 address itself (or ::, ::1)
    else:
        candidates = [ip, *inner]
    return all(any(c in net for net in settings.webhook_allow) or _reachable(c) for c in candidates)


def webhook_port(url: str, settings: NoticeSettings) -> int:
    """The port ``url`` connects to (its own, else 80 or 443 by scheme). Raises
    :class:`AddressRefused` when it is malformed or not one the operator allows
    (``BOTWARS_WEBHOOK_PORTS``, default 80 and 443)."""
    parts = urlsplit(url)
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise AddressRefused("bad port") from None
    if not settings.any_port and port not in settings.webhook_ports:
        allowed = " or ".join(str(p) for p in settings.webhook_ports)
        raise AddressRefused(f"port {port} is not allowed: webhooks go to port {allowed} (this server's operator "
                             f"allows others with BOTWARS_WEBHOOK_PORTS)")
    return port


def resolve_webhook(url: str, settings: NoticeSettings) -> list[str]:
    """The addresses (text) that the host of ``url`` resolves to (``socket.getaddrinfo``),
    every one checked with :func:`address_allowed`, after the port (:func:`webhook_port`).
    Blocking (DNS). Called at registration and again before every delivery. Raises
    :class:`AddressRefused` naming the host when it does not resolve, or the port or any
    address is refused."""
    host = urlsplit(url).hostname or ""
    port = webhook_port(url, settings)
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise AddressRefused(f"host {host!r} cannot be resolved ({type(exc).__name__})") from None
    addrs: list[str] = []
    for info in infos:
        a = str(info[4][0]).split("%", 1)[0]
        if a not in addrs:
            addrs.append(a)
    for a in addrs:
        if not address_allowed(ipaddress.ip_address(a), settings):
            raise AddressRefused(f"host {host!r} is address {a}, which is not public; this server's operator "
                                 f"allows such addresses with BOTWARS_WEBHOOK_ALLOW")
    if not addrs:
        raise AddressRefused(f"host {host!r} has no address")
    return addrs


def sign(secret: str, body: bytes) -> str:
    """The value of :data:`SIGNATURE_HEADER` for ``body``: ``sha256=`` + hex HMAC-SHA256
    keyed by ``secret`` (its UTF-8 bytes)."""
    return "sha256=" + hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()


def verify(secret: str, body: bytes, header: str) -> bool:
    """Whether ``header`` is the right :func:`sign` of ``body`` (constant-time comparison); what
    a webhook receiver does (docs/server.md shows the same in a few lines)."""
    return hmac.compare_digest(sign(secret, body), header or "")


# ---- wire schemas --------------------------------------------------------------------------
class NoticesIn(BaseModel):
    """A seat's notice addresses. A field left out is unchanged; ``null`` removes it."""

    model_config = ConfigDict(extra="forbid")
    email: Optional[EmailStr] = Field(None, description=f"E-mail address (at most {MAX_EMAIL_CHARS} characters)")
    webhook: Optional[HttpUrl] = Field(None, description="http(s) URL that receives a signed JSON POST per notice "
                                                         f"(at most {MAX_URL_CHARS} characters)")

    @field_validator("email", mode="before")
    @classmethod
    def _email_len(cls, v: Any) -> Any:
        if isinstance(v, str) and len(v) > MAX_EMAIL_CHARS:
            raise ValueError(f"longer than {MAX_EMAIL_CHARS} characters")
        return v

    @field_validator("webhook", mode="before")
    @classmethod
    def _url_len(cls, v: Any) -> Any:
        if isinstance(v, str):
            if len(v) > MAX_URL_CHARS:
                raise ValueError(f"longer than {MAX_URL_CHARS} characters")
            if urlsplit(v).scheme.lower() not in ("http", "https"):
                raise ValueError("must be an http:// or https:// URL")
        return v


class NoticeState(BaseModel):
    kind: str
    channel: str
    decision: int
    status: str
    attempts: int
    next_attempt_at: float


class NoticesOut(BaseModel):
    match: str
    seat: str
    email: Optional[str]
    webhook: Optional[str]
    email_status: Optional[str] = Field(None, description="``confirmed``, ``awaiting confirmation`` (a link was "
                                                          "mailed to the address; nothing else is sent to it "
                                                          "until its owner follows it) or ``declined``")
    webhook_secret: Optional[str] = Field(None, description="Only in the answer that registers a webhook: the "
                                                            "HMAC-SHA256 key of its X-Botwars-Signature header")
    notices: list[NoticeState] = Field(default_factory=list, description="This seat's latest notices")


# ---- the service ---------------------------------------------------------------------------
@dataclass
class _Opened:
    match: str
    game: str
    n: int
    turn: int
    deadlines: dict[str, Optional[float]]
    at: float
    colours: dict[str, str] = field(default_factory=dict)  # seat -> colour word (render/palette.py)
    names: dict[str, str] = field(default_factory=dict)
    summaries: dict[str, dict[str, Any]] = field(default_factory=dict)


@dataclass
class _Ended:
    match: str
    game: str
    n: int
    turn: int
    outcome: dict[str, Any]
    at: float
    colours: dict[str, str] = field(default_factory=dict)  # seat -> colour word (render/palette.py)
    names: dict[str, str] = field(default_factory=dict)
    summaries: dict[str, dict[str, Any]] = field(default_factory=dict)


@dataclass
class _Missed:
    """``seat`` missed the deadline of decision point ``n``: its default orders (``default``,
    move text, private to the seat) were played (issue 24 item 4)."""
    match: str
    game: str
    n: int
    turn: int
    seat: str
    default: str
    lost: bool
    at: float
    colours: dict[str, str] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)
    summaries: dict[str, dict[str, Any]] = field(default_factory=dict)


class DeliveryError(Exception):
    """A delivery that failed; ``permanent`` ones are not tried again."""

    def __init__(self, message: str, permanent: bool = False):
        super().__init__(message)
        self.permanent = permanent


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _iso(t: Optional[float]) -> Optional[str]:
    return None if t is None else datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class NoticeService:
    """Turn notices of one server: registrations, the queue, and its background worker.

    ``manager`` is the :class:`~botwars.server.manager.MatchManager` (its ``sessions``, ``get``,
    ``authenticate`` and ``now`` are used); ``settings`` default to :meth:`NoticeSettings.from_env`.
    :meth:`observe` is the only thing the game path calls; :meth:`start`/:meth:`stop` run the
    worker thread.
    """

    def __init__(self, manager: Any, settings: NoticeSettings | None = None):
        self.manager = manager
        self.store: Store = manager.store
        self.settings = settings or NoticeSettings.from_env()
        self.now: Callable[[], float] = manager.now
        self._watched: dict[str, set[str]] = {}  # match id -> seats with a registration
        self._seen: dict[str, tuple[int, bool]] = {}
        self._notes_seen: dict[str, int] = {}
        self._events: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wake: asyncio.Event | None = None
        self._stopping = False
        self.started = False

    @property
    def enabled(self) -> bool:
        """Whether notices can be sent at all: only with a configured public URL (issue 25 item
        6: links are never built from a request's ``Host`` header)."""
        return self.settings.public_url is not None

    # -- the hook on the game path (cheap: no I/O, no database) ------------------------------
    def chain(self, notify: Callable[[str], None]) -> Callable[[str], None]:
        """``notify`` followed by :meth:`observe` of that match: the manager's change hook."""
        def both(match_id: str) -> None:
            notify(match_id)
            sess = self.manager.sessions.get(match_id)
            if sess is not None:
                try:
                    self.observe(sess)
                except Exception:  # pragma: no cover - a bug here must never break a match
                    log.exception("notices: observing match %s", match_id)
        return both

    def observe(self, sess: Any) -> None:
        """Called after every change of a match: when a decision point opened or the match
        ended since the last call, queue that fact (in memory) for the worker. Does nothing for
        a match without registrations. Never blocks on I/O."""
        mid = sess.id
        seats = self._watched.get(mid)
        if not seats:
            return
        self._observe_missed(sess, seats)
        if self._seen.get(mid) == (sess.n, sess.ended):
            return
        with sess.lock:
            key = (sess.n, sess.ended)
            if self._seen.get(mid) == key:
                return
            self._seen[mid] = key
            now = self.now()
            if sess.ended:
                colours = {s: c.word for s, c in seat_colours(sess.seats).items()}
                ev: Any = _Ended(mid, sess.rs.id, sess.n, sess.ref.turn(), sess.outcome.to_json(), now, colours,
                                 dict(sess.names), self._summaries(sess, [s for s in sess.seats if s in seats]))
            else:
                pend = [s for s in sess.pending() if s in seats]
                if not pend:
                    return
                # turn 1 is the first turn (issue 24 item 5): the turn being played
                ev = _Opened(mid, sess.rs.id, sess.n + 1, sess.ref.turn() + 1, {s: sess.deadline(s) for s in pend}, now,
                             {s: c.word for s, c in seat_colours(sess.seats).items()}, dict(sess.names),
                             self._summaries(sess, pend))
        self._events.put(ev)
        self.wake()

    def _observe_missed(self, sess: Any, seats: set[str]) -> None:
        """Queue a notice for each missed deadline of a watched seat not seen yet (a restart
        sees them all again; the notice's unique key keeps it from being sent twice)."""
        notes = sess.notes
        seen = self._notes_seen.get(sess.id, 0)
        if len(notes) <= seen:
            return
        self._notes_seen[sess.id] = len(notes)
        for x in notes[seen:]:
            if x["action"] != "missed_deadline" or x["seat"] not in seats:
                continue
            lost = bool(json.loads(x.get("detail") or "{}").get("lost"))
            line_turn = next((ln.get("turn") for ln in sess.lines if ln.get("n") == x["n"]), None)
            turn = (line_turn + 1) if isinstance(line_turn, int) else sess.ref.turn() + 1
            self._events.put(_Missed(sess.id, sess.rs.id, x["n"], turn, x["seat"],
                                     sess.defaults_played.get((x["n"], x["seat"]), ""), lost, x["at"],
                                     names=dict(sess.names), summaries=self._summaries(sess, [x["seat"]])))
            self.wake()


    @staticmethod
    def _summaries(sess: Any, seats: list[str]) -> dict[str, dict[str, Any]]:
        """Each of ``seats``' private summary (:meth:`Ruleset.private_summary`: from that seat's
        own view only), for its own notices; ``{}`` for a seat whose summary fails."""
        out: dict[str, dict[str, Any]] = {}
        state = sess.state
        for s in seats:
            try:
                out[s] = dict(sess.rs.private_summary(state, s))
            except Exception:  # noqa: BLE001 - a summary is never worth a lost notice
                log.exception("notices: private summary of %s in match %s", s, sess.id)
                out[s] = {}
        return out

    def wake(self) -> None:
        """Make the worker look at once (thread-safe)."""
        loop, w = self._loop, self._wake
        if loop is not None and w is not None:
            try:
                loop.call_soon_threadsafe(w.set)
            except RuntimeError:
                pass

    # -- life cycle ------------------------------------------------------------------------
    def start(self) -> None:
        """Load which matches have registrations, start the worker, and re-observe every such
        running match (a notice lost in memory by a restart is queued again; one already queued
        is not duplicated). Without ``BOTWARS_PUBLIC_URL`` notices stay off (logged once; every
        registration is refused saying so)."""
        if not self.enabled:
            log.warning("turn notices are off: %s", NOTICES_OFF)
            return
        with self.store.read() as s:
            for mid, seat in s.execute(select(NoticeRegistrationRow.match_id, NoticeRegistrationRow.seat)):
                self._watched.setdefault(mid, set()).add(seat)
        self._stopping = False
        ready = threading.Event()
        self._thread = threading.Thread(target=self._thread_main, args=(ready,), name="botwars-notices", daemon=True)
        self._thread.start()
        ready.wait(10)
        self.started = True
        for mid in list(self._watched):
            sess = self.manager.sessions.get(mid)
            if sess is not None:
                self.observe(sess)

    def stop(self) -> None:
        """Stop the worker (pending notices stay in the database for the next start)."""
        self._stopping = True
        self.wake()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None
        self.started = False

    def _thread_main(self, ready: threading.Event) -> None:
        asyncio.run(self._main(ready))

    async def _main(self, ready: threading.Event) -> None:
        import httpx
        self._loop = asyncio.get_running_loop()
        self._wake = asyncio.Event()
        ready.set()
        async with httpx.AsyncClient(timeout=self.settings.webhook_timeout_s, follow_redirects=False,
                                     trust_env=False) as client:
            self._http = client
            while not self._stopping:
                try:
                    await asyncio.to_thread(self._drain)
                    # with several workers only the leader delivers (issue 27); any worker
                    # queues notices (their unique keys keep them from being queued twice)
                    leads = getattr(self.manager, "_leads", None)
                    due = await asyncio.to_thread(self._due, 32) if leads is None or leads() else []
                    if due:
                        await asyncio.gather(*(self._attempt(row_id) for row_id in due))
                        if len(due) == 32:
                            continue
                except Exception:  # pragma: no cover - keep the worker alive, log the bug
                    log.exception("notices worker")
                try:
                    await asyncio.wait_for(self._wake.wait(), self.settings.poll_s)
                except (TimeoutError, asyncio.TimeoutError):
                    pass
                self._wake.clear()
        self._loop = None

    # -- registrations (API) ----------------------------------------------------------------
    def read(self, match_id: str, seat: str, secret: Optional[str] = None) -> dict[str, Any]:
        """What ``seat`` registered, and its latest 20 notices (no error texts)."""
        with self.store.read() as s:
            regs = {r.channel: r for r in s.scalars(select(NoticeRegistrationRow).where(
                NoticeRegistrationRow.match_id == match_id, NoticeRegistrationRow.seat == seat))}
            rows = list(s.scalars(select(NoticeRow).where(NoticeRow.match_id == match_id, NoticeRow.seat == seat)
                                  .order_by(NoticeRow.id.desc()).limit(20)))
        return {"match": match_id, "seat": seat,
                "email": regs["email"].address if "email" in regs else None,
                "webhook": regs["webhook"].address if "webhook" in regs else None,
                "email_status": (self.address_status(regs["email"].address) if "email" in regs else None),
                "webhook_secret": secret,
                "notices": [{"kind": r.kind, "channel": r.channel, "decision": r.n, "status": r.status,
                             "attempts": r.attempts, "next_attempt_at": r.next_attempt_at} for r in rows]}

    def register(self, sess: Any, seat: str, body: NoticesIn, token: str = "") -> dict[str, Any]:
        """Set (or with ``null`` remove) ``seat``'s e-mail address and/or webhook URL. A webhook
        gets a new secret, returned here only. ``token`` (the seat's, which the registration
        carries) makes each notice's link the seat's own page (issue 24 item 8): it is kept with
        the registration and sent only to the address registered with it. An e-mail address
        nobody confirmed yet is mailed a confirmation link once (:meth:`ask_confirmation`);
        nothing else goes to it before. Raises ``ApiError`` 409 when notices are off (no
        ``BOTWARS_PUBLIC_URL``), the match has ended, this server sends no mail or the
        address's owner declined notices; 422 naming ``webhook`` when its address or port is
        refused; 429 over a per-match or per-address limit. Blocking (DNS, database): call it
        off the event loop."""
        given = body.model_fields_set
        changes: dict[str, Optional[str]] = {}
        if not self.enabled and any(getattr(body, f) is not None for f in given):
            raise ApiError(409, "notices_disabled", f"turn notices are off on this server: {NOTICES_OFF}")
        if "email" in given:
            if body.email is not None and not self.settings.smtp_host:
                raise ApiError(409, "mail_disabled", "email: this server sends no mail (BOTWARS_SMTP_HOST is not set)")
            changes["email"] = None if body.email is None else str(body.email).lower()
        if "webhook" in given:
            url = None if body.webhook is None else str(body.webhook)
            if url is not None:
                try:
                    resolve_webhook(url, self.settings)
                except AddressRefused as exc:
                    raise ApiError(422, "invalid_request", f"webhook: {exc}") from None
            changes["webhook"] = url
        if sess.ended and any(a is not None for a in changes.values()):
            raise ApiError(409, "match_ended", f"match {sess.id} has ended; there will be no more notices")
        for channel, address in changes.items():
            if address is not None:
                self._check_address_limit(sess.id, seat, channel, address)
        if changes.get("email") is not None:
            self.ask_confirmation(sess.id, seat, changes["email"])  # type: ignore[arg-type]
        secret = None
        now = self.now()
        with self.store.write() as s:
            for channel, address in changes.items():
                s.execute(delete(NoticeRegistrationRow).where(NoticeRegistrationRow.match_id == sess.id,
                                                              NoticeRegistrationRow.seat == seat,
                                                              NoticeRegistrationRow.channel == channel))
                if address is None:
                    self._cancel(s, sess.id, seat, channel)
                    continue
                if channel == "webhook":
                    secret = secrets.token_urlsafe(32)
                base = (self.settings.public_url or base_url)[:512]
                s.add(NoticeRegistrationRow(match_id=sess.id, seat=seat, channel=channel, address=address,
                                            secret=secret if channel == "webhook" else None,
                                            base_url=(self.settings.public_url or "")[:512], created_at=now,
                                            seat_link=f"/play/{sess.id}?token={token}" if token else None))
        with self.store.read() as s:
            left = set(s.scalars(select(NoticeRegistrationRow.seat).where(NoticeRegistrationRow.match_id == sess.id)))
        if left:
            self._watched[sess.id] = left
        else:
            self._watched.pop(sess.id, None)
        if any(a is not None for a in changes.values()):
            self._seen.pop(sess.id, None)  # the open point is notified to the new address too
            self.observe(sess)
        return self.read(sess.id, seat, secret)

    def unregister(self, sess: Any, seat: str) -> dict[str, Any]:
        """Remove every registration of ``seat``; its pending notices are cancelled."""
        return self.register(sess, seat, NoticesIn.model_validate({"email": None, "webhook": None}))

    @staticmethod
    def _cancel(s: Any, match_id: str, seat: str, channel: str) -> None:
        """Cancel the seat's pending notices on ``channel`` (not a confirmation request: that
        is mailed once, whoever removes the address meanwhile)."""
        s.execute(update(NoticeRow).where(NoticeRow.match_id == match_id, NoticeRow.seat == seat,
                                          NoticeRow.channel == channel, NoticeRow.status == "pending",
                                          NoticeRow.kind != "confirm")
                  .values(status="cancelled"))

    # -- confirmed addresses and limits (issue 25 item 6) ------------------------------------
    def address_status(self, address: str) -> str:
        """``confirmed``, ``awaiting confirmation`` or ``declined``: what the owner of the
        e-mail ``address`` answered to its confirmation link."""
        with self.store.read() as s:
            row = s.get(NoticeAddressRow, address.lower())
        status = "pending" if row is None else row.status
        return "awaiting confirmation" if status == "pending" else status

    def _check_address_limit(self, match_id: str, seat: str, channel: str, address: str) -> None:
        """Raise ``ApiError`` 429 naming ``channel`` when ``address`` is registered in
        ``matches_per_address`` running matches already (this seat's own registration aside)."""
        with self.store.read() as s:
            n = s.scalar(select(func.count()).select_from(NoticeRegistrationRow)
                         .join(MatchRow, MatchRow.id == NoticeRegistrationRow.match_id)
                         .where(NoticeRegistrationRow.channel == channel, NoticeRegistrationRow.address == address,
                                MatchRow.status == "running",
                                ~((NoticeRegistrationRow.match_id == match_id) & (NoticeRegistrationRow.seat == seat))))
        if (n or 0) >= self.settings.matches_per_address:
            raise ApiError(429, "too_many_registrations",
                           f"{channel}: this address gets notices of {n} running matches already, the most this "
                           f"server allows; remove it from a match first")

    def ask_confirmation(self, match_id: str, seat: str, address: str) -> str:
        """Make sure the owner of e-mail ``address`` (lower case) is asked, once ever, whether
        they want notices: the first time, queue a mail with a link to
        ``PUBLIC_URL/notices/confirm?token=...`` (counted against ``match_id``'s
        ``confirms_per_match``). Returns ``pending`` or ``confirmed``. Raises ``ApiError`` 409
        ``address_declined`` when the owner declined, 429 ``too_many_addresses`` when this
        match asked its most addresses already."""
        from sqlalchemy.exc import IntegrityError
        now = self.now()
        try:
            with self.store.write() as s:
                row = s.get(NoticeAddressRow, address)
                if row is not None:
                    if row.status == "declined":
                        raise ApiError(409, "address_declined", "email: the owner of this address asked this server "
                                                                "never to mail it; give another address")
                    return row.status
                asked = s.scalar(select(func.count()).select_from(NoticeAddressRow)
                                 .where(NoticeAddressRow.match_id == match_id)) or 0
                if asked >= self.settings.confirms_per_match:
                    raise ApiError(429, "too_many_addresses",
                                   f"email: match {match_id} has asked {asked} addresses to confirm notices, the "
                                   f"most this server allows; use an address that is confirmed already")
                token = secrets.token_urlsafe(24)
                s.add(NoticeAddressRow(address=address, token_hash=_sha256(token), status="pending",
                                       match_id=match_id, asked_at=now, answered_at=None))
                payload = {"event": "confirm", "to": address, "match": match_id, "seat": seat,
                           "link": f"{self.settings.public_url}/notices/confirm?token={token}"}
                s.add(NoticeRow(match_id=match_id, seat=seat, channel="email", kind="confirm", n=0, offset_s=0.0,
                                key=f"confirm:{_sha256(address)[:48]}", payload=canonical_json(payload),
                                status="pending", attempts=0, next_attempt_at=now, last_error=None, created_at=now,
                                sent_at=None))
        except IntegrityError:  # asked at the same moment by another registration
            return "pending"
        self.wake()
        return "pending"

    def answer(self, token: str, agree: bool) -> dict[str, Any]:
        """The owner's answer to a confirmation link: ``agree`` confirms the address (the open
        decision points of its matches are notified at once), else it is declined (its
        registrations are removed, its pending notices cancelled, and it is never mailed
        again). Either can be changed later with the same link. Returns ``{"address",
        "status"}``. Raises ``ApiError`` 404 ``unknown_link`` for a token that is not one."""
        if not token or len(token) > 128:
            raise ApiError(404, "unknown_link", "this confirmation link is not valid (was it copied whole?)")
        now = self.now()
        with self.store.write() as s:
            row = s.scalar(select(NoticeAddressRow).where(NoticeAddressRow.token_hash == _sha256(token)))
            if row is None:
                raise ApiError(404, "unknown_link", "this confirmation link is not valid (was it copied whole?)")
            row.status, row.answered_at = ("confirmed" if agree else "declined"), now
            address = row.address
            regs = list(s.execute(select(NoticeRegistrationRow.match_id, NoticeRegistrationRow.seat).where(
                NoticeRegistrationRow.channel == "email", NoticeRegistrationRow.address == address)))
            if not agree:
                for mid, seat in regs:
                    self._cancel(s, mid, seat, "email")
                s.execute(delete(NoticeRegistrationRow).where(NoticeRegistrationRow.channel == "email",
                                                              NoticeRegistrationRow.address == address))
                s.execute(update(NoticeRow).where(NoticeRow.status == "pending", NoticeRow.kind == "confirm",
                                                  NoticeRow.key == f"confirm:{_sha256(address)[:48]}")
                          .values(status="cancelled"))
        matches = {mid for mid, _ in regs}
        with self.store.read() as s:
            for mid in matches:
                left = set(s.scalars(select(NoticeRegistrationRow.seat).where(NoticeRegistrationRow.match_id == mid)))
                if left:
                    self._watched[mid] = left
                else:
                    self._watched.pop(mid, None)
        if agree:
            for mid in matches:
                sess = self.manager.sessions.get(mid)
                if sess is not None:
                    self._seen.pop(mid, None)
                    self.observe(sess)
        return {"address": address, "status": "confirmed" if agree else "declined"}

    def lookup(self, token: str) -> dict[str, Any]:
        """``{"address", "status"}`` of the address a confirmation ``token`` was mailed to
        (nothing changes). Raises ``ApiError`` 404 ``unknown_link`` for a token that is not one."""
        row = None
        if token and len(token) <= 128:
            with self.store.read() as s:
                row = s.scalar(select(NoticeAddressRow).where(NoticeAddressRow.token_hash == _sha256(token)))
        if row is None:
            raise ApiError(404, "unknown_link", "this confirmation link is not valid (was it copied whole?)")
        return {"address": row.address, "status": row.status}

    @staticmethod
    def render_confirmation(p: dict[str, Any]) -> tuple[str, str]:
        """Subject and plain-text body of the one mail asking an address's owner to agree to
        notices (the payload of :meth:`ask_confirmation`)."""
        subject = "botwars: do you want turn notices at this address?"
        lines = [f"A player of match {p['match']} on a botwars server asked for turn notices (your move, reminders, "
                 "results) to be mailed to this address.", "",
                 "Nothing more is mailed to you unless you agree. To answer, open:", p["link"], "",
                 "If it was not you, ignore this mail: it is the only one you get. On that page you can also "
                 "ask never to be mailed again."]
        return subject, "\n".join(lines) + "\n"

    # -- the worker: queue rows --------------------------------------------------------------
    def _payload(self, kind: str, ev: Any, reg: Any, deadline: Optional[float] = None,
                 offset: Optional[float] = None) -> dict[str, Any]:
        """One notice to the seat of registration ``reg``: public facts (``names``: the
        players' display names, which every page shows; ``watch``: the spectator page; at the
        end ``outcome`` and ``replay``), ``link``: the seat's own page (its token: this
        registration's address only; the spectator page for a registration made without one),
        and ``summary``: the seat's own private summary (:meth:`Ruleset.private_summary`, plus
        ``time_left_s``), never another seat's."""
        seat, base_url = reg.seat, self._base_url()  # links only from BOTWARS_PUBLIC_URL (issue 25 item 6)
        watch = f"{base_url}/watch/{ev.match}"
        summary = dict(ev.summaries.get(seat, {}))
        p: dict[str, Any] = {"event": kind, "match": ev.match, "game": ev.game, "seat": seat, "decision": ev.n,
                             "turn": ev.turn, "link": (base_url + reg.seat_link) if getattr(reg, "seat_link", None) else watch,
                             "watch": watch, "names": dict(ev.names)}
        if getattr(ev, "colours", None) and seat in ev.colours:
            p["colour"] = ev.colours[seat]  # the seat's colour word, as its page and reports name it
        if kind == "result":
            p["outcome"] = ev.outcome
            p["replay"] = f"{base_url}/replay/{ev.match}"
        elif kind == "missed":
            pass
        else:
            p["deadline"] = deadline
            p["deadline_utc"] = _iso(deadline)
            if deadline is not None:
                summary["time_left_s"] = round(offset if offset is not None else max(0.0, deadline - ev.at), 3)
        p["summary"] = summary
        if offset is not None:
            p["before_deadline_s"] = offset
        return p

    def _drain(self) -> None:
        """Turn the observed facts into ``notices`` rows (idempotent: unique keys)."""
        evs = []
        while True:
            try:
                evs.append(self._events.get_nowait())
            except queue.Empty:
                break
        if not evs:
            return
        with self.store.write() as s:
            for ev in evs:
                regs = list(s.scalars(select(NoticeRegistrationRow).where(NoticeRegistrationRow.match_id == ev.match)))
                regs = self._deliverable(s, regs)
                rows = []
                for reg in regs:
                    base = f"{ev.match}:{reg.seat}:{reg.channel}"
                    if isinstance(ev, _Ended):
                        rows.append((reg, f"{base}:result", "result", 0.0, ev.at, self._payload("result", ev, reg)))
                        continue
                    if isinstance(ev, _Missed):
                        if reg.seat == ev.seat:
                            p = self._payload("missed", ev, reg)
                            p["default_orders"] = ev.default
                            p["lost"] = ev.lost
                            rows.append((reg, f"{base}:missed:{ev.n}", "missed", 0.0, ev.at, p))
                        continue
                    if reg.seat not in ev.deadlines:
                        continue
                    dl = ev.deadlines[reg.seat]
                    rows.append((reg, f"{base}:move:{ev.n}", "move", 0.0, ev.at,
                                 self._payload("move", ev, reg, dl)))
                    for off in reminder_offsets(self.settings.reminders_s, dl, ev.at):
                        if dl is not None and dl - off > ev.at:
                            rows.append((reg, f"{base}:reminder:{ev.n}:{off:g}", "reminder", off, dl - off,
                                         self._payload("reminder", ev, reg, dl, off)))
                if not rows:
                    continue
                have = set(s.scalars(select(NoticeRow.key).where(NoticeRow.key.in_([r[1] for r in rows]))))
                for reg, key, kind, off, due, payload in rows:
                    if key in have:
                        continue
                    s.add(NoticeRow(match_id=ev.match, seat=reg.seat, channel=reg.channel, kind=kind, n=ev.n, offset_s=off,
                                    key=key, payload=canonical_json(payload), status="pending", attempts=0,
                                    next_attempt_at=due, last_error=None, created_at=ev.at, sent_at=None))

    def _base_url(self) -> str:
        """The base of every link in a notice: the configured public URL only."""
        return self.settings.public_url or ""

    @staticmethod
    def _deliverable(s: Any, regs: list[Any]) -> list[Any]:
        """``regs`` less the e-mail registrations whose address its owner has not confirmed."""
        mails = [r.address for r in regs if r.channel == "email"]
        ok = set(s.scalars(select(NoticeAddressRow.address).where(NoticeAddressRow.address.in_(mails),
                                                                   NoticeAddressRow.status == "confirmed"))) if mails else set()
        return [r for r in regs if r.channel != "email" or r.address in ok]

    def _due(self, limit: int) -> list[int]:
        with self.store.read() as s:
            return list(s.scalars(select(NoticeRow.id).where(NoticeRow.status == "pending",
                                                             NoticeRow.next_attempt_at <= self.now())
                                  .order_by(NoticeRow.next_attempt_at, NoticeRow.id).limit(limit)))

    def _prepare(self, row_id: int) -> tuple[Any, Any] | None:
        """The row and its registration when it should be sent now; else marks it cancelled."""
        with self.store.read() as s:
            row = s.get(NoticeRow, row_id)
            if row is None or row.status != "pending":
                return None
            if row.kind == "confirm":  # mailed while its address is unanswered, registered or not
                addr = s.get(NoticeAddressRow, json.loads(row.payload)["to"])
                obsolete = addr is None or addr.status != "pending"
                reg = None
            else:
                reg = s.get(NoticeRegistrationRow, (row.match_id, row.seat, row.channel))
                obsolete = reg is None or (row.channel == "email" and not self._deliverable(s, [reg]))
            if not obsolete and row.kind in ("move", "reminder"):
                m = s.get(MatchRow, row.match_id)
                moved = s.get(OrderRow, (row.match_id, row.n, row.seat)) is not None
                obsolete = m is None or m.status != "running" or m.decisions >= row.n or moved
        if obsolete:
            with self.store.write() as s:
                s.execute(update(NoticeRow).where(NoticeRow.id == row_id, NoticeRow.status == "pending")
                          .values(status="cancelled"))
            return None
        return row, reg

    async def _attempt(self, row_id: int) -> None:
        got = await asyncio.to_thread(self._prepare, row_id)
        if got is None:
            return
        row, reg = got
        payload = json.loads(row.payload)
        error: Optional[DeliveryError] = None
        try:
            if row.channel == "email":
                await self._send_mail(payload["to"] if row.kind == "confirm" else reg.address, payload)
            else:
                await self._send_webhook(reg.address, reg.secret or "", payload, row.id)
        except DeliveryError as exc:
            error = exc
        except Exception as exc:  # any failure of a client library: retried, logged
            error = DeliveryError(f"{type(exc).__name__}: {exc}")
        await asyncio.to_thread(self._finish, row_id, row.attempts + 1, error)

    def _finish(self, row_id: int, attempts: int, error: Optional[DeliveryError]) -> None:
        now = self.now()
        if error is None:
            values: dict[str, Any] = {"status": "sent", "attempts": attempts, "sent_at": now, "last_error": None}
        else:
            text = self._scrub(str(error))[:MAX_ERROR_CHARS]
            give_up = error.permanent or attempts >= self.settings.max_attempts
            wait = min(self.settings.retry_max_s, self.settings.retry_s * 2 ** (attempts - 1))
            values = {"status": "failed" if give_up else "pending", "attempts": attempts, "last_error": text,
                      "next_attempt_at": now + wait}
            log.warning("notice %s: attempt %d failed (%s); %s", row_id, attempts, text,
                        "giving up" if give_up else f"next try in {wait:g} s")
        with self.store.write() as s:
            s.execute(update(NoticeRow).where(NoticeRow.id == row_id).values(**values))

    def _scrub(self, text: str) -> str:
        """``text`` with the SMTP password (if it appears at all) replaced by ``***``."""
        pw = self.settings.smtp_password
        return text.replace(pw, "***") if pw else text

    # -- delivery --------------------------------------------------------------------------
    @staticmethod
    def render_mail(p: dict[str, Any]) -> tuple[str, str]:
        """Subject and plain-text body of an e-mail notice from its payload."""
        m = p["match"]
        names = p.get("names") or {}
        seat = p["seat"]
        if p.get("colour"):  # "Ana (p4, yellow)" or "p4 (yellow)": the colour word its page and reports use
            seat = f"{names[seat]} ({seat}, {p['colour']})" if names.get(seat) else f"{seat} ({p['colour']})"
        else:
            seat = label(seat, names)
        if p["event"] == "missed":
            subject = f"botwars: you missed the deadline in match {m}"
            if p.get("lost"):
                lines = [f"Seat {seat} missed the deadline of turn {p['turn']} in match {m} "
                         f"({p['game']}) and lost on time."]
            else:
                played = p.get("default_orders") or "the rules' default orders"
                lines = [f"Seat {seat} missed the deadline of turn {p['turn']} in match {m} "
                         f"({p['game']}).", f"Your default program was played: {played}.",
                         "Every player sees in the turn's events that your default orders were played."]
        elif p["event"] == "result":
            o = p.get("outcome") or {}
            winner = label(o["winner"], names) if o.get("winner") else None
            subject = f"botwars: match {m} has ended" + (f", {winner} won" if winner else ", a draw")
            lines = [f"Match {m} ({p['game']}) has ended after turn {p['turn']}.",
                     f"Winner: {winner or 'none (draw)'}.", f"Reason: {o.get('reason', '')}.",
                     f"Scores: {', '.join(f'{label(k, names)} {v:g}' for k, v in (o.get('scores') or {}).items())}."]
        else:
            dl = p.get("deadline_utc") or "none (no clock)"
            if p["event"] == "reminder":
                subject = f"botwars: reminder, your move in match {m}, deadline {dl}"
                lines = [f"Seat {seat} still has to give orders in match {m} ({p['game']}), "
                         f"turn {p['turn']}.", f"Deadline: {dl}."]
            else:
                subject = f"botwars: your move in match {m}, deadline {dl}"
                lines = [f"It is seat {seat}'s move in match {m} ({p['game']}), turn {p['turn']}.",
                         f"Deadline: {dl}."]
        summary = summary_text(p.get("summary") or {})
        if summary:
            lines += [f"Your position: {summary}."]
        own = p["link"] != p.get("watch", p["link"])
        lines += [""]
        if own:
            lines += [f"Your seat (your own link: do not forward this mail): {p['link']}"]
        if p["event"] == "result" and p.get("replay"):
            lines += [f"Replay of the whole game: {p['replay']}"]
        lines += [f"Watch the match: {p.get('watch', p['link'])}",
                  "", "You get this because this seat registered the address for turn notices."]
        return subject, "\n".join(lines) + "\n"

    async def _send_mail(self, to: str, payload: dict[str, Any]) -> None:
        import aiosmtplib
        st = self.settings
        if not st.smtp_host:
            raise DeliveryError("this server sends no mail (BOTWARS_SMTP_HOST is not set)", permanent=True)
        subject, text = (self.render_confirmation(payload) if payload.get("event") == "confirm"
                         else self.render_mail(payload))
        msg = EmailMessage()
        msg["From"] = st.smtp_from
        msg["To"] = to
        msg["Subject"] = subject
        msg["X-Botwars-Match"] = payload["match"]
        msg["X-Botwars-Seat"] = payload["seat"]
        # the engine's decision point, for mail filters and tests (the text names the turn only)
        if payload.get("decision") is not None:
            msg["X-Botwars-Decision"] = str(payload["decision"])
        msg.set_content(text)
        try:
            await aiosmtplib.send(msg, hostname=st.smtp_host, port=st.smtp_port, username=st.smtp_user,
                                  password=st.smtp_password if st.smtp_user else None,
                                  start_tls=st.smtp_starttls if not st.smtp_tls else False,
                                  use_tls=st.smtp_tls, timeout=st.smtp_timeout_s)
        except aiosmtplib.SMTPRecipientsRefused as exc:
            raise DeliveryError(f"recipient refused: {exc}", permanent=True) from None
        except (aiosmtplib.SMTPException, OSError) as exc:
            raise DeliveryError(f"mail server {st.smtp_host}:{st.smtp_port}: {type(exc).__name__}: {exc}") from None

    async def _send_webhook(self, url: str, secret: str, payload: dict[str, Any], notice_id: int) -> None:
        import httpx
        from tenacity import AsyncRetrying, retry_if_exception_type, stop_after_attempt, wait_exponential
        st = self.settings
        try:
            addrs = await asyncio.to_thread(resolve_webhook, url, st)
        except AddressRefused as exc:
            raise DeliveryError(f"webhook refused: {exc}", permanent=True) from None
        body = json.dumps({**payload, "notice": notice_id, "sent_at": self.now()}, sort_keys=True,
                          separators=(",", ":")).encode()
        target = httpx.URL(url)
        host_header = target.netloc.decode("ascii").rsplit("@", 1)[-1]
        pinned = target.copy_with(host=addrs[0])  # connect to the address that was checked
        headers = {"Content-Type": "application/json", "Host": host_header, SIGNATURE_HEADER: sign(secret, body),
                   "X-Botwars-Notice": str(notice_id), "User-Agent": "botwars-notices/1"}

        class _Retry(Exception):
            pass

        try:
            async for attempt in AsyncRetrying(stop=stop_after_attempt(st.webhook_tries),
                                               wait=wait_exponential(multiplier=st.webhook_backoff_s, max=30),
                                               retry=retry_if_exception_type((httpx.TransportError, _Retry)),
                                               reraise=True):
                with attempt:
                    r = await self._http.post(pinned, content=body, headers=headers,
                                              extensions={"sni_hostname": target.host})
                    if r.status_code >= 500 or r.status_code == 429:
                        raise _Retry(f"HTTP {r.status_code}")
                    if r.status_code >= 300:
                        raise DeliveryError(f"webhook answered HTTP {r.status_code}")
        except _Retry as exc:
            raise DeliveryError(f"webhook answered {exc}") from None
        except httpx.TransportError as exc:
            raise DeliveryError(f"webhook {target.host}: {type(exc).__name__}: {exc}") from None


# ---- the API -------------------------------------------------------------------------------
def install_notices(app: Any, manager: Any, token: Callable[..., Optional[str]], error_model: Any,
                    settings: NoticeSettings | None = None) -> NoticeService:
    """Add the notice endpoints to ``app``, chain :meth:`NoticeService.observe` onto the
    manager's ``notify`` hook, and return the service (the app's lifespan starts and stops it).

    - ``GET /api/matches/{id}/notices``: the seat's registrations and latest notices.
    - ``POST /api/matches/{id}/notices``: ``{"email": ADDRESS, "webhook": URL}`` (either; ``null``
      removes); the answer carries ``webhook_secret`` when a webhook was set.
    - ``DELETE /api/matches/{id}/notices``: remove both.

    Each needs the seat's token (403 without or with another); 404 unknown match; 409 ended
    match or no mail server; 422 a bad address, naming the field. ``token`` is the app's
    dependency that reads a seat token, ``error_model`` its error schema.
    """
    ErrorOut, _token = error_model, token

    svc = NoticeService(manager, settings)
    manager.notify = svc.chain(manager.notify)
    errs: dict[int | str, dict[str, Any]] = {
        403: {"model": ErrorOut, "description": "missing or wrong seat token"},
        404: {"model": ErrorOut, "description": "unknown match"},
        409: {"model": ErrorOut, "description": "notices off (no BOTWARS_PUBLIC_URL), match ended, this server "
                                                "sends no mail, or the address's owner declined notices"},
        422: {"model": ErrorOut, "description": "bad address (the message names the field)"},
        429: {"model": ErrorOut, "description": "over a limit: addresses one match may ask to confirm, or "
                                                "running matches one address may be registered in"}}

    def seat_of(match_id: str, token: Optional[str]) -> tuple[Any, str]:
        sess = manager.get(match_id)
        return sess, manager.authenticate(sess, token)

    @app.get("/api/matches/{match_id}/notices", response_model=NoticesOut, responses=errs, tags=["notices"])
    def get_notices(match_id: str, token: Optional[str] = Depends(_token)) -> dict[str, Any]:
        """The seat's notice addresses and its latest notices; readable only with its token."""
        sess, seat = seat_of(match_id, token)
        return svc.read(sess.id, seat)

    @app.post("/api/matches/{match_id}/notices", response_model=NoticesOut, responses=errs, tags=["notices"])
    def post_notices(match_id: str, body: NoticesIn, token: Optional[str] = Depends(_token)) -> dict[str, Any]:
        """Register the seat's e-mail address and/or webhook URL for turn notices ("your move",
        reminders before the deadline, the result). A webhook's signing secret is in this
        answer only. A new e-mail address is first mailed a confirmation link (``email_status``
        says ``awaiting confirmation``): nothing else is sent to it until its owner agrees."""
        sess, seat = seat_of(match_id, token)
        return svc.register(sess, seat, body, token or "")

    @app.delete("/api/matches/{match_id}/notices", response_model=NoticesOut, responses=errs, tags=["notices"])
    def delete_notices(match_id: str, token: Optional[str] = Depends(_token)) -> dict[str, Any]:
        """Remove the seat's notice addresses; its pending notices are cancelled."""
        sess, seat = seat_of(match_id, token)
        return svc.unregister(sess, seat)

    install_confirmation(app, svc, ErrorOut)
    return svc


class ConfirmIn(BaseModel):
    """The owner's answer to a confirmation link (its ``token``)."""

    model_config = ConfigDict(extra="forbid")
    token: str = Field(..., max_length=128, description="The token of the link mailed to the address")
    agree: bool = Field(..., description="true: send me turn notices; false: never mail me again")


class ConfirmOut(BaseModel):
    address: str
    status: str = Field(..., description="``confirmed`` or ``declined``")


def install_confirmation(app: Any, svc: NoticeService, error_model: Any) -> None:
    """``POST /api/notices/confirm`` (``{"token", "agree"}``): the owner of an e-mail address
    answers the link mailed to it (:meth:`NoticeService.answer`); 404 for a token that is not
    one. The page the link opens (``GET /notices/confirm``) is the web UI's
    (``botwars.web.notice_pages``); it posts here."""

    @app.post("/api/notices/confirm", response_model=ConfirmOut, tags=["notices"],
              responses={404: {"model": error_model, "description": "not a confirmation link's token"}})
    def confirm(body: ConfirmIn) -> dict[str, Any]:
        """Agree to turn notices at the address the token was mailed to, or decline them for good."""
        return svc.answer(body.token, body.agree)
