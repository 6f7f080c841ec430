"""Issue 14 items 1 and 2 over HTTP (no browser): a turn stage by stage (frames after each
sub-step, the F-9.3 tables), its secrecy for seats, and the replay viewer's index and steps
(move lists in each game's notation, everything revealed after the end)."""

from __future__ import annotations

import re
import time

import httpx

from tests.web.test_web_pages import wait_ended


def _ended(live, game: str, config: dict, seed: int = 5) -> str:
    bots = {"factory": "builtin:pathfinder", "geeko": "builtin:pathfinder", "submarine": "builtin:hunter",
            "dadoed": "builtin:greedy", "arena": "builtin:swarm"}[game]
    m = live.create(game, [bots, bots], config, seed=seed)
    wait_ended(live, m["match"])
    return m["match"]


def test_F_9_1_replay_step_has_stage_sections_with_a_picture_per_substep(live):
    mid = _ended(live, "factory", {"turn_limit": "2"})
    idx = httpx.get(f"{live.url}/web/matches/{mid}/replay/index.json").json()
    assert idx["stages"] is True and idx["count"] >= 2
    # F-2.6 card names in the move list, not bare priorities
    moves = idx["steps"][1]["moves"]["p1"]
    assert re.fullmatch(r"([A-Z0-9]+ \d+)(, [A-Z0-9]+ \d+){4}", moves), moves
    step = httpx.get(f"{live.url}/web/matches/{mid}/replay/1.json").json()
    stages = [s for s in step["sections"] if s["kind"] == "stage"]
    assert [s["stage"] for s in stages] == [1, 2, 3, 4, 5]
    assert [r[0] for r in stages[0]["rows"]][:8] == ["NAME", "MODE", "CARDS", "MOVES", "MECH", "COMBAT", "HITS", "HP"]
    assert stages[0]["frames"][0]["label"] == "start"
    urls = [f["url"] for s in step["sections"] for f in s["frames"]]
    pictures = {u: httpx.get(live.url + u).text for u in urls}
    assert all(p.lstrip().startswith("<svg") for p in pictures.values())
    # within a stage a picture is kept only when its sub-step changed the board
    for sec in step["sections"]:
        shown = [pictures[f["url"]] for f in sec["frames"]]
        assert all(a != b for a, b in zip(shown, shown[1:])), sec["title"]
    assert httpx.get(f"{live.url}/web/matches/{mid}/replay/1/frame/{len(urls)}.svg").status_code == 404


def test_G_10_1_stages_json_shows_a_seat_only_its_own_room_while_running(live):
    m = live.create("geeko", ["remote", "remote"], {"turn_limit": "3"}, seed=4)
    tokens = {s["seat"]: s["token"] for s in m["seats"]}
    mid = m["match"]
    assert httpx.get(f"{live.url}/web/matches/{mid}/turn/1/stages.json").status_code == 404  # not resolved yet
    for seat, token in tokens.items():
        sugg = httpx.get(f"{live.url}/web/matches/{mid}/suggest", params={"token": token, "bot": "pathfinder"})
        r = httpx.post(f"{live.url}/api/matches/{mid}/orders", params={"token": token},
                       json={"decision": 1, "orders": sugg.json()["orders"]})
        assert r.status_code == 200, r.text
    end = time.monotonic() + 60  # polled to a deadline; fails loudly instead of going on unresolved
    while httpx.get(f"{live.url}/api/matches/{mid}").json().get("decision", 0) < 2:
        assert time.monotonic() < end, "turn 1 was not resolved"
        time.sleep(0.02)
    mine = httpx.get(f"{live.url}/web/matches/{mid}/turn/1/stages.json", params={"token": tokens["p1"]}).json()
    seats = {s["seat"] for s in mine["sections"]}
    assert seats == {"p1"}, seats  # G-10.1: p2's reports and room are not shown to p1
    assert any(s["kind"] == "stage" and s["frames"] for s in mine["sections"])
    spectator = httpx.get(f"{live.url}/web/matches/{mid}/turn/1/stages.json").json()
    assert all(s["seat"] is None for s in spectator["sections"])  # G-10.6
    # p1 cannot fetch p2's frames by number either
    own = {f["j"] for s in mine["sections"] for f in s["frames"]}
    other = next(j for j in range(0, max(own) + 60) if j not in own)
    r = httpx.get(f"{live.url}/web/matches/{mid}/turn/1/frame/{other}.svg", params={"token": tokens["p1"]})
    assert r.status_code == 404
    inline = httpx.get(f"{live.url}/web/matches/{mid}/turn/1/stages.json",
                       params={"token": tokens["p1"], "inline": "1"}).json()
    assert inline["sections"][0]["frames"][0]["svg"].lstrip().startswith("<svg")


def test_S_8_6_finished_submarine_replay_shows_every_sub_and_reads_as_text(live):
    mid = _ended(live, "submarine", {}, seed=3)
    idx = httpx.get(f"{live.url}/web/matches/{mid}/replay/index.json").json()
    assert idx["steps"][1]["moves"]["p1"].startswith("setup ")
    later = next(s for s in idx["steps"][2:] if s["moves"])
    text = next(iter(later["moves"].values()))
    assert not text.startswith("{") and re.match(r"[a-z] [a-z_]+", text), text  # S-2.7 notation
    # every step shows all ten subs that are still afloat, submerged ones included
    k = min(3, idx["count"] - 1)
    svg = httpx.get(f"{live.url}/web/matches/{mid}/replay/{k}.svg").text
    assert len(set(re.findall(r'class="sub[^"]*" [^>]*data-sub="([a-z])"', svg))) >= 8
    step = httpx.get(f"{live.url}/web/matches/{mid}/replay/{k}.json").json()
    assert step["report"] and '{"type"' not in step["report"] and "&quot;type&quot;" not in step["report"]


def test_issue14_dadoed_move_list_in_D_2_5_notation(live):
    mid = _ended(live, "dadoed", {"max_turns": "8"}, seed=2)
    idx = httpx.get(f"{live.url}/web/matches/{mid}/replay/index.json").json()
    texts = [t for s in idx["steps"][2:] for t in s["moves"].values()]
    assert texts and all(re.match(r"(super [A-D]: )?[a-z_0-9]+ [A-H][1-8]", t) or t == "resign" for t in texts), texts
