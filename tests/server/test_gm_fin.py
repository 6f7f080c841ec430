"""The game master's seat over HTTP, the last audit's list (issue 24): the GM sets a seat's
orders with that seat's own controls (the GM sees the seat as the seat does; a seat's token
never sees another seat that way, item 1); "Change orders" in any browser (the seat's own
snapshot carries its submitted orders, and no other seat's or spectator's does, item 3);
pause and resume need a reason (422 with a sentence, nothing changes)."""

from __future__ import annotations

import json

from test_server_api import EMPTY, H, create, err, order, state_of, view


def gm(api, mid, tok, action, **body):
    return api.post(f"/api/matches/{mid}/gm/{action}", headers=H(tok), json=body)


def arena(api, **kw):
    mid, toks, d = create(api, config={"max_turns": 10}, **kw)
    return mid, toks, d["gm_token"]


def a_move(api, mid, tok):
    """Orders of the seat of ``tok`` that the rules accept: its first robot moves south (arena
    text notation ``x:y-M-S``)."""
    bot = next(u for u in view(api, mid, tok)["view"]["robots"] if u["side"] == "F")  # F: the seat's own
    return f"{bot['x']}:{bot['y']}-M-S"


# ---- item 3: the seat's own orders in its own snapshot only -------------------------------------
def test_the_seats_own_snapshot_carries_its_submitted_orders_and_no_other_does(api):
    mid, toks, g = arena(api, seed=3)
    assert view(api, mid, toks[0])["your_orders"] is None  # nothing submitted yet
    mine = a_move(api, mid, toks[0])
    assert order(api, mid, toks[0], 1, mine).status_code == 200
    assert view(api, mid, toks[0])["your_orders"] == mine
    # never to the other seat, a spectator, or the public summary (the orders are secret, S-8.6)
    for other in (view(api, mid, toks[1]), view(api, mid)):
        assert other["your_orders"] is None and mine not in json.dumps(other)
    assert mine not in api.get(f"/api/matches/{mid}").text
    # once the turn resolves, the snapshot no longer offers the old orders
    assert order(api, mid, toks[1], 1, EMPTY).status_code == 200
    v = view(api, mid, toks[0])
    assert v["decision"] == 2 and v["your_orders"] is None


def test_the_other_seats_websocket_snapshot_does_not_carry_the_orders(api):
    mid, toks, _ = arena(api, seed=3)
    mine = a_move(api, mid, toks[0])
    order(api, mid, toks[0], 1, mine)
    with api.websocket_connect(f"/api/matches/{mid}/ws?token={toks[1]}") as ws:
        snap = ws.receive_json()
    assert snap["seat"] == "p2" and snap["your_orders"] is None and mine not in json.dumps(snap)
    with api.websocket_connect(f"/api/matches/{mid}/ws?token={toks[0]}") as ws:
        assert ws.receive_json()["your_orders"] == mine


# ---- item 1: the GM sees a seat as the seat does, for that seat's own controls ------------------
def test_the_gm_sees_a_seat_as_the_seat_does(api):
    mid, toks, g = arena(api, seed=3)
    mine = a_move(api, mid, toks[1])
    order(api, mid, toks[1], 1, mine)
    r = api.get(f"/api/matches/{mid}/gm/seat/p2", headers=H(g))
    assert r.status_code == 200, r.text
    as_gm, as_seat = r.json(), view(api, mid, toks[1])
    assert as_gm["view"] == as_seat["view"] and as_gm["your_orders"] == mine and as_gm["seat"] == "p2"
    b = api.get(f"/web/matches/{mid}/board.svg", params={"token": g, "as_seat": "p2"})
    assert b.status_code == 200 and b.text == api.get(f"/web/matches/{mid}/board.svg", params={"token": toks[1]}).text
    h = api.get(f"/web/matches/{mid}/helpers", params={"token": g, "as_seat": "p2"})
    assert h.status_code == 200 and h.json() == api.get(f"/web/matches/{mid}/helpers", params={"token": toks[1]}).json()
    err(api.get(f"/api/matches/{mid}/gm/seat/p9", headers=H(g)), 422, "unknown_seat")
    err(api.get(f"/web/matches/{mid}/board.svg", params={"token": g, "as_seat": "p9"}), 422, "unknown_seat")


def test_a_seat_token_cannot_see_another_seat_through_as_seat(api):
    mid, toks, g = arena(api, seed=3)
    mine = a_move(api, mid, toks[1])
    order(api, mid, toks[1], 1, mine)
    for url in (f"/web/matches/{mid}/board.svg", f"/web/matches/{mid}/helpers", f"/web/matches/{mid}/legend.svg"):
        for tok in (toks[0], "x" * 43):
            r = api.get(url, params={"token": tok, "as_seat": "p2"})
            assert r.status_code == 403, (url, r.text)
            assert mine not in r.text
    r = api.post(f"/web/matches/{mid}/plan", params={"token": toks[0], "as_seat": "p2"}, json={})
    assert r.status_code in (403, 404)  # the arena draws no plan; never p2's path for p1
    err(api.get(f"/api/matches/{mid}/gm/seat/p2", headers=H(toks[0])), 403, "not_game_master")
    page = api.get(f"/gm/{mid}/seat/p2", params={"token": toks[0]})
    assert page.status_code == 403 and mine not in page.text


