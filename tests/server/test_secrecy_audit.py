"""Secrecy audit of the server's and the web layer's other ways out (beyond ``GET .../view``,
``.../record`` and ``GET /api/matches/{id}``, which tests/engine/test_conformance_http.py checks):
board pictures, order-entry helpers, seat and spectator pages, the WebSocket's first message,
stage pictures (``stages.json`` and its frames) and the league's match seeds.

The property is the conformance suite's non-interference: two matches that differ only in facts
hidden from a viewer (a seat, or a spectator) give that viewer byte-identical answers (S-1.6,
S-8.6; F-14.2, F-15.5; G-1.3, G-10.6, G-16.5; D-12.1).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random

import pytest

from botwars.engine.plugin import games as all_games
from botwars.engine.ruleset import canonical_json, get_ruleset

TURN_LIMIT_PARAMS = ("max_turns", "turn_limit", "max_rounds")


class FakeClock:
    """The server clock: moves only when told (epoch seconds)."""

    def __init__(self, t: float = 1_000_000.0):
        self.t = t

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def client(tmp_path, monkeypatch):
    """A test client of a server with the web pages (``botwars serve``), bots inline, no league
    thread."""
    monkeypatch.setenv("BOTWARS_LEAGUE", "off")
    monkeypatch.setenv("BOTWARS_DATA_DIR", str(tmp_path / "data"))
    from fastapi.testclient import TestClient
    from botwars.server.app import create_app
    from botwars.web import install_web
    app = create_app(f"sqlite:///{tmp_path}/bw.db", background=False, now=FakeClock())
    install_web(app)
    with TestClient(app) as c:
        yield c


def short(rs, turns: int) -> dict:
    table = rs.param_table()
    return {n: max(int(table[n].minimum or 1), min(turns, int(table[n].default)))
            for n in TURN_LIMIT_PARAMS if n in table and table[n].type is int}


def create(c, game: str, seed: int, config: dict | None = None, clock: bool = False):
    rs = get_ruleset(game)
    seats = ["remote"] * min(max(2, rs.min_seats), rs.max_seats)  # two seats where the game allows
    r = c.post("/api/matches", json={"game": game, "seats": seats, "config": config or {}, "seed": seed,
                                     "clock": clock})
    assert r.status_code == 201, r.text
    m = r.json()
    return m["match"], {s["seat"]: s["token"] for s in m["seats"]}


def order(c, mid, token, n, orders=None):
    body = {"decision": n, "orders": orders}
    if orders is None:
        body["failure"] = {"code": "crash", "detail": "the test gives the default orders"}
    r = c.post(f"/api/matches/{mid}/orders", params={"token": token}, json=body)
    assert r.status_code == 200, r.text
    return r.json()


def suggestion(c, mid, token, bot):
    r = c.get(f"/web/matches/{mid}/suggest", params={"token": token, "bot": bot})
    assert r.status_code == 200, r.text
    return r.json()["orders"]


def same_text(text: str, mid: str, tokens: dict[str, str]) -> str:
    """``text`` with the match id and the seat tokens (which differ between two matches by
    construction) replaced by placeholders."""
    text = text.replace(mid, "MATCH")
    for seat, tok in tokens.items():
        text = text.replace(tok, f"TOKEN-{seat}")
    return text


# ---- stage pictures (issue 14): G-10.6 -------------------------------------------------------------
def _geeko_turns(c, seed: int, turns: int, p1_default_at_last: bool):
    """A 2-seat geeko match on this server: both seats play the pathfinder's suggestion for
    ``turns`` turns, except that p1 plays its default orders at the last one when told."""
    mid, tok = create(c, "geeko", seed, {"turn_limit": 8})
    for n in range(1, turns + 1):
        for seat in ("p1", "p2"):
            if seat == "p1" and p1_default_at_last and n == turns:
                order(c, mid, tok[seat], n, None)
            else:
                order(c, mid, tok[seat], n, suggestion(c, mid, tok[seat], "pathfinder"))
    assert c.get(f"/api/matches/{mid}").json()["decision"] == turns + 1
    return mid, tok


def test_G_10_6_G_16_5_stage_frame_numbers_never_count_another_seats_pictures(client):
    """``/web/matches/{id}/turn/{n}/stages.json`` numbers a point's frames: p2's numbers (and
    the frame URLs) must not depend on how many pictures p1's private room made (G-1.3,
    G-10.6: during the game a player sees of other players only room number, turn and
    finished or out state). Two matches differ only in p1's program at turn 2."""
    seed, turn = 4, 2
    a_mid, a_tok = _geeko_turns(client, seed, turn, False)
    b_mid, b_tok = _geeko_turns(client, seed, turn, True)

    def stages(mid, tok, seat, inline=False):
        params = {"token": tok[seat]} if seat else {}
        if inline:
            params["inline"] = "1"
        r = client.get(f"/web/matches/{mid}/turn/{turn}/stages.json", params=params)
        assert r.status_code == 200, r.text
        return r.text

    def frames(text):
        return [f["j"] for s in json.loads(text)["sections"] for f in s["frames"]]

    # the premise: p1's hidden program made a different number of pictures in the two matches
    assert len(frames(stages(a_mid, a_tok, "p1"))) != len(frames(stages(b_mid, b_tok, "p1")))
    for who in ("p2", None):
        for inline in (False, True):
            a = same_text(stages(a_mid, a_tok, who, inline), a_mid, a_tok)
            b = same_text(stages(b_mid, b_tok, who, inline), b_mid, b_tok)
            assert a == b, f"{who} inline={inline}"
    own = frames(stages(a_mid, a_tok, "p2"))
    assert own and own == list(range(len(own)))  # numbered among what p2 may see
    for mid, tok in ((a_mid, a_tok), (b_mid, b_tok)):
        for j in own:
            r = client.get(f"/web/matches/{mid}/turn/{turn}/frame/{j}.svg", params={"token": tok["p2"]})
            assert r.status_code == 200 and r.text.lstrip().startswith("<svg")
        # and nothing beyond: p1's pictures are never reachable by p2's token or a spectator
        r = client.get(f"/web/matches/{mid}/turn/{turn}/frame/{len(own)}.svg", params={"token": tok["p2"]})
        assert r.status_code == 404
        r = client.get(f"/web/matches/{mid}/turn/{turn}/frame/0.svg")
        assert r.status_code == 404
    pics = [[client.get(f"/web/matches/{mid}/turn/{turn}/frame/{j}.svg", params={"token": tok["p2"]}).text
             for j in own] for mid, tok in ((a_mid, a_tok), (b_mid, b_tok))]
    assert pics[0] == pics[1]


