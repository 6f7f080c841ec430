"""Players' display names and clocks that fit the match (issue 24 items 2 and 6): names given at
creation or set once by the seat's player, bounded, any script, refused with a sentence when they
hold markup or control characters, escaped in every page; clock presets and setup deadlines that
follow the match's time control (submarine S-3.3/S-7.8, DADOED D-3.5/D-8.3)."""

from __future__ import annotations

import pytest

from botwars.store.models import MatchRow, SeatRow

from server_support import make_client


def H(tok):
    return {"Authorization": f"Bearer {tok}"}


def create(api, **body):
    r = api.post("/api/matches", json=body)
    assert r.status_code == 201, r.text
    d = r.json()
    return d["match"], [s["token"] for s in d["seats"]], d


def stored_names(api, mid):
    with api.app.state.manager.store.read() as s:
        return {r.seat: r.name for r in s.query(SeatRow).filter_by(match_id=mid)}


TRICKY = 'Zoë & "Ω" O\'Brien'          # escaping: & " ' must not reach a page raw
TRICKY_HTML = "Zoë &amp; &#34;Ω&#34; O&#39;Brien"


def test_names_given_at_creation_are_in_summary_view_list_and_every_page_escaped(api):
    mid, toks, d = create(api, game="arena", seats=["remote", "remote"], names=[TRICKY, "  李雷  "], seed=1)
    assert [s["name"] for s in d["seats"]] == [TRICKY, "李雷"]  # trimmed, any script
    summ = api.get(f"/api/matches/{mid}").json()
    assert [s["name"] for s in summ["seats"]] == [TRICKY, "李雷"]
    assert api.get(f"/api/matches/{mid}/view").json()["names"] == {"p1": TRICKY, "p2": "李雷"}
    listed = next(m for m in api.get("/api/matches?status=running").json() if m["match"] == mid)
    assert [s["name"] for s in listed["seats"]] == [TRICKY, "李雷"]
    assert stored_names(api, mid) == {"p1": TRICKY, "p2": "李雷"}
    for path in (f"/play/{mid}?token={toks[0]}", "/"):
        html = api.get(path).text
        assert TRICKY_HTML in html, path
        assert TRICKY not in html, path
    # the spectator page's script shows names from the view; the replay page after the end
    api.post(f"/api/matches/{mid}/resign", headers=H(toks[1]))
    html = api.get(f"/replay/{mid}").text
    assert TRICKY_HTML in html and TRICKY not in html and "李雷" in html
    assert f"{TRICKY_HTML} (Red) won" in html  # the winner named beside the colour (issue 23: no seat ids)


def test_a_player_sets_the_seat_name_once_and_only_for_their_own_seat(api):
    mid, toks, _ = create(api, game="arena", seats=["remote", "remote"], seed=2)
    assert api.get(f"/api/matches/{mid}/view").json()["names"] == {}
    r = api.post(f"/api/matches/{mid}/name", headers=H(toks[1]), json={"name": "Иван"})
    assert r.status_code == 200, r.text
    assert r.json() == {"match": mid, "seat": "p2", "name": "Иван"}
    assert api.get(f"/api/matches/{mid}/view").json()["names"] == {"p2": "Иван"}
    again = api.post(f"/api/matches/{mid}/name", headers=H(toks[1]), json={"name": "Boris"})
    assert again.status_code == 409 and again.json()["error"] == "name_set"
    assert "set once" in again.json()["message"]
    assert stored_names(api, mid) == {"p1": None, "p2": "Иван"}
    anon = api.post(f"/api/matches/{mid}/name", json={"name": "Mallory"})
    assert anon.status_code == 403
    assert stored_names(api, mid) == {"p1": None, "p2": "Иван"}


@pytest.mark.parametrize("name, words", [
    ("x" * 10_000, "at most 40 characters; this one has 10000"),
    ("<b>bold</b>", "markup characters < or >"),
    ("<script>alert(1)</script>", "markup characters < or >"),
    ("two\nlines", "control or invisible character U+000A"),
    ("evil\u202eeman", "control or invisible character U+202E"),
    ("   ", "cannot be empty"),
])
def test_a_bad_name_is_422_with_a_sentence_and_changes_nothing(api, name, words):
    mid, toks, _ = create(api, game="arena", seats=["remote", "remote"], seed=3)
    r = api.post(f"/api/matches/{mid}/name", headers=H(toks[0]), json={"name": name})
    assert r.status_code == 422, r.text
    assert words in r.json()["message"]
    assert stored_names(api, mid) == {"p1": None, "p2": None}
    assert api.get(f"/api/matches/{mid}/view").json()["names"] == {}
    # the same name at creation: refused, no match made
    with api.app.state.manager.store.read() as s:
        before = s.query(MatchRow).count()
    r = api.post("/api/matches", json={"game": "arena", "seats": ["remote", "remote"], "names": [None, name]})
    assert r.status_code == 422 and words in r.json()["message"] and "seat 2" in r.json()["message"]
    with api.app.state.manager.store.read() as s:
        assert s.query(MatchRow).count() == before


def test_a_name_list_of_the_wrong_length_is_refused(api):
    r = api.post("/api/matches", json={"game": "arena", "seats": ["remote", "remote"], "names": ["only one"]})
    assert r.status_code == 422 and r.json()["error"] == "bad_seats"
    assert "1 names for 2 seats" in r.json()["message"]


