"""Turn notices (issue 14 item 3): e-mail through a real SMTP server the test starts (aiosmtpd),
webhooks to a real HTTP server on loopback with an HMAC-SHA256 signature, reminders before the
deadline, the result, retries, and that the game never waits on any of it.

The server runs in test mode with a fake clock; the notice worker is a real background thread.
Waiting for a delivery polls with a generous limit; no test asserts a duration.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from server_support import free_port, make_client

import aiosmtpd.controller as aiosmtpd_controller  # the test extra (pyproject.toml)

WAIT_S = 60.0
PUBLIC = "https://play.botwars.test"
"""BOTWARS_PUBLIC_URL of the servers these tests start: every link in a notice starts with it."""


def wait_for(pred, what: str, timeout: float = WAIT_S):
    """Poll ``pred`` until it returns something truthy; fail naming ``what`` after ``timeout``."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        v = pred()
        if v:
            return v
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


# ---- a real SMTP server -----------------------------------------------------------------------
class Inbox:
    """aiosmtpd handler: every message received, as (recipients, email.message.Message)."""

    def __init__(self):
        self.messages: list[tuple[list[str], object]] = []
        self.lock = threading.Lock()

    async def handle_DATA(self, server, session, envelope):
        import email
        import email.policy
        msg = email.message_from_bytes(envelope.original_content or envelope.content, policy=email.policy.default)
        with self.lock:
            self.messages.append((list(envelope.rcpt_tos), msg))
        return "250 OK"

    def to(self, address: str) -> list:
        """Messages to ``address`` (headers unfolded: a long subject is folded on the wire)."""
        with self.lock:
            return [m for rcpt, m in self.messages if address in rcpt]


def subject(m) -> str:
    return " ".join(str(m["Subject"]).split())


@pytest.fixture
def smtp():
    inbox = Inbox()
    port = free_port()
    ctl = aiosmtpd_controller.Controller(inbox, hostname="127.0.0.1", port=port)
    ctl.start()
    inbox.port = port
    yield inbox
    ctl.stop()


# ---- a real webhook receiver ------------------------------------------------------------------
class Hook:
    def __init__(self):
        self.requests: list[tuple[dict[str, str], bytes]] = []
        self.fail_next = 0  # answer this many requests with 500 first
        self.lock = threading.Lock()


@pytest.fixture
def hook():
    h = Hook()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            with h.lock:
                h.requests.append(({k.lower(): v for k, v in self.headers.items()}, body))
                fail = h.fail_next > 0
                h.fail_next -= 1 if fail else 0
            self.send_response(500 if fail else 204)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *a):
            pass

    srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    h.url = f"http://127.0.0.1:{srv.server_address[1]}/hook"
    yield h
    srv.shutdown()
    srv.server_close()


@pytest.fixture
def notice_env(monkeypatch):
    """Environment of a server that sends notices fast (the worker polls every 20 ms)."""
    def set_env(smtp_port: int | None = None, **extra: str):
        if smtp_port is not None:
            monkeypatch.setenv("BOTWARS_SMTP_HOST", "127.0.0.1")
            monkeypatch.setenv("BOTWARS_SMTP_PORT", str(smtp_port))
            monkeypatch.setenv("BOTWARS_SMTP_STARTTLS", "0")
            monkeypatch.setenv("BOTWARS_SMTP_FROM", "gm@botwars.test")
        monkeypatch.setenv("BOTWARS_NOTICE_POLL", "0.02s")
        monkeypatch.setenv("BOTWARS_WEBHOOK_BACKOFF", "0.01s")
        monkeypatch.setenv("BOTWARS_PUBLIC_URL", PUBLIC)
        extra.setdefault("BOTWARS_WEBHOOK_PORTS", "any")  # the test's receivers listen on free ports
        for k, v in extra.items():
            monkeypatch.setenv(k, v)
    return set_env


def new_toy(c, **config):
    r = c.post("/api/matches", json={"game": "servertoy", "config": config})
    assert r.status_code == 201, r.text
    body = r.json()
    return body["match"], {s["seat"]: s["token"] for s in body["seats"]}


def auth(token):
    return {"Authorization": f"Bearer {token}"}


