"""The web UI's pages and helper endpoints over HTTP (no browser): secrecy of the board SVG,
the order-entry helpers, bot suggestions, and the replay data of an ended match."""

from __future__ import annotations

import time

import pytest

import httpx


def wait_ended(live, mid: str) -> None:
    end = time.monotonic() + 120  # a deadline, not a count of sleeps: bots run slowly under load
    while time.monotonic() < end:
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


# ---- issue 13 ------------------------------------------------------------------------------------
SHARED_RULES = "/work/shared/rules"


def test_issue13_rules_page_per_game_rendered_from_markdown(live):
    for game in ("arena", "factory", "geeko", "dadoed", "submarine"):
        r = httpx.get(f"{live.url}/rules/{game}")
        assert r.status_code == 200 and "text/html" in r.headers["content-type"], game
        assert "<h2 id=\"s-1\">" in r.text and 'href="#s-1"' in r.text  # headings anchored, contents linked
        assert "<table>" in r.text  # the rule tables are tables, not pipes
    assert "<script" not in httpx.get(f"{live.url}/rules/arena").text.split("</header>")[1].split("</main>")[0]
    assert httpx.get(f"{live.url}/rules/nogame").status_code == 404


def test_issue13_shipped_rules_are_the_binding_rules():
    """Each game's rules page (its declared ``rules_page``, in its own folder) must equal
    shared/rules where it exists."""
    import os
    from botwars.engine.plugin import get_game
    if not os.path.isdir(SHARED_RULES):
        pytest.skip(f"{SHARED_RULES} is not on this machine: nothing to compare the copies with")
    names = sorted(os.listdir(SHARED_RULES))
    assert names
    for name in names:
        game = get_game(name.removesuffix(".md"))
        with open(os.path.join(SHARED_RULES, name), encoding="utf-8") as a:
            assert a.read() == game.binding_rules_text(), f"{game.rules_page} differs from shared/rules/{name}: copy it again"


def test_issue13_lobby_offers_shipped_boards_and_plain_seat_names(live):
    page = httpx.get(live.url + "/").text
    assert 'data-name="board"' in page and '<option value="tiny-yard"' in page  # factory boards
    assert 'data-name="map"' in page and '<option value="small"' in page  # arena maps
    assert "You (this browser)" in page and "A friend — send them a link" in page and "Bot: greedy" in page
    assert "human (browser link)" not in page and ">remote<" not in page


def test_issue13_replay_steps_labelled_like_the_seat_pages_and_drawn_for_any_seat(live):
    m = live.create("geeko", ["builtin:random", "builtin:random"], {"turn_limit": "2"}, seed=4)
    wait_ended(live, m["match"])
    steps = httpx.get(f"{live.url}/web/matches/{m['match']}/replay.json").json()["steps"]
    assert [s["label"] for s in steps[:3]] == ["start", "turn 1", "turn 2"]
    spec = httpx.get(f"{live.url}/web/matches/{m['match']}/replay/1.svg").text
    seat = httpx.get(f"{live.url}/web/matches/{m['match']}/replay/1.svg", params={"seat": "p1"}).text
    assert 'data-letter="A"' not in spec  # G-10.6: the spectator's picture has no robots
    assert 'data-letter="A"' in seat and 'data-letter="B"' in seat  # the seat's room, robots lettered
    bad = httpx.get(f"{live.url}/web/matches/{m['match']}/replay/1.svg", params={"seat": "p9"})
    assert bad.status_code == 422 and "p9" in bad.json()["message"]


def test_issue13_replay_setup_steps_are_called_setup(live):
    m = live.create("dadoed", ["builtin:random", "builtin:random"], {"max_turns": "3"}, seed=4)
    wait_ended(live, m["match"])
    steps = httpx.get(f"{live.url}/web/matches/{m['match']}/replay.json").json()["steps"]
    # D-3.4, D-5.1: one player moves at a time, so a turn says whose it was (issue 23)
    assert [s["label"] for s in steps[:3]] == ["start", "setup", "Blue's turn 1"]


def test_issue13_boards_carry_grid_metadata_for_clicks(live):
    expect = {"arena": ("16", "16"), "factory": ("12", "12"), "dadoed": ("8", "8"), "submarine": ("7", "7")}
    for game, (cols, rows) in expect.items():
        m = live.create(game, ["remote", "remote"])
        svg = httpx.get(f"{live.url}/web/matches/{m['match']}/board.svg").text
        assert f'class="grid-meta" data-cols="{cols}" data-rows="{rows}"' in svg, game