def test_G_10_1_stage_frames_of_an_ended_match_are_all_numbered_for_everyone(client):
    """Once the match has ended everything is published (G-10.6): every seat and a spectator
    see every section, numbered over the whole point."""
    mid, tok = create(client, "geeko", 4, {"turn_limit": 1})
    for seat in ("p1", "p2"):
        order(client, mid, tok[seat], 1, suggestion(client, mid, tok[seat], "pathfinder"))
    assert client.get(f"/api/matches/{mid}").json()["status"] == "ended"
    seen = []
    for who in ("p1", "p2", None):
        params = {"token": tok[who]} if who else {}
        body = client.get(f"/web/matches/{mid}/turn/1/stages.json", params=params).json()
        assert {s["seat"] for s in body["sections"]} >= {"p1", "p2"}
        js = [f["j"] for s in body["sections"] for f in s["frames"]]
        assert js == list(range(len(js)))
        seen.append([(s["seat"], s["kind"], [f["label"] for f in s["frames"]]) for s in body["sections"]])
    assert seen[0] == seen[1] == seen[2]


# ---- twin states through the web endpoints ---------------------------------------------------------
HIDDEN = ["dadoed", "factory", "geeko", "submarine"]
"""The shipped games with hidden information (D-12.1 supers in setup, F-14.2, G-10.6, S-8.1)."""


def test_the_audited_games_are_those_with_hidden_information():
    shipped = {"arena", "dadoed", "factory", "geeko", "submarine"}
    assert sorted(g for g in shipped if all_games()[g].capabilities.hidden_information) == HIDDEN


def _put_state(sess, state):
    """Put ``state`` into the server's referee, keeping all else it holds."""
    with sess.lock:
        cp = sess.ref.checkpoint()
        sess.ref.rollback(dataclasses.replace(cp, state=state))