def confirmation_link(smtp, address: str) -> str:
    """The link of the one confirmation mail sent to ``address`` (waits for it)."""
    mails = wait_for(lambda: [m for m in smtp.to(address) if "do you want turn notices" in subject(m)],
                     f"the confirmation mail to {address}")
    assert len(mails) == 1
    links = [w for w in mails[0].get_content().split() if w.startswith(PUBLIC + "/notices/confirm?token=")]
    assert len(links) == 1, mails[0].get_content()
    return links[0]


def confirm(c, smtp, address: str, agree: bool = True) -> dict:
    """Answer the confirmation mail sent to ``address`` as its owner would (the API the page posts to)."""
    token = confirmation_link(smtp, address).split("token=", 1)[1]
    r = c.post("/api/notices/confirm", json={"token": token, "agree": agree})
    assert r.status_code == 200, r.text
    return r.json()


def your_moves(smtp, address: str) -> list:
    return [m for m in smtp.to(address) if "your move" in subject(m)]


def notices_of(c, mid, token):
    r = c.get(f"/api/matches/{mid}/notices", headers=auth(token))
    assert r.status_code == 200, r.text
    return r.json()["notices"]


# ---- e-mail -----------------------------------------------------------------------------------
def test_your_move_mail_reaches_the_awaited_seat_only_and_the_result_reaches_both(
        toy, smtp, notice_env, db_url, clock):
    """On SQLite and on PostgreSQL (the notices tables come from Alembic revision 0003)."""
    notice_env(smtp.port)
    with make_client(db_url, clock) as c:
        mid, tok = new_toy(c, target=3)
        for seat, addr in (("p1", "one@example.com"), ("p2", "two@example.com")):
            r = c.post(f"/api/matches/{mid}/notices", headers=auth(tok[seat]), json={"email": addr})
            assert r.status_code == 200, r.text
            assert r.json()["email"] == addr and r.json()["email_status"] == "awaiting confirmation"
        for addr in ("one@example.com", "two@example.com"):
            assert confirm(c, smtp, addr) == {"address": addr, "status": "confirmed"}
        # decision point 1 awaits p1 only (the toy alternates)
        mail = wait_for(lambda: your_moves(smtp, "one@example.com"), "p1's your-move mail")[0]
        assert subject(mail).startswith(f"botwars: your move in match {mid}, deadline ")
        assert mail["X-Botwars-Seat"] == "p1" and mail["To"] == "one@example.com"
        assert mail["X-Botwars-Decision"] == "1" and "decision point" not in mail.get_content()
        # nothing was queued for p2 at point 1
        assert [n for n in notices_of(c, mid, tok["p2"]) if n["decision"] == 1 and n["kind"] != "confirm"] == []
        assert your_moves(smtp, "two@example.com") == []

        # p1 moves: point 2 opens for p2, who is told; p1 is not told again
        r = c.post(f"/api/matches/{mid}/orders", headers=auth(tok["p1"]), json={"decision": 1, "orders": {"add": 1}})
        assert r.status_code == 200, r.text
        mail2 = wait_for(lambda: your_moves(smtp, "two@example.com"), "p2's your-move mail")[0]
        assert mail2["X-Botwars-Seat"] == "p2" and mail2["X-Botwars-Decision"] == "2"

        # p2 adds 1 (point 3: p1), p1 adds 2 → total 3: p1 wins
        assert c.post(f"/api/matches/{mid}/orders", headers=auth(tok["p2"]),
                      json={"decision": 2, "orders": {"add": 1}}).status_code == 200
        assert c.post(f"/api/matches/{mid}/orders", headers=auth(tok["p1"]),
                      json={"decision": 3, "orders": {"add": 2}}).status_code == 200
        assert c.get(f"/api/matches/{mid}").json()["status"] == "ended"

        def results(addr):
            return [m for m in smtp.to(addr) if "has ended" in subject(m)]
        for addr in ("one@example.com", "two@example.com"):
            res = wait_for(lambda: results(addr), f"result mail to {addr}")
            assert len(res) == 1
            assert subject(res[0]) == f"botwars: match {mid} has ended, p1 won"
            assert "Winner: p1." in res[0].get_content()
        # each seat got exactly its own your-move mails: p1 for points 1 and 3, p2 for point 2
        def moves(addr):
            return sorted(m["X-Botwars-Decision"] for m in smtp.to(addr)
                          if "your move" in subject(m))
        # (p1's notice of point 3 may be cancelled: p1 moved at once and the match ended) — the
        # mails p1 got are exactly its your-move notices that were sent, none that was cancelled
        wait_for(lambda: all(n["status"] != "pending" for n in notices_of(c, mid, tok["p1"])), "p1's notices settled")
        sent = sorted(str(n["decision"]) for n in notices_of(c, mid, tok["p1"])
                      if n["kind"] == "move" and n["status"] == "sent")
        assert sent in (["1"], ["1", "3"])  # point 1 is always sent; point 3 sent or cancelled
        assert moves("one@example.com") == sent
        assert moves("two@example.com") == ["2"]


