"""Turn notices hardened (issue 25, items 6 and 7), through the same door as a stranger would use:

- item 6: an e-mail address gets nothing but one confirmation mail until its owner agrees; links
  come only from ``BOTWARS_PUBLIC_URL`` (never the request's ``Host``), and without it notices
  are refused saying so; a match may ask few addresses, an address may be in few matches;
- item 7: a webhook host is resolved and refused when any address is loopback, private,
  link-local, reserved, multicast or an IPv6 form embedding such an IPv4 address (mapped,
  compatible, NAT64, 6to4, Teredo); only ports 80 and 443 unless the operator allows more; and
  checked again at delivery. Name resolution is patched: no test sends traffic to these hosts.
"""

from __future__ import annotations

import ipaddress
import socket

import pytest

from server_support import make_client
from test_notices import (PUBLIC, auth, confirm, confirmation_link, new_toy, notice_env, notices_of, smtp,  # noqa: F401
                          subject, wait_for, your_moves)

from botwars.server import notices
from botwars.server.notices import AddressRefused, NoticeSettings, address_allowed, embedded_ipv4, resolve_webhook


# ---- item 6: confirmation ---------------------------------------------------------------------
def test_an_address_gets_only_the_confirmation_mail_until_its_owner_agrees(toy, smtp, notice_env, sqlite_url, clock):
    notice_env(smtp.port)
    with make_client(sqlite_url, clock) as c:
        mid, tok = new_toy(c, target=5)
        r = c.post(f"/api/matches/{mid}/notices", headers=auth(tok["p1"]), json={"email": "Victim@Example.com"})
        assert r.status_code == 200 and r.json()["email_status"] == "awaiting confirmation"
        link = confirmation_link(smtp, "victim@example.com")
        # p1's point is open, but nothing else reaches the address while nobody agreed
        assert [n for n in notices_of(c, mid, tok["p1"]) if n["kind"] == "move"] == []
        assert [subject(m) for m in smtp.to("victim@example.com")] == [
            "botwars: do you want turn notices at this address?"]
        # registering it again (another match, another case of letters, another seat) mails nothing more
        mid2, tok2 = new_toy(c, target=5)
        for m, t in ((mid, tok["p2"]), (mid2, tok2["p1"])):
            assert c.post(f"/api/matches/{m}/notices", headers=auth(t),
                          json={"email": "VICTIM@example.com"}).status_code == 200
        c.app.state.notices.wake()
        assert wait_for(lambda: all(n["status"] == "sent" for n in notices_of(c, mid, tok["p1"])), "the request sent")
        assert len(smtp.to("victim@example.com")) == 1
        # the owner agrees: the open points of both matches are notified at once
        token = link.split("token=", 1)[1]
        r = c.post("/api/notices/confirm", json={"token": token, "agree": True})
        assert r.json() == {"address": "victim@example.com", "status": "confirmed"}
        wait_for(lambda: len(your_moves(smtp, "victim@example.com")) == 2, "both matches' your-move mails")
        assert sorted(m["X-Botwars-Match"] for m in your_moves(smtp, "victim@example.com")) == sorted([mid, mid2])
        got = c.get(f"/api/matches/{mid}/notices", headers=auth(tok["p1"])).json()
        assert got["email_status"] == "confirmed"
        # a token that is not one
        r = c.post("/api/notices/confirm", json={"token": token[:-2] + "xx", "agree": True})
        assert r.status_code == 404 and "not valid" in r.json()["message"]


def test_an_owner_who_declines_is_never_mailed_again(toy, smtp, notice_env, sqlite_url, clock):
    notice_env(smtp.port)
    with make_client(sqlite_url, clock) as c:
        mid, tok = new_toy(c, target=5)
        url = f"/api/matches/{mid}/notices"
        assert c.post(url, headers=auth(tok["p1"]), json={"email": "no@example.com"}).status_code == 200
        assert confirm(c, smtp, "no@example.com", agree=False) == {"address": "no@example.com", "status": "declined"}
        assert c.get(url, headers=auth(tok["p1"])).json()["email"] is None  # the registration is gone
        r = c.post(url, headers=auth(tok["p2"]), json={"email": "no@example.com"})
        assert r.status_code == 409 and r.json()["error"] == "address_declined"
        assert r.json()["message"].startswith("email:") and "never to mail" in r.json()["message"]
        assert c.post(f"/api/matches/{mid}/orders", headers=auth(tok["p1"]),
                      json={"decision": 1, "orders": {"add": 1}}).status_code == 200
        c.app.state.notices.wake()
        assert len(smtp.to("no@example.com")) == 1  # the confirmation request only