def test_names_survive_a_restart(sqlite_url, clock):
    with make_client(sqlite_url, clock) as c:
        mid, toks, _ = create(c, game="arena", seats=["remote", "remote"], names=["Ana", None], seed=4)
        assert c.post(f"/api/matches/{mid}/name", headers=H(toks[1]), json={"name": "Bea"}).status_code == 200
    with make_client(sqlite_url, clock) as c:
        assert c.get(f"/api/matches/{mid}/view").json()["names"] == {"p1": "Ana", "p2": "Bea"}
        assert c.post(f"/api/matches/{mid}/name", headers=H(toks[0]), json={"name": "Other"}).status_code == 409


# ---- clocks that fit the match (issue 24 item 6) ---------------------------------------------
def setup_time_left(api, mid):
    clock = api.get(f"/api/matches/{mid}").json()["clock"]
    assert clock["enabled"]
    return clock["time_left_s"]


def test_submarine_setup_deadline_follows_day_long_turns(api):
    """S-3.3 setup deadline, S-7.8 turn time: with 24-hour turns the setup is not 300 s."""
    mid, _, _ = create(api, game="submarine", seats=["remote", "remote"], config={"turn_time_s": 86_400}, seed=5)
    assert setup_time_left(api, mid) == {"p1": 86_400.0, "p2": 86_400.0}
    # the game's own clock keeps the 300 s setup of the rules' table
    mid2, _, _ = create(api, game="submarine", seats=["remote", "remote"], seed=5)
    assert setup_time_left(api, mid2) == {"p1": 300.0, "p2": 300.0}


@pytest.mark.parametrize("game, preset, config, setup", [
    ("submarine", "daily", {"turn_time_s": 86_400.0, "setup_time_s": 86_400.0}, 86_400.0),
    ("submarine", "pbem", {"turn_time_s": 432_000.0, "setup_time_s": 432_000.0}, 432_000.0),
    ("dadoed", "daily", {"time_bank_s": 2_592_000, "setup_time_s": 86_400}, 86_400.0),
    ("dadoed", "blitz", {"time_bank_s": 1_800, "setup_time_s": 30}, 30.0),
])
def test_clock_presets_set_the_games_time_parameters_and_the_setup_deadline(api, game, preset, config, setup):
    mid, _, _ = create(api, game=game, seats=["remote", "remote"], clock_preset=preset, seed=6)
    summ = api.get(f"/api/matches/{mid}").json()
    assert {k: summ["config"][k] for k in config} == config
    assert set(setup_time_left(api, mid).values()) == {setup}


def test_a_preset_gives_factory_its_turn_deadline_and_config_wins_over_it(api):
    mid, _, _ = create(api, game="factory", seats=["remote", "remote"], clock_preset="blitz", seed=7)
    summ = api.get(f"/api/matches/{mid}").json()
    assert summ["config"]["turn_time_s"] == 30.0
    assert summ["clock"]["move_limit_s"] == 30.0 and summ["clock"]["bank_s"] == 0.0  # F-5.5: no bank
    mid2, _, _ = create(api, game="factory", seats=["remote", "remote"], clock_preset="daily",
                        config={"turn_time_s": 600}, seed=7)
    assert api.get(f"/api/matches/{mid2}").json()["config"]["turn_time_s"] == 600.0


def test_an_unknown_preset_is_422_naming_the_choices(api):
    r = api.post("/api/matches", json={"game": "factory", "clock_preset": "weekly"})
    assert r.status_code == 422
    assert "clock_preset" in r.json()["message"] and "blitz" in r.json()["message"]


def test_migration_0010_adds_the_name_and_seat_link_columns_to_a_filled_database(tmp_path):
    """Alembic ``0006`` → head (``0010`` adds the names) on a database holding a match: its seat is kept,
    without a name; the registrations get ``seat_link``; the downgrade removes both."""
    import sqlite3
    from alembic import command
    from alembic.config import Config
    from botwars.store.repo import MIGRATIONS, Store
    url = f"sqlite:///{tmp_path}/old.db"
    store = Store(url)
    cfg = Config()
    cfg.set_main_option("script_location", MIGRATIONS)
    cfg.set_main_option("sqlalchemy.url", url)
    with store.engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0006")
    with sqlite3.connect(tmp_path / "old.db") as db:
        db.execute("insert into matches (id, ruleset, rules_version, config, seed, clock_enabled, status, created_at,"
                   " decisions, turns, opened_at, bank_left) values ('m1','arena',1,'{}',1,1,'running',0,0,0,0,'{}')")
        db.execute("insert into seats (match_id, seat, idx, agent, token_hash) values ('m1','p1',0,'remote','h1')")
    store.migrate()
    with sqlite3.connect(tmp_path / "old.db") as db:
        assert db.execute("select seat, agent, name from seats").fetchall() == [("p1", "remote", None)]
        assert "seat_link" in [r[1] for r in db.execute("pragma table_info(notice_registrations)")]
    with store.engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0006")
    with sqlite3.connect(tmp_path / "old.db") as db:
        assert "name" not in [r[1] for r in db.execute("pragma table_info(seats)")]
        assert db.execute("select seat from seats").fetchall() == [("p1",)]
    store.dispose()