def test_a_mail_server_that_never_answers_does_not_hold_up_the_match(toy, notice_env, sqlite_url, clock):
    """The mail server accepts the connection and then says nothing: the worker is stuck in
    that delivery while the match is played to its end; the notice is still pending then."""
    lsock = socket.socket()
    lsock.bind(("127.0.0.1", 0))
    lsock.listen(8)
    held: list[socket.socket] = []

    def accept():
        while True:
            try:
                conn, _ = lsock.accept()
            except OSError:
                return
            held.append(conn)

    threading.Thread(target=accept, daemon=True).start()
    notice_env(lsock.getsockname()[1], BOTWARS_SMTP_TIMEOUT="120s")
    try:
        with make_client(sqlite_url, clock) as c:
            mid, tok = new_toy(c, target=2)
            assert c.post(f"/api/matches/{mid}/notices", headers=auth(tok["p1"]),
                          json={"email": "one@example.com"}).status_code == 200
            wait_for(lambda: held, "the notice worker connecting to the mail server")
            # the worker is now waiting for the server's greeting; the game goes on regardless
            r = c.post(f"/api/matches/{mid}/orders", headers=auth(tok["p1"]), json={"decision": 1, "orders": {"add": 2}})
            assert r.status_code == 200 and r.json()["resolved"] is True
            assert c.get(f"/api/matches/{mid}").json()["status"] == "ended"
            ask = [n for n in notices_of(c, mid, tok["p1"]) if n["kind"] == "confirm"]
            assert ask and ask[0]["status"] == "pending" and ask[0]["attempts"] == 0  # still in flight
            for s in held:  # the mail server hangs up: the attempt fails and is counted
                s.close()
            lsock.shutdown(socket.SHUT_RDWR)  # (wakes the accepting thread; close alone does not)
            lsock.close()
            wait_for(lambda: any(n["attempts"] >= 1 for n in notices_of(c, mid, tok["p1"])),
                     "the failed attempt to be counted")
    finally:
        lsock.close()


def test_a_dead_mail_server_is_retried_with_back_off_and_logged_without_the_password(
        toy, notice_env, sqlite_url, clock, caplog):
    dead = free_port()  # nothing listens there
    notice_env(dead, BOTWARS_SMTP_USER="gm", BOTWARS_SMTP_PASSWORD="pw-Zq81-secret",
               BOTWARS_NOTICE_RETRY="60s")
    caplog.set_level(logging.DEBUG)
    with make_client(sqlite_url, clock) as c:
        mid, tok = new_toy(c, target=2)
        assert c.post(f"/api/matches/{mid}/notices", headers=auth(tok["p2"]),
                      json={"email": "two@example.com"}).status_code == 200
        # the match ends at once: p1 adds 2
        r = c.post(f"/api/matches/{mid}/orders", headers=auth(tok["p1"]), json={"decision": 1, "orders": {"add": 2}})
        assert r.status_code == 200 and r.json()["resolved"] is True

        def result():  # the address is unconfirmed: its confirmation request is what is tried
            return [n for n in notices_of(c, mid, tok["p2"]) if n["kind"] == "confirm"]
        first = wait_for(lambda: [n for n in result() if n["attempts"] == 1], "the first failed attempt")[0]
        assert first["status"] == "pending"
        assert first["next_attempt_at"] == pytest.approx(clock.t + 60.0)  # back-off: retry_s after attempt 1
        # not due yet: nothing more happens until the clock reaches the retry time
        clock.advance(61.0)
        c.app.state.notices.wake()
        second = wait_for(lambda: [n for n in result() if n["attempts"] == 2], "the retry")[0]
        assert second["status"] == "pending"
        assert second["next_attempt_at"] == pytest.approx(clock.t + 120.0)  # doubled
    logged = [r.getMessage() for r in caplog.records if r.name == "botwars.server.notices"]
    assert any(f"127.0.0.1:{dead}" in m for m in logged), logged
    assert not any("pw-Zq81-secret" in m for m in logged)