def test_links_come_from_the_public_url_never_from_the_host_header(toy, smtp, notice_env, sqlite_url, clock):
    notice_env(smtp.port)
    with make_client(sqlite_url, clock) as c:
        mid, tok = new_toy(c, target=5)
        r = c.post(f"/api/matches/{mid}/notices", json={"email": "one@example.com"},
                   headers={**auth(tok["p1"]), "Host": "login.evil.example", "X-Forwarded-Host": "evil.example"})
        assert r.status_code == 200
        assert confirmation_link(smtp, "one@example.com").startswith(PUBLIC + "/notices/confirm?token=")
        confirm(c, smtp, "one@example.com")
        mail = wait_for(lambda: your_moves(smtp, "one@example.com"), "the your-move mail")[0]
        assert f"{PUBLIC}/watch/{mid}" in mail.get_content() and "evil" not in mail.get_content()


def test_without_a_public_url_notices_are_refused_saying_so(toy, smtp, notice_env, sqlite_url, clock, monkeypatch,
                                                            caplog):
    notice_env(smtp.port)
    monkeypatch.delenv("BOTWARS_PUBLIC_URL")
    with make_client(sqlite_url, clock) as c:
        assert not c.app.state.notices.started
        mid, tok = new_toy(c)
        for body in ({"email": "one@example.com"}, {"webhook": "http://93.184.216.34/hook"}):
            r = c.post(f"/api/matches/{mid}/notices", headers=auth(tok["p1"]), json=body)
            assert r.status_code == 409 and r.json()["error"] == "notices_disabled"
            assert "BOTWARS_PUBLIC_URL is not set" in r.json()["message"]
        # removing addresses is still answered
        assert c.delete(f"/api/matches/{mid}/notices", headers=auth(tok["p1"])).status_code == 200
    assert any("turn notices are off" in r.getMessage() and "BOTWARS_PUBLIC_URL" in r.getMessage()
               for r in caplog.records)
    assert smtp.messages == []


@pytest.mark.parametrize("value", ["play.example.com", "ftp://play.example.com", "https://", "https://x/?a=1"])
def test_a_bad_public_url_is_a_one_line_error_naming_it(value):
    from botwars.engine.errors import ConfigError
    with pytest.raises(ConfigError) as ei:
        NoticeSettings.from_env({"BOTWARS_PUBLIC_URL": value})
    assert "BOTWARS_PUBLIC_URL" in ei.value.one_line()
    assert NoticeSettings.from_env({"BOTWARS_PUBLIC_URL": "https://play.example.com/bw/"}).public_url == \
        "https://play.example.com/bw"


def test_one_match_may_ask_only_a_few_addresses(toy, smtp, notice_env, sqlite_url, clock):
    notice_env(smtp.port, BOTWARS_NOTICE_CONFIRMS_PER_MATCH="2")
    with make_client(sqlite_url, clock) as c:
        mid, tok = new_toy(c)
        url = f"/api/matches/{mid}/notices"
        for k in (1, 2):
            assert c.post(url, headers=auth(tok["p1"]), json={"email": f"a{k}@example.com"}).status_code == 200
        r = c.post(url, headers=auth(tok["p2"]), json={"email": "a3@example.com"})
        assert r.status_code == 429 and r.json()["error"] == "too_many_addresses"
        assert r.json()["message"].startswith("email:") and "2 addresses" in r.json()["message"]
        wait_for(lambda: len(smtp.messages) == 2, "the two confirmation requests")
        assert smtp.to("a3@example.com") == []
        # an address asked already is no new request: still accepted
        assert c.post(url, headers=auth(tok["p2"]), json={"email": "a1@example.com"}).status_code == 200


def test_one_address_may_be_in_only_a_few_running_matches(toy, notice_env, sqlite_url, clock, monkeypatch):
    notice_env(BOTWARS_NOTICE_MATCHES_PER_ADDRESS="2", BOTWARS_WEBHOOK_PORTS="80,443")
    _resolve(monkeypatch, {"hooks.example.net": ["93.184.216.34"]})
    hook = "https://hooks.example.net/in"
    with make_client(sqlite_url, clock) as c:
        made = [new_toy(c) for _ in range(3)]
        for mid, tok in made[:2]:
            assert c.post(f"/api/matches/{mid}/notices", headers=auth(tok["p1"]), json={"webhook": hook}).status_code == 200
        # the same seat registering again is no new match
        mid, tok = made[0]
        assert c.post(f"/api/matches/{mid}/notices", headers=auth(tok["p1"]), json={"webhook": hook}).status_code == 200
        mid, tok = made[2]
        r = c.post(f"/api/matches/{mid}/notices", headers=auth(tok["p1"]), json={"webhook": hook})
        assert r.status_code == 429 and r.json()["error"] == "too_many_registrations"
        assert r.json()["message"].startswith("webhook:") and "2 running matches" in r.json()["message"]


