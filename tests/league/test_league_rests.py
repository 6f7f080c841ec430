"""Issue 28 items 5 and 6: the league ranks an upload only after clean matches in quarantine,
and it rests: a match budget per hour per game, a stop rule once every rating is settled (until
an upload or a replacement), and only the newest replays of each pair kept (every result
stays). All configurable (``League(...)``, ``BOTWARS_LEAGUE_*``) and shown on the league pages."""

from __future__ import annotations

import json
import time
import warnings

import pytest
from sqlalchemy import select, update

from tests.league.test_league_server import league  # noqa: F401

warnings.filterwarnings("ignore", message=".*httpx2.*")

DEFEND_BOT = '''class Bot:
    def act(self, view):
        return {"orders": [{"x": r["x"], "y": r["y"], "action": "D"} for r in view["robots"] if r["side"] == "F"]}
'''
"""Every robot defends, every turn: never a failure."""

LATE_CRASH_BOT = '''class Bot:
    def act(self, view):
        if view["turn"] >= 39:
            raise RuntimeError("out of ideas")
        return {"orders": [{"x": r["x"], "y": r["y"], "action": "D"} for r in view["robots"] if r["side"] == "F"]}
'''
"""Defends until turn 38, raises from turn 39 on: passes the upload check (4 decisions a seat)."""


@pytest.fixture
def store(tmp_path):
    from botwars.store import Store
    st = Store(f"sqlite:///{tmp_path}/league.db")
    st.migrate()
    yield st
    st.dispose()


def add_bot(store, bot_id: str, source: str = DEFEND_BOT, version: int = 1) -> None:
    from botwars.store.models import LeagueBotRow
    with store.write() as s:
        row = s.get(LeagueBotRow, bot_id)
        if row is None:
            s.add(LeagueBotRow(id=bot_id, name=f"name-{bot_id}", game="arena", kind="py", source=source,
                               version=version, token_hash="0" * 64, status="active", created_at=0.0, updated_at=0.0))
        else:  # a replacement: a new version
            row.source, row.version = source, version


def make_league(store, tmp_path, **rules):
    from botwars.server.league import League
    base = dict(quarantine_matches=0, matches_per_hour=None, settled_sigma=None, keep_replays=None)
    lg = League(store, str(tmp_path / "data"), house={"arena": ["defender"]}, enabled=False, seed=7,
                config={"arena": {"max_turns": 5}}, **{**base, **rules})
    return lg


def league_rows(store, kind: str | None = None) -> list:
    from botwars.store.models import LeagueMatchRow
    with store.read() as s:
        q = select(LeagueMatchRow)
        if kind:
            q = q.where(LeagueMatchRow.kind == kind)
        return list(s.scalars(q))


# ---- quarantine (item 5) -----------------------------------------------------------------------
@pytest.mark.slow
def test_an_upload_is_ranked_only_after_its_clean_quarantine_matches(store, tmp_path):
    from botwars.agents.check import load_problem
    add_bot(store, "good")
    add_bot(store, "late", LATE_CRASH_BOT)
    lg = make_league(store, tmp_path, quarantine_matches=2)
    lg.config = {"arena": {"max_turns": 42}}
    late_path = lg.materialise(next(r for r in lg._rows().values() if r.id == "late")).strip("'")
    assert load_problem(late_path, "arena") is None  # the upload check lets it in
    first = {r["agent"]: r for r in lg.ladder("arena")}
    for who in ("bot:good@v1", "bot:late@v1"):
        assert first[who]["rank"] is None and first[who]["trial"] == {"played": 0, "clean": 0, "needed": 2}
    assert first["builtin:defender"]["rank"] == 1
    for _ in range(6):
        assert lg.step(1) == 1
    rows = {r["agent"]: r for r in lg.ladder("arena")}
    good, late = rows["bot:good@v1"], rows["bot:late@v1"]
    # the good bot played its 2 clean matches and is ranked; the crasher never gets a clean one
    assert good["trial"] is None and isinstance(good["rank"], int)
    assert late["trial"] is not None and late["rank"] is None
    assert late["trial"]["clean"] == 0 and late["trial"]["played"] >= 2
    quarantine = league_rows(store, "quarantine")
    assert len(quarantine) >= 3
    assert all("bot:late@v1" in json.loads(m.agents) or "bot:good@v1" in json.loads(m.agents) for m in quarantine)
    for m in quarantine:  # the crasher failed from turn 39 in every match it played
        agents, seats, errors = json.loads(m.agents), json.loads(m.seats), json.loads(m.errors)
        if "bot:late@v1" in agents:
            assert errors[seats[agents.index("bot:late@v1")]] >= 1
    # quarantine matches are not rated: the ranked rows count ladder matches only
    ladder = league_rows(store, "ladder")
    assert all("bot:late@v1" not in json.loads(m.agents) for m in ladder)
    assert good["games"] == sum("bot:good@v1" in json.loads(m.agents) for m in ladder)
    # the ranked members are ranked 1..n, the bot in quarantine after them
    ranked = [r for r in lg.ladder("arena") if r["rank"] is not None]
    assert [r["rank"] for r in ranked] == list(range(1, len(ranked) + 1))
    assert lg.ladder("arena")[-1]["agent"] == "bot:late@v1"