# ---- webhooks ---------------------------------------------------------------------------------
def test_webhook_is_signed_with_the_seats_secret_and_carries_only_public_facts(
        toy, hook, notice_env, sqlite_url, clock):
    notice_env(BOTWARS_WEBHOOK_ALLOW="127.0.0.1/32")
    hook.fail_next = 1  # the first request gets a 500: the delivery is retried (tenacity)
    with make_client(sqlite_url, clock) as c:
        mid, tok = new_toy(c, target=3)
        r = c.post(f"/api/matches/{mid}/notices", headers=auth(tok["p1"]), json={"webhook": hook.url})
        assert r.status_code == 200, r.text
        secret = r.json()["webhook_secret"]
        assert secret and len(secret) >= 32
        # the secret is given once: reading the registration back does not show it
        got = c.get(f"/api/matches/{mid}/notices", headers=auth(tok["p1"])).json()
        assert got["webhook"] == hook.url and got["webhook_secret"] is None

        wait_for(lambda: len(hook.requests) >= 2, "the retried webhook request")
        (h1, b1), (h2, b2) = hook.requests[:2]
        assert h1["x-botwars-notice"] == h2["x-botwars-notice"]  # the same notice, tried again
        for headers, body in hook.requests[:2]:
            want = "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
            assert headers["x-botwars-signature"] == want
            assert headers["host"] == hook.url.split("/")[2]
        # a changed body no longer verifies
        bad = "sha256=" + hmac.new(secret.encode(), b2 + b" ", hashlib.sha256).hexdigest()
        assert bad != h2["x-botwars-signature"]
        p = json.loads(b2)
        assert set(p) == {"event", "match", "game", "seat", "colour", "decision", "turn", "deadline", "deadline_utc", "link",
                          "watch", "names", "summary", "notice", "sent_at"}
        # issue 24 item 8: the link is p1's own seat page (this address was registered with p1's
        # token); the summary is p1's own (the toy game declares none: only the time left)
        assert p["link"] == f"{PUBLIC}/play/{mid}?token={tok['p1']}"
        assert p["watch"] == f"{PUBLIC}/watch/{mid}" and tok["p2"] not in b2.decode()
        assert set(p["summary"]) == {"time_left_s"}
        assert (p["event"], p["match"], p["seat"], p["decision"]) == ("move", mid, "p1", 1)
        assert p["colour"] == "red"  # seat 1's colour word, as its page and reports say (render/palette.py)
        summary = c.get(f"/api/matches/{mid}").json()
        assert p["deadline"] == pytest.approx(clock.t + summary["clock"]["time_left_s"]["p1"])
        wait_for(lambda: [n for n in notices_of(c, mid, tok["p1"]) if n["status"] == "sent"], "sent status")


def test_reminders_come_before_the_deadline_and_stop_once_the_seat_has_moved(
        toy, hook, notice_env, sqlite_url, clock):
    notice_env(BOTWARS_WEBHOOK_ALLOW="127.0.0.0/8", BOTWARS_NOTICE_REMINDERS="50s, 10s")
    with make_client(sqlite_url, clock) as c:
        mid, tok = new_toy(c, target=5, move_s=100.0, bank_s=0.0, on_expiry="default")
        secret = c.post(f"/api/matches/{mid}/notices", headers=auth(tok["p1"]),
                        json={"webhook": hook.url}).json()["webhook_secret"]
        deadline = clock.t + c.get(f"/api/matches/{mid}").json()["clock"]["time_left_s"]["p1"]

        def bodies():
            out = []
            for headers, body in list(hook.requests):
                assert headers["x-botwars-signature"] == "sha256=" + hmac.new(secret.encode(), body,
                                                                              hashlib.sha256).hexdigest()
                out.append(json.loads(body))
            return out
        wait_for(lambda: [b for b in bodies() if b["event"] == "move"], "the your-move webhook")
        rem = [n for n in notices_of(c, mid, tok["p1"]) if n["kind"] == "reminder"]
        assert sorted(n["next_attempt_at"] for n in rem) == pytest.approx([deadline - 50.0, deadline - 10.0])
        assert all(n["status"] == "pending" for n in rem)
        clock.advance(deadline - 50.0 - clock.t + 0.5)  # past the first reminder, before the second
        c.app.state.notices.wake()
        first = wait_for(lambda: [b for b in bodies() if b["event"] == "reminder"], "the 50 s reminder")
        assert first[0]["before_deadline_s"] == 50.0 and first[0]["deadline"] == pytest.approx(deadline)
        # p1 moves: the 10 s reminder is obsolete and is cancelled, not sent
        assert c.post(f"/api/matches/{mid}/orders", headers=auth(tok["p1"]),
                      json={"decision": 1, "orders": {"add": 1}}).status_code == 200
        clock.advance(45.0)
        c.app.state.notices.wake()
        wait_for(lambda: [n for n in notices_of(c, mid, tok["p1"]) if n["kind"] == "reminder"
                          and n["status"] == "cancelled"], "the 10 s reminder to be cancelled")
        assert [b["before_deadline_s"] for b in bodies() if b["event"] == "reminder"] == [50.0]