def test_the_confirmation_page_changes_nothing_until_a_button_is_pressed(toy, smtp, notice_env, sqlite_url, clock):
    notice_env(smtp.port)
    with make_client(sqlite_url, clock, web=True) as c:
        mid, tok = new_toy(c, target=5)
        assert c.post(f"/api/matches/{mid}/notices", headers=auth(tok["p1"]),
                      json={"email": "one@example.com"}).status_code == 200
        path = confirmation_link(smtp, "one@example.com")[len(PUBLIC):]
        r = c.get(path)  # what a mail scanner does
        assert r.status_code == 200 and "one@example.com" in r.text and "Yes, mail me turn notices" in r.text
        assert c.get(f"/api/matches/{mid}/notices", headers=auth(tok["p1"])).json()["email_status"] == \
            "awaiting confirmation"
        r = c.post(path + "&agree=1")
        assert r.status_code == 200 and "Done: turn notices of your matches will be mailed" in r.text
        assert c.get(f"/api/matches/{mid}/notices", headers=auth(tok["p1"])).json()["email_status"] == "confirmed"
        r = c.get("/notices/confirm?token=not-a-token", headers={"Accept": "text/html"})
        assert r.status_code == 404 and "This confirmation link is not valid" in r.text


# ---- item 7: webhook addresses ------------------------------------------------------------------
def _resolve(monkeypatch, names: dict[str, list[str]]) -> None:
    """Patch name resolution: the names of ``table`` resolve to its addresses, an address
    literal to itself, other names fail."""
    def fake(host, port, *args, **kwargs):
        try:
            table = {host: [str(ipaddress.ip_address(host))], **names}
        except ValueError:
            table = names
        if host not in table:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return [(socket.AF_INET6 if ":" in a else socket.AF_INET, socket.SOCK_STREAM, 6, "",
                 (a, port, 0, 0) if ":" in a else (a, port)) for a in table[host]]
    monkeypatch.setattr(notices.socket, "getaddrinfo", fake)


REFUSED = [
    "127.0.0.1", "10.0.0.1", "172.16.5.4", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0",
    "240.0.0.1", "255.255.255.255", "224.0.0.1", "239.1.2.3",
    "::1", "::", "fe80::1", "fc00::1", "fd12:3456::1", "ff02::1", "ff0e::1",
    "::ffff:127.0.0.1", "::ffff:10.0.0.1",          # IPv4-mapped
    "::127.0.0.1", "::10.0.0.1", "::169.254.169.254",  # IPv4-compatible
    "64:ff9b::7f00:1", "64:ff9b::a00:1", "64:ff9b::a9fe:a9fe",  # NAT64 (RFC 6052)
    "64:ff9b:1::7f00:1",                             # local-use NAT64 (RFC 8215)
    "2002:7f00:1::", "2002:a00:1::1", "2002:c0a8:101::",  # 6to4 of 127.0.0.1, 10.0.0.1, 192.168.1.1
    "2001:0:4136:e378:8000:63bf:3fff:fdd2",          # Teredo
    "2001:0:7f00:1:0:0:0:1",                         # Teredo with server 127.0.0.1
]
ACCEPTED = ["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808",
            "2002:808:808::1"]


@pytest.mark.parametrize("addr", REFUSED)
def test_every_non_public_form_is_refused(addr):
    assert not address_allowed(ipaddress.ip_address(addr), NoticeSettings())


@pytest.mark.parametrize("addr", ACCEPTED)
def test_public_addresses_and_forms_embedding_one_are_accepted(addr):
    assert address_allowed(ipaddress.ip_address(addr), NoticeSettings())


def test_the_embedded_ipv4_addresses_are_found():
    def emb(a):
        return [str(x) for x in embedded_ipv4(ipaddress.ip_address(a))]
    assert emb("::ffff:127.0.0.1") == ["127.0.0.1"]
    assert emb("::127.0.0.1") == ["127.0.0.1"]
    assert emb("64:ff9b::7f00:1") == ["127.0.0.1"]
    assert emb("2002:7f00:1::") == ["127.0.0.1"]
    assert emb("2001:0:4136:e378:8000:63bf:3fff:fdd2") == ["65.54.227.120", "192.0.2.45"]
    assert emb("::1") == [] and emb("2606:4700::1") == [] and emb("8.8.8.8") == []


