"""League fairness (issue 25 item 3) through HTTP and the scheduler: queued challenges are
capped per bot and per owner (429 naming the limit); while challenges wait, the ladder still
gets its share of the batches; a bot that stops answering uses up its per-match time budget and
loses that match (resigns; the record re-simulates); no match outlasts the wall-clock limit;
retiring a bot drops all its queued challenges at once."""

from __future__ import annotations

import json
import os
import warnings

import pytest

from test_league_server import auth, make_league_client, upload

warnings.filterwarnings("ignore", message=".*httpx2.*")

ANSWERS_ONCE = """import json, sys, time
sys.stdin.readline()
print(json.dumps({"orders": []}), flush=True)
time.sleep(3600)  # never answers again: every later decision runs into the deadline
"""


@pytest.fixture
def league(tmp_path, monkeypatch):
    client, lg = make_league_client(tmp_path, monkeypatch)
    with client:
        yield client, lg


@pytest.fixture
def unchecked(league, monkeypatch):
    """The league with uploads stored without their check (not what these tests are about)."""
    c, lg = league

    async def unchecked_validate(*args, **kwargs):
        return None

    monkeypatch.setattr(lg, "_validate", unchecked_validate)
    return c, lg


def _challenge(c, bot, opponent="builtin:random"):
    return c.post("/api/league/challenges", json={"bot": bot["bot"], "opponent": opponent}, headers=auth(bot["token"]))


def _queued(c, mids):
    return [c.get(f"/api/league/matches/{m}").json()["status"] for m in mids].count("queued")


def test_queued_challenges_are_capped_per_bot_and_per_owner(unchecked):
    c, lg = unchecked
    lg.challenges_per_bot, lg.challenges_per_owner = 3, 5
    a, b, d = (upload(c, n).json() for n in ("quota-a", "quota-b", "quota-c"))
    for _ in range(3):
        assert _challenge(c, a).status_code == 202
    r = _challenge(c, a)
    assert r.status_code == 429 and r.json()["error"] == "too_many_challenges"
    assert "quota-a has 3 challenges waiting" in r.json()["message"] and "(3)" in r.json()["message"]
    # the same owner (this client's address), another bot: two more fit under the owner's 5
    assert _challenge(c, b).status_code == 202
    assert _challenge(c, b, d["bot"]).status_code == 202
    r = _challenge(c, d)
    assert r.status_code == 429 and "you have 5 challenges waiting" in r.json()["message"]
    # once one is played, there is room again
    assert lg.step() == 1
    assert _challenge(c, d).status_code == 202


def test_the_ladder_gets_its_share_while_challenges_are_queued(unchecked):
    c, lg = unchecked
    a, b = upload(c, "share-a").json(), upload(c, "share-b").json()
    mids = [_challenge(c, x).json()["match"] for x in (a, a, a, b, b, b)]
    for _ in range(4):
        assert lg.step() == 1
    ladder = sum(row["games"] for row in c.get("/api/league/ladder/arena").json()) // 2
    assert ladder == 2  # every other batch: challenge, ladder, challenge, ladder
    assert _queued(c, mids) == 4


def test_retiring_a_bot_drops_all_its_queued_challenges_at_once(unchecked):
    c, lg = unchecked
    a, b = upload(c, "retire-a").json(), upload(c, "retire-b").json()
    mine = [_challenge(c, a).json()["match"] for _ in range(4)]
    against = [_challenge(c, b, a["bot"]).json()["match"] for _ in range(2)]
    other = _challenge(c, b).json()["match"]
    assert c.delete(f"/api/league/bots/{a['bot']}", headers=auth(a["token"])).status_code == 200
    for mid in mine + against:
        m = c.get(f"/api/league/matches/{mid}").json()
        assert m["status"] == "failed", m
        assert "retire-a was retired" in m["error_detail"][0]["detail"]
    assert c.get(f"/api/league/matches/{other}").json()["status"] == "queued"
    assert lg.step() == 1  # the one left: b against a house bot
    assert c.get(f"/api/league/matches/{other}").json()["status"] == "ok"


def test_a_bot_that_stops_answering_loses_on_its_time_budget(league):
    c, lg = league
    lg.config = {"arena": {"max_turns": 40, "turn_time_limit_s": 1.0}}
    lg.budget_s = 2.5
    r = upload(c, "answers-once", source=ANSWERS_ONCE)
    assert r.status_code == 201, r.text  # it answers, so it passes the upload check
    bot = r.json()
    mid = _challenge(c, bot).json()["match"]
    assert lg.step() == 1
    m = c.get(f"/api/league/matches/{mid}").json()
    assert m["status"] == "ok"
    assert m["outcome"]["reason"] == "resign"
    assert m["outcome"]["winner"] == m["seats"][1]["seat"]  # the house bot
    assert m["turns"] < 40
    assert any("used up its time budget of 2.5 s" in e["detail"] for e in m["error_detail"])
    from botwars.engine.record import read_record, verify_record
    path = os.path.join(lg.data_dir, "budget.jsonl")
    with open(path, "w") as f:
        f.write(c.get(f"/api/league/matches/{mid}/record").text)
    ok, why = verify_record(read_record(path))
    assert ok, why
    assert json.loads(open(path).read().splitlines()[-2]).get("resign") == m["seats"][0]["seat"]


def test_no_match_outlasts_the_wall_clock_limit(tmp_path):
    from botwars.engine import get_ruleset
    from botwars.league.runner import MatchJob, play_match
    bot = tmp_path / "bot.py"
    bot.write_text("import json, sys\nfor line in sys.stdin:\n    print(json.dumps({'orders': []}), flush=True)\n")
    job = MatchJob("m1", "arena", get_ruleset("arena").validate_config({"max_turns": 40}), (f"cmd:python3 {bot}", "builtin:random"), 7,
                   max_match_s=0.0)
    rep = play_match(job)
    assert rep.row["status"] == "ok"
    assert rep.row["outcome"]["reason"] == "resign" and rep.row["turns"] <= 1
    assert rep.row["outcome"]["winner"] == rep.row["seats"][1]  # the bot program resigned, not the house bot
    assert "reached its limit of 0 s" in rep.row["error_detail"][-1]["detail"]