def test_a_restart_keeps_the_queue_and_sends_nothing_twice(toy, smtp, notice_env, sqlite_url, clock):
    notice_env(smtp.port)
    with make_client(sqlite_url, clock) as c:
        mid, tok = new_toy(c, target=3)
        assert c.post(f"/api/matches/{mid}/notices", headers=auth(tok["p1"]),
                      json={"email": "one@example.com"}).status_code == 200
        confirm(c, smtp, "one@example.com")
        wait_for(lambda: your_moves(smtp, "one@example.com"), "p1's your-move mail")
        wait_for(lambda: [n for n in notices_of(c, mid, tok["p1"]) if n["status"] == "sent"], "sent status")
    with make_client(sqlite_url, clock) as c:  # the server restarts on the same database
        assert c.app.state.notices.started
        assert c.get(f"/api/matches/{mid}/notices", headers=auth(tok["p1"])).json()["email"] == "one@example.com"
        # it re-observes the open point (p1's): the notice it already sent is not queued again
        c.app.state.notices.wake()
        assert c.post(f"/api/matches/{mid}/orders", headers=auth(tok["p1"]),
                      json={"decision": 1, "orders": {"add": 1}}).status_code == 200
        assert c.post(f"/api/matches/{mid}/orders", headers=auth(tok["p2"]),
                      json={"decision": 2, "orders": {"add": 1}}).status_code == 200
        # point 3 is p1's: a new notice, delivered by the restarted worker
        wait_for(lambda: len(your_moves(smtp, "one@example.com")) >= 2, "p1's second your-move mail")
        moves = [n for n in notices_of(c, mid, tok["p1"]) if n["kind"] == "move"]
        assert sorted(n["decision"] for n in moves) == [1, 3]
    assert [m["X-Botwars-Decision"] == "1" for m in your_moves(smtp, "one@example.com")] == [True, False]
    assert len(smtp.to("one@example.com")) == 3  # and the one confirmation mail, not sent again


# ---- registration: who may read it, what is accepted --------------------------------------------
def test_registration_is_readable_only_with_the_seats_token(toy, notice_env, sqlite_url, clock, smtp):
    notice_env(smtp.port)
    with make_client(sqlite_url, clock) as c:
        mid, tok = new_toy(c)
        url = f"/api/matches/{mid}/notices"
        assert c.post(url, headers=auth(tok["p1"]), json={"email": "one@example.com"}).status_code == 200
        assert c.get(url).status_code == 403
        assert c.get(url).json()["error"] == "token_required"
        assert c.get(url, headers=auth("not-a-token")).status_code == 403
        assert c.post(url, json={"email": "x@example.com"}).status_code == 403
        assert c.delete(url).status_code == 403
        other = c.get(url, headers=auth(tok["p2"])).json()
        assert other["seat"] == "p2" and other["email"] is None  # p2 cannot see p1's address
        assert "one@example.com" not in c.get(f"/api/matches/{mid}").text
        assert "one@example.com" not in c.get(f"/api/matches/{mid}/view").text
        mine = c.get(url, params={"token": tok["p1"]}).json()
        assert mine["email"] == "one@example.com"
        # another match's token does not open this one
        mid2, tok2 = new_toy(c)
        assert c.get(url, headers=auth(tok2["p1"])).status_code == 403
        assert c.get(f"/api/matches/nosuchmatch/notices", headers=auth(tok["p1"])).status_code == 404
        # removed: gone for good
        assert c.delete(url, headers=auth(tok["p1"])).json()["email"] is None
        assert c.get(url, headers=auth(tok["p1"])).json()["email"] is None