def test_the_operator_allow_list_covers_the_embedded_address_too():
    allow = NoticeSettings(webhook_allow=(ipaddress.ip_network("127.0.0.0/8"),))
    for a in ("127.0.0.1", "::ffff:127.0.0.1", "::127.0.0.1"):
        assert address_allowed(ipaddress.ip_address(a), allow), a
    assert not address_allowed(ipaddress.ip_address("10.0.0.1"), allow)
    assert address_allowed(ipaddress.ip_address("10.0.0.1"), NoticeSettings(any_address=True))


def test_a_name_is_refused_when_any_of_its_addresses_is(monkeypatch):
    _resolve(monkeypatch, {"mixed.example": ["93.184.216.34", "64:ff9b::7f00:1"],
                           "good.example": ["93.184.216.34", "2606:4700::1111"]})
    with pytest.raises(AddressRefused, match="64:ff9b::7f00:1.*not public"):
        resolve_webhook("https://mixed.example/in", NoticeSettings())
    assert resolve_webhook("https://good.example/in", NoticeSettings()) == ["93.184.216.34", "2606:4700::1111"]
    with pytest.raises(AddressRefused, match="cannot be resolved"):
        resolve_webhook("https://nowhere.example/in", NoticeSettings())


@pytest.mark.parametrize("url,ok", [("http://good.example/", True), ("https://good.example/", True),
                                    ("http://good.example:443/", True), ("http://good.example:8080/", False),
                                    ("https://good.example:22/", False), ("http://good.example:6379/", False)])
def test_only_ports_80_and_443_unless_the_operator_allows_more(monkeypatch, url, ok):
    _resolve(monkeypatch, {"good.example": ["93.184.216.34"]})
    if ok:
        assert resolve_webhook(url, NoticeSettings()) == ["93.184.216.34"]
    else:
        with pytest.raises(AddressRefused, match="port .* is not allowed.*BOTWARS_WEBHOOK_PORTS"):
            resolve_webhook(url, NoticeSettings())
    assert resolve_webhook(url, NoticeSettings.from_env({"BOTWARS_WEBHOOK_PORTS": "any"}))
    assert resolve_webhook("http://good.example:8080/", NoticeSettings.from_env({"BOTWARS_WEBHOOK_PORTS": "80,8080"}))


@pytest.mark.parametrize("hook", ["http://[64:ff9b::7f00:1]/hook", "http://[2002:7f00:1::]/hook",
                                  "http://[::127.0.0.1]/hook", "http://[2001:0:7f00:1::1]/hook",
                                  "http://[ff02::1]/hook", "http://224.0.0.1/hook", "http://sneaky.example/hook",
                                  "http://93.184.216.34:8080/hook"])
def test_registration_refuses_them_through_http(toy, notice_env, sqlite_url, clock, monkeypatch, hook):
    notice_env(BOTWARS_WEBHOOK_PORTS="80,443")
    _resolve(monkeypatch, {"sneaky.example": ["2002:a00:1::1"]})
    with make_client(sqlite_url, clock) as c:
        mid, tok = new_toy(c)
        r = c.post(f"/api/matches/{mid}/notices", headers=auth(tok["p1"]), json={"webhook": hook})
        assert r.status_code == 422, r.text
        msg = r.json()["message"]
        assert msg.startswith("webhook:") and ("not public" in msg or "port 8080 is not allowed" in msg), msg


def test_the_address_is_checked_again_at_delivery(toy, notice_env, sqlite_url, clock, monkeypatch):
    """A name that was public at registration and points at loopback later (DNS rebinding) is
    refused at delivery: the notice fails for good, and no connection is made."""
    notice_env(BOTWARS_WEBHOOK_PORTS="80,443")
    _resolve(monkeypatch, {"rebind.example": ["93.184.216.34"]})
    import httpx
    connected = []

    async def post(self, *args, **kwargs):
        connected.append(args)
        raise httpx.ConnectError("the test refuses every connection")
    monkeypatch.setattr(httpx.AsyncClient, "post", post)
    with make_client(sqlite_url, clock) as c:
        mid, tok = new_toy(c, target=5)
        # p2 registers while point 1 (p1's) is open: nothing is due for p2 yet
        assert c.post(f"/api/matches/{mid}/notices", headers=auth(tok["p2"]),
                      json={"webhook": "http://rebind.example/hook"}).status_code == 200
        _resolve(monkeypatch, {"rebind.example": ["127.0.0.1"]})
        assert c.post(f"/api/matches/{mid}/orders", headers=auth(tok["p1"]),
                      json={"decision": 1, "orders": {"add": 1}}).status_code == 200
        got = wait_for(lambda: [n for n in notices_of(c, mid, tok["p2"]) if n["status"] == "failed"],
                       "the refused delivery")
        assert got[0]["kind"] == "move" and got[0]["attempts"] == 1
    assert connected == []