def _web_reads(c, mid, tokens, who) -> dict[str, str]:
    """Everything the web layer answers ``who`` (a seat, or ``None``: a spectator) about the
    running match, besides the API's view, record and summary."""
    tok = tokens.get(who)
    q = {"token": tok} if tok else {}
    out = {}
    r = c.get(f"/web/matches/{mid}/board.svg", params=q)
    out["board.svg"] = f"{r.status_code} {r.text}"
    page = c.get(f"/play/{mid}", params=q) if tok else c.get(f"/watch/{mid}")
    out["page"] = f"{page.status_code} {page.text}"
    if tok:
        r = c.get(f"/web/matches/{mid}/helpers", params=q)
        out["helpers"] = f"{r.status_code} {r.text}"
    with c.websocket_connect(f"/api/matches/{mid}/ws" + (f"?token={tok}" if tok else "")) as ws:
        out["ws"] = ws.receive_text()
    out["list"] = c.get("/api/matches").text
    out["lobby"] = c.get("/").text
    return out


@pytest.mark.slow
@pytest.mark.parametrize("game", HIDDEN)
def test_S_8_6_F_15_5_G_16_5_D_12_1_web_reads_are_the_same_in_a_twin_state(client, game):
    """For a seat and a spectator: ``board.svg``, the seat page's ``helpers`` (legal orders and
    the game's page facts), the seat and spectator pages, the WebSocket's first message, the
    match list and the lobby are byte-identical when the server's state is replaced by a twin
    that differs only in facts hidden from that viewer (``Ruleset.twin_state``)."""
    rs = get_ruleset(game)
    mid, tokens = create(client, game, 11, short(rs, 4))
    seats = list(tokens)
    sess = client.app.state.manager.get(mid)
    rng = random.Random(f"audit:{game}")
    bot = sorted(all_games()[game].builtin_bots())[0]
    count = {"twins": 0, "moved": 0}

    def check_twins():
        """Each viewer reads the same from the real state and from a twin of it."""
        n = sess.ref.decision
        for who in [*seats, None]:
            tw = rs.twin_state(sess.ref.state, who, rng)
            if tw is None:
                continue
            real = sess.ref.state
            others = [s for s in seats if s != who]
            count["moved"] += any(canonical_json(rs.view(tw, s)) != canonical_json(rs.view(real, s)) for s in others)
            seen = _web_reads(client, mid, tokens, who)
            _put_state(sess, tw)
            try:
                again = _web_reads(client, mid, tokens, who)
            finally:
                _put_state(sess, real)
            for k in seen:
                assert again[k] == seen[k], f"{game}: {k} for {who} at decision point {n}"
            count["twins"] += 1

    for _ in range(12):
        if sess.ended:
            break
        n = sess.ref.decision
        for seat in list(sess.ref.awaited()):
            check_twins()  # also between two seats' submissions (D-3.5: one seat's supers are in)
            legal = rs.legal_orders(sess.ref.state, seat)
            if game == "dadoed" and n == 1 and seat == seats[-1]:
                # D-3.5: a refused set-up leaves the other seat's accepted supers secret in the
                # state until both are in: the point the twins below must cover
                order(client, mid, tokens[seat], n, None)
                continue
            order(client, mid, tokens[seat], n,
                  rng.choice(legal) if legal else suggestion(client, mid, tokens[seat], bot))
    twins, moved = count["twins"], count["moved"]
    assert twins > 0 and moved > 0  # the twins did differ in what others may see


# ---- the league's match seeds: F-14.3, S-8.1, G-16.5 -----------------------------------------------
def _league_with_bots(tmp_path, store_name: str, data: str):
    from botwars.server.league import League
    from botwars.store import Store
    from botwars.store.models import LeagueBotRow
    store = Store(f"sqlite:///{tmp_path}/{store_name}")
    store.migrate()
    with store.write() as s:
        if s.get(LeagueBotRow, "b0") is None:
            for i in range(2):
                s.add(LeagueBotRow(id=f"b{i}", name=f"n{i}", game="factory", kind="jsonl-py", source="pass\n",
                                   version=1, token_hash="0" * 64, status="active", created_at=0.0, updated_at=0.0))
    return store, League(store, str(tmp_path / data), house={"factory": []}, enabled=False)


