"""The board editor's check endpoint (issue 14 item 4), over HTTP against a real server.

``POST /web/editor/GAME/check`` runs the game's board parser and checks (factory F-3.1 to F-3.8
and flag reachability; geeko G-2 rooms and the G-11 entry-board test V1-V8) and places each
problem on the square it concerns.
"""

from __future__ import annotations

import os

import httpx
import pytest

from botwars.games.factory.board import BOARDS_DIR
from botwars.web.editor import MAX_EDITOR_BODY, MAX_EDITOR_CHARS


def board(rows: list[str], start: str = "r1c1 N", bid: str = "t") -> str:
    """A board text from its row lines (north first)."""
    n = len(rows)
    c = len(rows[0].split())
    lines = [f"r{n - i}  {r}" for i, r in enumerate(rows)]
    return f"board: {bid}\nrows: {n}\ncols: {c}\nstart: {start}\ngrid:\n" + "\n".join(lines) + "\nend\n"


VALID = board([". . F1", ". CYN .", ". ./wE GL"])


def check(live, text: str, mode: str = "board", game: str = "factory") -> httpx.Response:
    return httpx.post(f"{live.url}/web/editor/{game}/check", json={"text": text, "mode": mode}, timeout=30)


def test_issue14_editor_valid_factory_board_has_no_problems_and_can_be_played(live):
    r = check(live, VALID)
    assert r.status_code == 200
    j = r.json()
    assert j["parsed"] is True and j["problems"] == [] and j["verdict"] is None
    assert j["svg"].startswith("<svg") and 'data-cols="3"' in j["svg"]
    assert j["board"]["cells"] == [[".", ".", "F1"], [".", "CYN", "."], [".", "./wE", "GL"]]
    assert j["board"]["starts"] == [["r1c1", "N"]]
    assert j["play"] == {"game": "factory", "config": {"board": VALID}}
    # the match it names is accepted by the API as it stands (board text as the parameter value)
    m = httpx.post(f"{live.url}/api/matches", json={"game": "factory", "seats": ["remote", "builtin:random"],
                                                    "config": j["play"]["config"], "seed": 0, "clock": False})
    assert m.status_code == 201, m.text


@pytest.mark.parametrize("rows,square,rule", [
    ([". . F1", ". XX .", ". . ."], "r2c2", "F-3.3: bad cell token 'XX'"),                 # token does not parse
    ([". . F1", ". . .", ". . F1"], "r1c3", "F-3.8: flags must be exactly F1..Fn"),        # flag twice
    (["./wN . F1", ". . .", ". . ."], "r3c1", "F-3.5: wN on the perimeter"),                # wall on the edge
    ([". . F1", ". . SG1", ". . ."], "r2c3", "F-3.7: channel 1 has switches or eyes but no device"),
    ([". . F1", "./pE31 . .", ". . ."], "r2c1", "F-3.8: pusher registers 31 are not strictly ascending"),
    ([". PT F1", ". . PT", ". . ."], "r3c3", "flag 1 at r3c3 is not reachable from the start square"),
    ([". . F1", ". . .", "./wE ./fW ."], "r1c1", "F-3.5: edge on side E of r1c1 is declared both wall and fence"),
])
def test_issue14_editor_places_each_problem_on_its_square(live, rows, square, rule):
    j = check(live, board(rows)).json()
    assert [p["square"] for p in j["problems"]] == [square], j["problems"]
    assert rule in j["problems"][0]["message"]
    assert j["play"] is None


def test_issue14_editor_start_off_board_and_missing_end(live):
    j = check(live, board([". . F1", ". . .", ". . ."], start="r9c9 N")).json()
    assert [p["message"] for p in j["problems"]] == ["F-3.8: start square r9c9 is off the board"]
    assert j["problems"][0]["square"] is None and j["problems"][0]["line"] == 4
    j = check(live, VALID.replace("end\n", "")).json()
    assert j["parsed"] is False and j["board"] is None and j["svg"] is None
    assert "F-3.1: expected 'end'" in j["problems"][0]["message"]


def test_issue14_editor_bounds_and_refusals(live):
    r = check(live, "x" * (MAX_EDITOR_CHARS + 1))
    assert r.status_code == 422 and "text" in r.json()["message"]
    big = b'{"text": "' + b"x" * (MAX_EDITOR_BODY + 10) + b'", "mode": "board"}'
    r = httpx.post(f"{live.url}/web/editor/factory/check", content=big, headers={"content-type": "application/json"})
    assert r.status_code == 413
    r = check(live, VALID, mode="room")
    assert r.status_code == 422 and "no editor mode 'room'" in r.json()["message"]
    r = httpx.post(f"{live.url}/web/editor/factory/check", content=b"not json")
    assert r.status_code == 422
    assert check(live, VALID, game="arena").status_code == 404   # arena has no board editor
    assert check(live, VALID, game="nosuchgame").status_code == 404
    # text that names a file is only ever parsed as a board
    j = check(live, "/etc/passwd").json()
    assert j["parsed"] is False and "F-3.1" in j["problems"][0]["message"]


ENTRY = """board: entry-sample
rows: 7
cols: 7
start: r1c4 N
grid:
r7  F2     .      .      CYW    CYW    CYW    .
r6  .      ./wE   .      .      .      CYN    .
r5  .      .      GR     .      PT     CYN    .
r4  SR1    .      .      TD1-   .      .      F1
r3  .      .      .      .      .      ./lE   .
r2  .      PT     .      ./wN   .      .      W1
r1  .      .      .      .      .      .      .
end
"""