def test_the_gm_seat_page_is_the_seats_controls_in_the_gm_mode(api):
    mid, toks, g = arena(api, seed=3)
    r = api.get(f"/gm/{mid}/seat/p2", params={"token": g})
    assert r.status_code == 200, r.text
    assert 'data-gm="yes"' in r.text and 'data-seat="p2"' in r.text and "Set these orders" in r.text
    assert 'id="gm-seat-reason"' in r.text and 'id="resign"' not in r.text
    assert api.get(f"/gm/{mid}/seat/p9", params={"token": g}).status_code == 404


# ---- item 5: pause and resume need a reason -------------------------------------------------------
def test_pause_and_resume_without_a_reason_are_422_and_change_nothing(api):
    mid, toks, g = arena(api)
    for reason in ("", "   "):
        b = err(gm(api, mid, g, "pause", reason=reason), 422)
        assert "reason" in b["message"]
    assert view(api, mid)["clock"]["paused"] is False and view(api, mid)["notes"] == []
    assert gm(api, mid, g, "pause", reason="holiday").status_code == 200
    before = state_of(api, mid)
    b = err(gm(api, mid, g, "resume"), 422)
    assert "reason" in b["message"]
    assert view(api, mid)["clock"]["paused"] is True and state_of(api, mid) == before
    assert gm(api, mid, g, "resume", reason="back").status_code == 200


# ---- item 3 (issue 24 item 2): names beside the colours in the games' text reports -------------
from test_secrecy_audit import client, suggestion  # noqa: E402,F401 - client is a fixture (web pages)


def test_names_stand_beside_the_colours_in_turn_pages_stage_tables_and_the_document(client):
    """F-9.3's NAME cell reads "p1 (red)"; with display names the published pages read
    "Ana (red)", the players list "Ana (Red)" (never "Ana (Red (p1))"), and a name with an
    ampersand is escaped."""
    names = ["Ana", "Bruno", "Chen", "Dora & Co"]
    r = client.post("/api/matches", json={"game": "factory", "seats": ["remote"] * 4, "seed": 7, "config": {},
                                          "names": names})
    assert r.status_code == 201, r.text
    d = r.json()
    mid, toks, g = d["match"], {s["seat"]: s["token"] for s in d["seats"]}, d["gm_token"]
    for seat, tok in toks.items():
        o = suggestion(client, mid, tok, "random")
        assert client.post(f"/api/matches/{mid}/orders", params={"token": tok},
                           json={"decision": 1, "orders": o}).status_code == 200
    html = client.get(f"/matches/{mid}/turns/1", headers={"Accept": "text/html"}).text
    assert "Ana (red)" in html and "Bruno (blue)" in html and "Dora &amp; Co (yellow)" in html
    assert "Ana (Red)" in html and "Dora &amp; Co (Yellow)" in html
    assert "p1 (red)" not in html and "(Red (p1))" not in html and "Dora & Co" not in html
    secs = client.get(f"/web/matches/{mid}/turn/1/stages.json").json()["sections"]
    cells = json.dumps([s["rows"] for s in secs])
    assert "Ana (red)" in cells and "p1 (red)" not in cells
    assert client.post(f"/api/matches/{mid}/gm/end", headers=H(g),
                       json={"winner": "p1", "reason": "season over"}).status_code == 200
    doc = client.get(f"/matches/{mid}/document", headers={"Accept": "text/html"}).text
    assert "Result: Ana (Red) won" in doc and "Ana (red)" in doc and "(Red (p1))" not in doc
    step = client.get(f"/web/matches/{mid}/replay/1.json").json()
    assert "Ana (red)" in json.dumps(step["sections"]) and "p1 (red)" not in json.dumps(step["sections"])


def test_a_seat_without_a_name_keeps_its_colour_and_seat(client):
    r = client.post("/api/matches", json={"game": "factory", "seats": ["remote"] * 2, "seed": 7, "config": {},
                                          "names": ["Ana", None]})
    d = r.json()
    mid, toks = d["match"], {s["seat"]: s["token"] for s in d["seats"]}
    for tok in toks.values():
        client.post(f"/api/matches/{mid}/orders", params={"token": tok},
                    json={"decision": 1, "orders": suggestion(client, mid, tok, "random")})
    html = client.get(f"/matches/{mid}/turns/1", headers={"Accept": "text/html"}).text
    assert "Ana (red)" in html and "p2 (blue)" in html and ">Blue<" in html.replace(" <", "<")
