"""A bot author's audit of the league on the server (issue 15 item 4), one test per fix:

- the scheduler crashed its batch (a logged traceback, "league bot ... is retired") when a bot
  was uploaded between its two reads of the bots;
- a JavaScript upload with a syntax error was refused with "exit status 1: Node.js v20.x"
  (node's version trailer), not the ``SyntaxError`` line;
- a taken name said "a arena bot is already called ...", and not that a retired bot holds it;
- the match page said "p2 won", not which bot; the bot page showed no rank or rating and had no
  way to replace or retire the bot that its owner token is given for;
- an unknown bot, match or game gave a browser a line of raw JSON.
"""

from __future__ import annotations

import warnings

import pytest

from tests.league.test_league_server import _report, _source, auth, league, upload  # noqa: F401

warnings.filterwarnings("ignore", message=".*httpx2.*")

HTML = {"Accept": "text/html"}


def _add_bot(store, bot_id: str, name: str, status: str = "active") -> None:
    from botwars.store.models import LeagueBotRow
    with store.write() as s:
        s.add(LeagueBotRow(id=bot_id, name=name, game="arena", kind="jsonl-py", source="pass\n", version=1,
                           token_hash="0" * 64, status=status, created_at=0.0, updated_at=0.0))


def test_a_bot_uploaded_while_the_scheduler_pairs_waits_for_the_next_batch(tmp_path):
    from botwars.server.league import League
    from botwars.store import Store
    store = Store(f"sqlite:///{tmp_path}/p.db")
    store.migrate()
    for i in range(2):
        _add_bot(store, f"b{i}", f"n{i}")
    lg = League(store, str(tmp_path / "d"), house={"arena": []}, enabled=False)
    stored = lg._stored

    def upload_meanwhile(game, kind="ladder"):  # an upload lands between the two reads
        if not any(b["bot"] == "late" for b in lg.bots()):
            _add_bot(store, "late", "late")
        return stored(game, kind)

    lg._stored = upload_meanwhile  # type: ignore[method-assign]
    jobs = lg.pairings("arena", 3)  # before the fix: ConfigError "league bot late is retired"
    assert len(jobs) == 3 and all("bot:late@v1" not in j.names for j in jobs)
    lg._stored = stored  # type: ignore[method-assign]
    assert any("bot:late@v1" in j.names for j in lg.pairings("arena", 3))  # its turn comes next batch
    store.dispose()


def test_a_node_crash_names_its_error_line_not_the_version_trailer():
    from botwars.agents.sandbox import exit_failure
    tail = ("/bot/bot.js:1\nfunction (\n^^^^^^^^\n\nSyntaxError: Function statements require a function name\n"
            "    at wrapSafe (node:internal/modules/cjs/loader:1464:18)\n"
            "    at node:internal/main/run_main_module:28:49\n\nNode.js v20.20.2\n")
    assert exit_failure(1, tail)[1] == "exit status 1: SyntaxError: Function statements require a function name"
    # a Python traceback still names its last line
    assert exit_failure(1, "Traceback (most recent call last):\n  File \"bot.py\", line 1\nNameError: x\n")[1] \
        == "exit status 1: NameError: x"


@pytest.mark.slow
def test_a_javascript_upload_with_a_syntax_error_is_refused_naming_it(league):
    c, _ = league
    r = upload(c, "jssyntax", "jsonl-js", source="function (\n")
    assert r.status_code == 422 and "SyntaxError" in r.json()["message"], r.text
    assert "Node.js v" not in r.json()["message"]


@pytest.mark.slow
def test_a_taken_name_says_so_and_whether_a_retired_bot_holds_it(league):
    c, _ = league
    r = upload(c, "dup")
    assert r.status_code == 201, r.text
    token, bot = r.json()["token"], r.json()["bot"]
    r = upload(c, "dup")
    assert r.status_code == 409 and r.json()["message"].startswith("name: 'dup' is taken in arena"), r.text
    assert "retired" not in r.json()["message"]
    assert c.delete(f"/api/league/bots/{bot}", headers=auth(token)).status_code == 200
    r = upload(c, "dup")
    assert r.status_code == 409 and "retired" in r.json()["message"], r.text


def test_match_page_names_the_winner_and_bot_page_shows_rank_and_owner_form(league):
    c, lg = league
    _add_bot(lg.store, "aaaaaaaaaaaa", "alpha")
    _add_bot(lg.store, "bbbbbbbbbbbb", "beta")
    lg._commit(_report(1, ["bot:aaaaaaaaaaaa@v1", "bot:bbbbbbbbbbbb@v1"], [["p2"], ["p1"]]), "ladder", "arena")
    page = c.get("/league/matches/m0001").text
    assert "beta (p2) won" in page, page  # before: "p2 won"
    page = c.get("/league/bots/bbbbbbbbbbbb").text
    assert 'id="bot-rating"' in page and "rank 1 of 3" in page  # alpha, beta and the house bot random
    assert 'id="owner-form"' in page and 'id="retire-btn"' in page
    lg._commit(_report(2, ["bot:aaaaaaaaaaaa@v1", "builtin:random"], [["p1", "p2"]]), "ladder", "arena")
    assert 'id="match-status">draw' in c.get("/league/matches/m0002").text


def test_unknown_league_pages_give_a_browser_a_page(league):
    c, _ = league
    for path, title in [("/league/bots/nosuch", "No such league bot"), ("/league/matches/nosuch", "No such league match"),
                        ("/league/matches/nosuch/replay", "No such league match"), ("/league/nogame", "No such game")]:
        r = c.get(path, headers=HTML)
        assert r.status_code == 404 and r.headers["content-type"].startswith("text/html"), path
        assert title in r.text and 'href="/league"' in r.text, path
        r = c.get(path)  # other clients keep the JSON error
        assert r.status_code == 404 and r.json()["error"].startswith("unknown_"), path