def test_G_15_12_entry_board_accept_and_reject_v4_v5(live):
    j = check(live, ENTRY, mode="entry", game="geeko").json()
    assert j["verdict"] == "ACCEPT" and j["problems"] == []
    assert j["play"] == {"game": "factory", "config": {"board": ENTRY}}
    bare = ENTRY
    for tok in ("CYW", "CYN", "./wE", "GR", "PT", "SR1", "TD1-", "./lE", "./wN", "W1"):
        bare = bare.replace(f" {tok} ", " . ").replace(f" {tok}\n", " .\n")
    j = check(live, bare, mode="entry", game="geeko").json()
    assert j["verdict"] == "REJECT"
    assert [p["message"][:10] for p in j["problems"]] == ["REJECT V4:", "REJECT V5:"]


def test_G_11_entry_board_v1_v2_v3_v7_v8_on_their_squares(live):
    j = check(live, ENTRY.replace("W1\n", "XX\n"), mode="entry", game="geeko").json()   # V1: does not parse
    assert j["verdict"] == "REJECT" and j["problems"][0]["square"] == "r2c7"
    assert j["problems"][0]["message"].startswith("REJECT V1: F-3.3")
    walled = ENTRY.replace("r4  SR1    .      .      TD1-   .      .      F1",
                           "r4  SR1    .      .      TD1-   .      .      F1/wWwS").replace("W1\n", ".\n")
    walled = walled.replace("r5  .      .      GR     .      PT     CYN    .", "r5  .      .      GR     .      PT     CYN    ./wS")
    j = check(live, walled, mode="entry", game="geeko").json()
    assert [(p["square"], p["message"]) for p in j["problems"]] == [
        ("r4c7", "REJECT V7: flag 1 at r4c7 is not reachable from the start square")]
    nine = ENTRY.replace("F2", ".").replace("F1", ".")
    j = check(live, nine, mode="entry", game="geeko").json()
    assert any(p["message"].startswith("REJECT V3: it has 0 flags") for p in j["problems"])
    with open(os.path.join(BOARDS_DIR, "assembly-hall.board"), encoding="utf-8") as f:
        shipped = f.read()
    j = check(live, shipped, mode="entry", game="geeko").json()
    assert [p["message"][:10] for p in j["problems"]] == ["REJECT V2:", "REJECT V8:"]
    assert "12x12" in j["problems"][0]["message"]


def test_G_2_room_mode_checks_rooms_and_plays_them_as_room_1(live):
    room = board(["GT . . . . . .", ". . . . . . .", ". . CYN . . . .", ". . . . . . .", ". . . . . . .",
                  ". . . . . . .", ". . . . . . ."], start="r1c1 N, r1c7 N", bid="my-room")
    j = check(live, room, mode="room", game="geeko").json()
    assert j["problems"] == [] and j["verdict"] is None
    assert j["play"]["game"] == "geeko" and j["play"]["config"]["rooms"].startswith(room)
    assert j["play"]["config"]["rooms"].count("\nend\n") == 5
    m = httpx.post(f"{live.url}/api/matches", json={"game": "geeko", "seats": ["remote"], "config": j["play"]["config"],
                                                    "seed": 0, "clock": False})
    assert m.status_code == 201, m.text
    j = check(live, room.replace("r4  . . . . . . .", "r4  . . F1 . . . ."), mode="room", game="geeko").json()
    assert [(p["square"], p["message"]) for p in j["problems"]] == [
        ("r4c3", "G-2.1: flags are forbidden in a room (r4c3)")]
    j = check(live, room.replace("r7  GT", "r7  ."), mode="room", game="geeko").json()
    assert [p["message"] for p in j["problems"]] == ["G-2.2: a room has one or two gates, found 0"]


def test_issue14_editor_page_and_spec_come_from_the_game(live):
    r = httpx.get(f"{live.url}/editor/factory")
    assert r.status_code == 200 and 'id="editor"' in r.text and "/static/editor.js" in r.text
    spec = httpx.get(f"{live.url}/web/editor/factory/spec.json").json()
    templates = {t["template"] for t in spec["tools"]}
    # every F-3.3 BASE kind and every F-3.4 item kind has a palette entry
    for want in (".", "PT", "TD{ch}{st}", "DB{dir}{ch}", "TP{colour}", "TP{colour}{ch}{st}", "CY{dir}", "CB{dir}",
                 "GL", "GR", "GU", "CR{regs}", "CR{regs}S{sw}{ch}", "SG{ch}", "SR{ch}", "BZ", "W1", "W2", "F{n}",
                 "UP", "AR{opt}", "w{side}", "f{side}", "p{side}{regs}", "l{side}{beams}", "b{side}{ch}{st}",
                 "e{side}{ch}"):
        assert want in templates, want
    geeko = httpx.get(f"{live.url}/web/editor/geeko/spec.json").json()
    assert [m["id"] for m in geeko["modes"]] == ["entry", "room"]
    room_tools = {t["template"] for t in geeko["tools"] if "room" in t["modes"]}
    assert "GT" in room_tools and "GT{ch}{st}" in room_tools and "F{n}" not in room_tools
    assert httpx.get(f"{live.url}/editor/arena").status_code == 404
    lobby = httpx.get(f"{live.url}/").text
    assert 'href="/editor"' in lobby
    index = httpx.get(f"{live.url}/editor").text
    assert 'href="/editor/factory"' in index and 'href="/editor/geeko"' in index