@pytest.mark.parametrize("body,field,words", [
    ({"email": "not-an-address"}, "email", "email address"),
    ({"email": "a@" + "b" * 250 + ".com"}, "email", "254"),
    ({"webhook": "ftp://example.com/x"}, "webhook", "http"),
    ({"webhook": "not a url"}, "webhook", ""),
    ({"webhook": "http://example.com/" + "x" * 2100}, "webhook", "2048"),
    ({"webhook": "http://127.0.0.1/hook"}, "webhook", "not public"),
    ({"webhook": "http://10.1.2.3/hook"}, "webhook", "not public"),
    ({"webhook": "https://169.254.169.254/latest"}, "webhook", "not public"),
    ({"webhook": "http://[::1]/hook"}, "webhook", "not public"),
    ({"webhook": "http://[::ffff:192.168.0.1]/hook"}, "webhook", "not public"),
    ({"webhook": "http://localhost:8000/"}, "webhook", "not public"),
    ({"pager": "555"}, "pager", "extra"),
])
def test_bad_addresses_are_422_naming_the_field(toy, notice_env, sqlite_url, clock, smtp, body, field, words):
    notice_env(smtp.port)  # no BOTWARS_WEBHOOK_ALLOW: loopback and private ranges are refused
    with make_client(sqlite_url, clock) as c:
        mid, tok = new_toy(c)
        r = c.post(f"/api/matches/{mid}/notices", headers=auth(tok["p1"]), json=body)
        assert r.status_code == 422, r.text
        msg = r.json()["message"]
        assert msg.startswith(f"{field}:") and words.lower() in msg.lower(), msg
        assert c.get(f"/api/matches/{mid}/notices", headers=auth(tok["p1"])).json()["webhook"] is None


def test_a_public_webhook_address_and_an_operator_allowed_one_are_accepted(toy, notice_env, sqlite_url, clock):
    notice_env(BOTWARS_WEBHOOK_ALLOW="10.1.0.0/16", BOTWARS_WEBHOOK_PORTS="80,443,8443")
    with make_client(sqlite_url, clock) as c:
        mid, tok = new_toy(c)
        url = f"/api/matches/{mid}/notices"
        for hook_url in ("http://93.184.216.34/hook", "https://10.1.2.3:8443/x"):
            r = c.post(url, headers=auth(tok["p1"]), json={"webhook": hook_url})
            assert r.status_code == 200, r.text
            assert r.json()["webhook"] == hook_url
        r = c.post(url, headers=auth(tok["p1"]), json={"webhook": "http://10.2.0.1/"})  # outside the allow-list
        assert r.status_code == 422 and "not public" in r.json()["message"]
        # no mail server configured: an e-mail address is refused, saying why
        r = c.post(url, headers=auth(tok["p1"]), json={"email": "one@example.com"})
        assert r.status_code == 409 and r.json()["error"] == "mail_disabled"


def test_bad_notice_settings_are_one_line_errors():
    from botwars.engine.errors import ConfigError
    from botwars.server.notices import NoticeSettings
    assert NoticeSettings.from_env({}).reminders_s == (86400.0, 3600.0)
    assert NoticeSettings.from_env({"BOTWARS_NOTICE_REMINDERS": "1h,2d"}).reminders_s == (172800.0, 3600.0)
    assert NoticeSettings.from_env({"BOTWARS_NOTICE_REMINDERS": ""}).reminders_s == ()
    for env, name in (({"BOTWARS_NOTICE_REMINDERS": "soon"}, "BOTWARS_NOTICE_REMINDERS"),
                      ({"BOTWARS_SMTP_PORT": "x"}, "BOTWARS_SMTP_PORT"),
                      ({"BOTWARS_WEBHOOK_ALLOW": "10.0.0.0/33"}, "BOTWARS_WEBHOOK_ALLOW"),
                      ({"BOTWARS_SMTP_STARTTLS": "maybe"}, "BOTWARS_SMTP_STARTTLS")):
        with pytest.raises(ConfigError) as ei:
            NoticeSettings.from_env(env)
        assert name in ei.value.one_line() and "\n" not in ei.value.one_line()
    s = NoticeSettings.from_env({"BOTWARS_SMTP_PASSWORD": "pw-Zq81-secret"})
    assert "pw-Zq81-secret" not in repr(s)


