"""The web UI's pages and helper endpoints over HTTP (no browser): secrecy of the board SVG,
the order-entry helpers, bot suggestions, and the replay data of an ended match."""

from __future__ import annotations

import time

import httpx


def wait_ended(live, mid: str) -> None:
    for _ in range(400):
        if httpx.get(f"{live.url}/api/matches/{mid}").json()["status"] == "ended":
            return
        time.sleep(0.05)
    raise AssertionError(f"match {mid} did not end")


def test_issue8_lobby_lists_games_and_matches(live):
    m = live.create("arena", ["remote", "builtin:swarm"])
    page = httpx.get(live.url + "/")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    for game in ("arena", "factory", "geeko", "dadoed", "submarine"):
        assert f'data-game="{game}"' in page.text
    assert m["match"] in page.text and f"/watch/{m['match']}" in page.text
    assert "builtin:swarm" in page.text  # seats can be given to built-in bots


def test_issue8_seat_page_needs_the_seat_token(live):
    m = live.create("arena", ["remote", "remote"])
    ok = httpx.get(f"{live.url}/play/{m['match']}", params={"token": m["seats"][1]["token"]})
    assert ok.status_code == 200 and 'data-seat="p2"' in ok.text
    bad = httpx.get(f"{live.url}/play/{m['match']}", params={"token": "not-a-token"})
    assert bad.status_code == 403 and bad.json()["error"] == "bad_token"
    assert httpx.get(f"{live.url}/watch/nope").status_code == 404


def test_S_8_board_svg_hides_enemy_submarines_from_the_seat_and_spectator(live):
    m = live.create("submarine", ["remote", "remote"], seed=2)
    tokens = {s["seat"]: s["token"] for s in m["seats"]}
    for seat, token in tokens.items():  # setup through the API: placements are secret
        sugg = httpx.get(f"{live.url}/web/matches/{m['match']}/suggest", params={"token": token, "bot": "random"})
        assert sugg.status_code == 200
        r = httpx.post(f"{live.url}/api/matches/{m['match']}/orders", params={"token": token},
                       json={"decision": 1, "orders": sugg.json()["orders"]})
        assert r.status_code == 200, r.text
    # p1 submerges a sub: p2 and the spectator must not see where it is
    acts = httpx.get(f"{live.url}/web/matches/{m['match']}/helpers", params={"token": tokens["p1"]}).json()["actions"]
    sub = next(a for a in acts if a["action"] == "submerge")
    assert sub["cost"] >= 1  # the AP counter's cost
    r = httpx.post(f"{live.url}/api/matches/{m['match']}/orders", params={"token": tokens["p1"]},
                   json={"decision": 2, "orders": {"type": "orders", "actions": [{"sub": sub["sub"], "action": "submerge"}]}})
    assert r.status_code == 200, r.text
    own = httpx.get(f"{live.url}/web/matches/{m['match']}/board.svg", params={"token": tokens["p1"]})
    other = httpx.get(f"{live.url}/web/matches/{m['match']}/board.svg", params={"token": tokens["p2"]})
    spec = httpx.get(f"{live.url}/web/matches/{m['match']}/board.svg")
    assert own.headers["content-type"].startswith("image/svg+xml")
    assert f'data-sub="{sub["sub"]}"' in own.text
    assert f'data-sub="{sub["sub"]}"' not in other.text
    assert f'data-sub="{sub["sub"]}"' not in spec.text


def test_D_12_4_helpers_list_legal_orders_only_for_the_active_seat(live):
    m = live.create("dadoed", ["remote", "remote"], seed=1)
    tokens = [s["token"] for s in m["seats"]]
    for t in tokens:
        sugg = httpx.get(f"{live.url}/web/matches/{m['match']}/suggest", params={"token": t, "bot": "random"}).json()
        assert httpx.post(f"{live.url}/api/matches/{m['match']}/orders", params={"token": t},
                          json={"decision": 1, "orders": sugg["orders"]}).status_code == 200
    h = [httpx.get(f"{live.url}/web/matches/{m['match']}/helpers", params={"token": t}).json() for t in tokens]
    active = 0 if h[0]["legal"] else 1
    assert h[active]["legal"] and all(o["type"] in ("command", "resign") for o in h[active]["legal"])
    assert h[1 - active]["legal"] is None  # not this seat's turn: nothing listed


def test_issue8_suggest_names_an_unknown_bot(live):
    m = live.create("arena", ["remote", "remote"])
    r = httpx.get(f"{live.url}/web/matches/{m['match']}/suggest", params={"token": m["seats"][0]["token"], "bot": "nobody"})
    assert r.status_code == 422 and "nobody" in r.json()["message"]


def test_issue8_replay_only_after_the_end_with_reports_per_decision(live):
    running = live.create("factory", ["remote", "remote"])
    r = httpx.get(f"{live.url}/replay/{running['match']}")
    assert r.status_code == 403 and r.json()["error"] == "match_running"
    m = live.create("factory", ["builtin:random", "builtin:random"], {"turn_limit": "2"}, seed=9)
    wait_ended(live, m["match"])
    j = httpx.get(f"{live.url}/web/matches/{m['match']}/replay.json").json()
    steps = j["steps"]
    assert steps[0]["k"] == 0 and steps[0]["report"] == ""
    assert len(steps) >= 2 and "STAGE 1" in steps[1]["report"] and "<pre" in steps[1]["report"]
    assert set(steps[1]["orders"]) == {"p1", "p2"}
    for k in (0, len(steps) - 1):
        svg = httpx.get(f"{live.url}/web/matches/{m['match']}/replay/{k}.svg")
        assert svg.status_code == 200 and svg.text.lstrip().startswith("<")
    assert httpx.get(f"{live.url}/web/matches/{m['match']}/replay/{len(steps)}.svg").status_code == 404
    assert httpx.get(f"{live.url}/replay/{m['match']}").status_code == 200


def test_issue8_coordinates_in_the_games_notation(live):
    for game, labels in (("factory", ("r12", "c1")), ("dadoed", ("A", "8")), ("submarine", ("G", "7"))):
        m = live.create(game, ["remote", "remote"])
        svg = httpx.get(f"{live.url}/web/matches/{m['match']}/board.svg").text
        for lab in labels:
            assert f">{lab}<" in svg, (game, lab)