def test_a_replacement_goes_back_into_quarantine(store, tmp_path):
    from botwars.league.runner import MatchReport
    add_bot(store, "b")
    lg = make_league(store, tmp_path, quarantine_matches=1)
    rep = MatchReport({"match_id": "q1", "seq": 1, "seed": 1, "agents": ["bot:b@v1", "builtin:defender"],
                       "seats": ["p1", "p2"], "status": "ok", "turns": 5, "errors": {"p1": 0, "p2": 0},
                       "outcome": {"winner": None, "reason": "max_turns", "ranking": [["p1", "p2"]],
                                   "scores": {"p1": 1, "p2": 1}}, "error_detail": []})
    assert lg._commit(rep, "quarantine", "arena")
    assert {r["agent"]: r for r in lg.ladder("arena")}["bot:b@v1"]["rank"] is not None
    add_bot(store, "b", DEFEND_BOT + "# v2\n", version=2)
    row = {r["agent"]: r for r in lg.ladder("arena")}["bot:b@v2"]
    assert row["rank"] is None and row["trial"] == {"played": 0, "clean": 0, "needed": 1}
    jobs = lg.scheduled("arena", 2)
    assert jobs and all(kind == "quarantine" for _, kind in jobs)


# ---- rest (item 6) -----------------------------------------------------------------------------
@pytest.mark.slow
def test_the_hourly_budget_stops_the_game_until_the_hour_has_passed(store, tmp_path):
    add_bot(store, "b")
    lg = make_league(store, tmp_path, matches_per_hour=3)
    assert lg.step(2) == 2
    assert lg.step(2) == 1  # only one left in the budget
    assert lg.step(2) == 0
    state = lg.rest_state("arena")
    assert state["resting"] and state["budget_left"] == 0 and "budget of 3 matches" in state["reason"]
    assert len(league_rows(store)) == 3
    from botwars.store.models import LeagueMatchRow
    with store.write() as s:  # an hour later
        s.execute(update(LeagueMatchRow).values(created_at=time.time() - 3601))
    assert lg.rest_state("arena")["budget_left"] == 3
    assert lg.step(2) == 2


@pytest.mark.slow
def test_the_ladder_rests_once_ratings_settle_and_an_upload_wakes_it(store, tmp_path):
    add_bot(store, "b")
    lg = make_league(store, tmp_path, settled_sigma=7.0)  # openskill starts at σ = 25/3 ≈ 8.33
    played = 0
    for _ in range(12):
        n = lg.step(2)
        if n == 0:
            break
        played += n
    rows = lg.ladder("arena")
    assert all(r["sigma"] < 7.0 for r in rows), rows
    assert lg.step(2) == 0 and lg.step(2) == 0  # resting: nothing more is played
    assert len(league_rows(store)) == played
    state = lg.rest_state("arena")
    assert state["settled"] and state["resting"] and "settled" in state["reason"]
    add_bot(store, "newcomer")  # an upload: an unsettled rating
    assert not lg.rest_state("arena")["resting"]
    assert lg.step(2) == 2
    add_bot(store, "b", DEFEND_BOT + "# v2\n", version=2)  # a replacement too
    assert any(r["agent"] == "bot:b@v2" and r["sigma"] > 8 for r in lg.ladder("arena"))


@pytest.mark.slow
def test_only_the_newest_replays_of_each_pair_are_kept_and_every_result_stays(store, tmp_path):
    from botwars.store.models import MatchRow
    add_bot(store, "b")
    lg = make_league(store, tmp_path, keep_replays=2)
    assert lg.step(1) == 1
    first = league_rows(store)[0].match_id
    assert lg.register_replay(first) == first  # opened in the replay viewer once
    for _ in range(4):
        assert lg.step(1) == 1
    rows = league_rows(store)
    assert len(rows) == 5 and all(r.status == "ok" and r.outcome for r in rows)  # every result kept
    kept = sorted((r for r in rows if r.record), key=lambda r: r.seq)
    assert [r.seq for r in kept] == [4, 5]  # one pair: the newest two
    assert lg.match(first)["replay"] is None
    with store.read() as s:
        assert s.get(MatchRow, first) is None  # its copy in the replay viewer went too
    assert {r["agent"]: r for r in lg.ladder("arena")}["bot:b@v1"]["games"] == 5  # ratings from every result