def test_G_2_2_gates_open_and_closed_are_drawn_differently():
    from botwars.engine import get_game
    rs = get_game("geeko").ruleset()
    st = rs.setup(rs.validate_config({}), ["p1", "p2"], 1)
    svg = rs.svg(st, "p1", [])
    assert ">SHUT<" in svg  # room 1's gate r7c4 is closed at the start (GT1-)
    run = st.runs[0]
    run.gates = {sq: True for sq in run.gates}
    assert ">OPEN<" in rs.svg(st, "p1", []) and ">SHUT<" not in rs.svg(st, "p1", [])


def test_F_6_5_robots_sharing_a_square_each_get_their_own_ring(live):
    m = live.create("factory", ["remote", "remote"], seed=1)  # both virtual robots start on r1c6
    svg = httpx.get(f"{live.url}/web/matches/{m['match']}/board.svg").text
    assert svg.count('data-square="r1c6"') == 2
    rings = [line for line in svg.split("<circle") if 'class="disc"' in line]  # each robot's own disc
    assert len({r.split('cx="')[1].split('"')[0] for r in rings}) == 2  # side by side, not on one spot


def _plan_board() -> str:
    """Two rows, four columns; the robot starts on r1c1 facing east; r1c2 has a wall on its
    east side (F-3.4 ``/wE``)."""
    rows = ["F1 . . .", ". ./wE . ."]
    body = "\n".join(f"r{2 - i}  {r}" for i, r in enumerate(rows))
    return f"board: plan\nrows: 2\ncols: 4\nstart: r1c1 E\ngrid:\n{body}\nend\n"


def test_F_6_planned_path_follows_the_board_not_a_straight_line(live):
    """Issue 13 item 2: the planned path is the program's path on the current board. FWD2 from
    r1c1 facing east stops at r1c2: the wall on r1c2's east side blocks the second step (F-6)."""
    m = live.create("factory", ["remote", "remote"], {"board": _plan_board()}, seed=1)
    tok = m["seats"][0]["token"]
    url = f"{live.url}/web/matches/{m['match']}/plan"
    r = httpx.post(url, params={"token": tok}, json={"cards": ["FWD2 710"]}, timeout=30)
    assert r.status_code == 200, r.text
    assert r.json()["steps"] == [{"robot": None, "register": 1, "from": "r1c1", "to": "r1c2", "facing": "E",
                                  "alive": True}]
    # a turn, then a step: the partial program is planned register by register
    steps = httpx.post(url, params={"token": tok}, json={"cards": ["LF90 70", "FWD1 490"]}, timeout=30).json()["steps"]
    assert [(s["register"], s["from"], s["to"], s["facing"]) for s in steps] == [(1, "r1c1", "r1c1", "N"),
                                                                                  (2, "r1c1", "r2c1", "N")]
    bad = httpx.post(url, params={"token": tok}, json={"cards": ["FWD9 1"]}, timeout=30)
    assert bad.status_code == 422 and bad.json()["message"].startswith("cards: ")  # names the field
    assert httpx.post(url, params={"token": "wrong"}, json={"cards": []}, timeout=30).status_code == 403


def test_G_6_geeko_plan_moves_each_robot_alone_from_its_own_square(live):
    m = live.create("geeko", ["remote", "builtin:pathfinder"], seed=3)
    tok = m["seats"][0]["token"]
    view = httpx.get(f"{live.url}/api/matches/{m['match']}/view", headers={"Authorization": f"Bearer {tok}"},
                     timeout=30).json()
    view = view.get("view", view)
    start = {k: r["square"] for k, r in view["robots"].items()}
    r = httpx.post(f"{live.url}/web/matches/{m['match']}/plan", params={"token": tok},
                   json={"A": ["FWD1 610"], "B": ["RT90 420"]}, timeout=30)
    assert r.status_code == 200, r.text
    steps = {s["robot"]: s for s in r.json()["steps"]}
    assert steps["A"]["from"] == start["A"] and steps["B"]["from"] == start["B"]
    assert steps["B"]["to"] == start["B"]  # a turn does not move the robot