@pytest.mark.slow
def test_a_real_server_with_background_threads_sends_notices(toy, hook, notice_env, sqlite_url):
    """``botwars serve``'s mode: uvicorn, the real clock, the manager's background threads."""
    import httpx
    import uvicorn
    from botwars.server.app import create_app
    notice_env(BOTWARS_WEBHOOK_ALLOW="127.0.0.1/32")
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(sqlite_url, bot_workers=1), host="127.0.0.1", port=port,
                                           log_level="warning"))
    t = threading.Thread(target=server.run, daemon=True)
    t.start()
    url = f"http://127.0.0.1:{port}"
    try:
        # (tests/server/conftest.py's wait_http is not importable by name beside tests/web's conftest)
        wait_for(lambda: _answers(url), "the server to start")
        with httpx.Client(base_url=url, timeout=30) as c:
            r = c.post("/api/matches", json={"game": "servertoy", "config": {"target": 2}, "clock": False})
            mid, tok = r.json()["match"], {s["seat"]: s["token"] for s in r.json()["seats"]}
            secret = c.post(f"/api/matches/{mid}/notices", headers=auth(tok["p2"]),
                            json={"webhook": hook.url}).json()["webhook_secret"]
            assert c.post(f"/api/matches/{mid}/orders", headers=auth(tok["p1"]),
                          json={"decision": 1, "orders": {"add": 1}}).status_code == 200
            got = wait_for(lambda: [json.loads(b) for _, b in list(hook.requests)], "p2's webhook")
            assert (got[0]["event"], got[0]["seat"], got[0]["decision"], got[0]["deadline"]) == ("move", "p2", 2, None)
            headers, body = hook.requests[0]
            assert headers["x-botwars-signature"] == "sha256=" + hmac.new(secret.encode(), body,
                                                                          hashlib.sha256).hexdigest()
            # the link leads to the seat's own page under the configured public URL, not the request's address
            assert got[0]["link"] == f"{PUBLIC}/play/{mid}?token={tok['p2']}"
            assert got[0]["watch"] == f"{PUBLIC}/watch/{mid}"
    finally:
        server.should_exit = True
        t.join(timeout=10)


def _answers(url: str) -> bool:
    """True once the server at ``url`` answers ``/api/games`` with 200."""
    import httpx
    try:
        return httpx.get(url + "/api/games", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


# ---- missed deadlines are told (issue 24 item 4) ---------------------------------------------------
def test_a_missed_deadline_is_mailed_to_the_late_seat_only_with_its_default_program(smtp, notice_env, sqlite_url,
                                                                                    clock):
    notice_env(smtp.port)
    with make_client(sqlite_url, clock) as c:
        r = c.post("/api/matches", json={"game": "arena", "config": {"max_turns": 5}})
        body = r.json()
        mid, tok = body["match"], {s["seat"]: s["token"] for s in body["seats"]}
        for seat, addr in (("p1", "one@example.com"), ("p2", "two@example.com")):
            assert c.post(f"/api/matches/{mid}/notices", headers=auth(tok[seat]), json={"email": addr}).status_code == 200
            confirm(c, smtp, addr)  # issue 25 item 6: nothing is mailed before the owner agrees
        assert c.post(f"/api/matches/{mid}/orders", headers=auth(tok["p1"]),
                      json={"decision": 1, "orders": {"orders": []}}).status_code == 200
        clock.advance(2.5)  # past p2's 2 s move limit (arena P2)
        c.app.state.manager.tick()
        mail = wait_for(lambda: [m for m in smtp.to("two@example.com") if "missed" in subject(m)], "p2's missed mail")
        assert len(mail) == 1 and subject(mail[0]) == f"botwars: you missed the deadline in match {mid}"
        text = mail[0].get_content()
        assert "missed the deadline of turn 1 " in text and "decision point" not in text and "Your default program was played: " in text
        assert "-D" in text  # arena's default orders: every robot defends (P10)
        # the other seat gets no such mail, but sees the missed deadline in words like every player
        assert not [m for m in smtp.to("one@example.com") if "missed" in subject(m)]
        v = c.get(f"/api/matches/{mid}/view", headers=auth(tok["p1"])).json()
        assert v["notes"][-1]["text"] == "Blue missed the deadline: its default orders were played."
        # every "your move" notice says turn 1 for the first turn, turn 2 for the second (item 5)
        first = wait_for(lambda: [m for m in smtp.to("one@example.com") if "your move" in subject(m)
                                  and m["X-Botwars-Decision"] == "1"], "p1's first your-move mail")[0]
        assert ", turn 1." in first.get_content()