def test_rules_come_from_the_environment_and_bad_values_keep_the_default(caplog):
    from botwars.server.league import KEEP_REPLAYS, rest_rules_from_env
    r = rest_rules_from_env({"BOTWARS_LEAGUE_QUARANTINE": "5", "BOTWARS_LEAGUE_MATCHES_PER_HOUR": "off",
                             "BOTWARS_LEAGUE_SETTLED_SIGMA": "0.5", "BOTWARS_LEAGUE_KEEP_REPLAYS": "-3"})
    assert (r.quarantine_matches, r.matches_per_hour, r.settled_sigma) == (5, None, 0.5)
    assert r.keep_replays == KEEP_REPLAYS
    assert "BOTWARS_LEAGUE_KEEP_REPLAYS" in caplog.text
    assert rest_rules_from_env({"BOTWARS_LEAGUE_QUARANTINE": "off"}).quarantine_matches == 0


def test_the_league_pages_show_the_rules(league):  # noqa: F811
    c, lg = league
    lg.rules = lg.rules.model_copy(update={"quarantine_matches": 4, "matches_per_hour": 99, "settled_sigma": 1.5,
                                           "keep_replays": 7})
    for path in ("/league", "/league/arena"):
        page = c.get(path).text
        assert "plays 4 clean matches in quarantine" in page
        assert "At most 99 ladder matches of each game an hour" in page
        assert "σ under 1.5" in page
        assert "newest 7 replays of each pair" in page
    lg.rules = lg.rules.model_copy(update={"matches_per_hour": None, "settled_sigma": None, "keep_replays": None})
    page = c.get("/league/arena").text
    assert "No hourly limit" in page and "never rests" in page and "Every replay is kept" in page


# ---- seasons (item 6: "until something changes: an upload, a replacement, a new season") -------
def test_a_new_season_rates_afresh_and_wakes_a_resting_ladder(store, tmp_path):
    add_bot(store, "b")
    lg = make_league(store, tmp_path, settled_sigma=7.0)
    for _ in range(12):
        if lg.step(2) == 0:
            break
    assert lg.rest_state("arena")["resting"]
    before = {r["agent"]: r["games"] for r in lg.ladder("arena")}
    assert all(g > 0 for g in before.values())
    assert lg.season("arena") == {"number": 1, "started_at": 0.0, "reason": ""}
    new = lg.new_season("arena", "Spring cup", now=time.time() + 1)
    assert new["number"] == 2 and new["reason"] == "Spring cup"
    assert lg.season("arena")["number"] == 2
    rows = lg.ladder("arena")
    assert all(r["games"] == 0 and r["sigma"] > 8 for r in rows), rows  # every rating starts afresh
    assert not lg.rest_state("arena")["resting"]  # the stop rule wakes
    assert len(league_rows(store)) >= sum(before.values()) // 2  # the earlier season's results stay stored
    assert lg.new_season("arena", "Summer cup")["number"] == 3


def test_a_new_season_needs_a_game_and_a_reason_in_words(store, tmp_path):
    from botwars.server.session import ApiError
    lg = make_league(store, tmp_path)
    with pytest.raises(ApiError, match="no game 'chess'"):
        lg.new_season("chess", "why not")
    with pytest.raises(ApiError, match="a reason of 1 to 200 characters"):
        lg.new_season("arena", "   ")
    assert lg.season("arena")["number"] == 1  # nothing was stored


def test_league_season_command_and_the_ladder_page_show_the_season(tmp_path, league):  # noqa: F811
    from typer.testing import CliRunner

    from botwars.cli import app
    url = f"sqlite:///{tmp_path}/cli.db"
    r = CliRunner().invoke(app, ["league-season", "arena", "--reason", "Autumn restart", "--db", url])
    assert r.exit_code == 0, r.output
    assert "arena: season 2 has started (Autumn restart)" in r.output
    bad = CliRunner().invoke(app, ["league-season", "chess", "--reason", "x", "--db", url])
    assert bad.exit_code == 2 and "no game 'chess'" in bad.output
    c, lg = league
    lg.new_season("arena", "Autumn restart")
    page = c.get("/league/arena").text
    assert "Season 2, since " in page and "Autumn restart" in page and "botwars league-season arena" in page