def _public_seed(league_seed, game: str, seq: int) -> int:
    """A ladder match seed as League.pairings derives it from a league seed."""
    return int(hashlib.sha256(canonical_json([league_seed, game, seq]).encode()).hexdigest()[:12], 16)


def test_F_14_3_S_8_1_league_match_seeds_cannot_be_computed_from_public_facts(tmp_path):
    """A league match's seed derives from the league seed and public facts (the game, the
    match's place ``seq`` shown on its page; a challenge's id, answered to the challenger
    before it is played). With a known league seed (it was always 0) anyone, and any bot from
    its agent seed, could compute the match seed, hence the deck order and every hand
    (F-14.3: the seed is never shown during the game; S-8.1). The server's league therefore
    keeps a random secret seed, the same across restarts (its schedule stays deterministic)."""
    store, lg = _league_with_bots(tmp_path, "a.db", "data-a")
    jobs = lg.pairings("factory", 3)
    assert jobs
    for j in jobs:
        assert j.seed != _public_seed(0, "factory", j.seq)
    # a restart on the same data keeps the schedule
    _, again = _league_with_bots(tmp_path, "a.db", "data-a")
    assert [(j.match_id, j.seed) for j in again.pairings("factory", 3)] == [(j.match_id, j.seed) for j in jobs]
    # another server's league draws another secret
    _, other = _league_with_bots(tmp_path, "b.db", "data-b")
    assert [j.seed for j in other.pairings("factory", 3)] != [j.seed for j in jobs]
    # an explicit seed (tests, a reproducible league) is used as given
    from botwars.server.league import League
    fixed = League(store, str(tmp_path / "data-c"), house={"factory": []}, enabled=False, seed=0)
    assert [j.seed for j in fixed.pairings("factory", 3)] == [_public_seed(0, "factory", j.seq) for j in jobs]
    store.dispose()


def test_F_14_3_server_league_seed_is_secret_and_kept(client, tmp_path):
    """The league a server mounts (``install_league``) has no fixed seed: it is drawn once and
    kept in the data folder (mode 0600), never in an answer."""
    import os
    lg = client.app.state.league
    seed = lg.seed
    assert isinstance(seed, int) and seed != 0
    path = os.path.join(lg.data_dir, "league", "seed")
    assert os.path.isfile(path) and os.stat(path).st_mode & 0o077 == 0
    from botwars.server.league import League
    assert League(lg.store, lg.data_dir, enabled=False).seed == seed


def _ended_seed(c, match: dict) -> int:
    """Resign every seat of ``match`` (so the full record is public, F-14.2) and return the seed
    in its record's header."""
    for s in match["seats"]:
        c.post(f"/api/matches/{match['match']}/resign", headers={"Authorization": f"Bearer {s['token']}"})
    r = c.get(f"/api/matches/{match['match']}/record")
    assert r.status_code == 200, r.text
    header = json.loads(r.text.splitlines()[0])
    assert header["type"] == "header"
    return header["seed"]


@pytest.mark.parametrize("game", ["factory", "submarine"])
def test_F_14_3_S_8_1_a_match_created_without_a_seed_gets_a_secret_random_one(client, game):
    """A seed the seats could guess (the old default 0) reveals every deal through the one-way
    agent seeds; left out, the server draws 63 random bits. A given seed is kept as given."""
    rs = get_ruleset(game)
    seats = ["remote"] * max(2, rs.min_seats)
    made = [client.post("/api/matches", json={"game": game, "seats": seats}).json() for _ in range(3)]
    agent_seeds = {client.get("/api/seat", headers={"Authorization": f"Bearer {m['seats'][0]['token']}"}
                              ).json()["agent_seed"] for m in made}
    assert len(agent_seeds) == 3  # three different matches deal differently
    zero = client.post("/api/matches", json={"game": game, "seats": seats, "seed": 0}).json()
    assert client.get("/api/seat", headers={"Authorization": f"Bearer {zero['seats'][0]['token']}"}
                      ).json()["agent_seed"] not in agent_seeds
    seeds = [_ended_seed(client, m) for m in made]
    assert len(set(seeds)) == 3 and all(0 < s < 2**63 for s in seeds)
    assert _ended_seed(client, zero) == 0
