"""The archive while the game runs (issue 24 item 7): each past decision point's page at
``/matches/{id}/turns/{n}`` as the viewer may see it (G-10.6, G-16.5: stage sections of another
seat are hidden until the end), with the previous and next point; 404 for a point not yet
played; the whole game as one document (HTML, and PDF or a clear 503) after the end."""

from __future__ import annotations

import re

import pytest

from test_secrecy_audit import _geeko_turns, client, create, order, same_text, suggestion  # noqa: F401


def page(c, path, **params):
    return c.get(path, params=params, headers={"Accept": "text/html"})


def test_a_past_turn_page_has_its_stage_pictures_tables_and_prev_next_links(client):
    mid, tok = _geeko_turns(client, 4, 2, False)
    r = page(client, f"/matches/{mid}/turns/2", token=tok["p1"])
    assert r.status_code == 200, r.text
    html = r.text
    assert "<h2>Turn 2 " in html and "(step 2 of the match)" in html and "decision point" not in html and "<svg" in html and "<table" in html
    # the game's own legend (issue 24 item 7: stage pictures, tables, legend): geeko declares one
    legend = html.split('id="legend"', 1)[1].split("</div>", 2)
    assert 'class="legend-svg"' in html and "<svg" in "".join(legend)
    assert f'href="/matches/{mid}/turns/1?token={tok["p1"]}"' in html  # previous, keeping the token
    assert 'id="next-turn"' not in html  # point 3 is not played yet
    first = page(client, f"/matches/{mid}/turns/1", token=tok["p1"]).text
    assert 'id="prev-turn"' not in first and f'href="/matches/{mid}/turns/2?token={tok["p1"]}"' in first
    assert f'href="/play/{mid}?token={tok["p1"]}"' in html  # back to the seat page
    # the latest: /turns redirects to the last resolved point
    r = client.get(f"/matches/{mid}/turns", params={"token": tok["p2"]}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == f"/matches/{mid}/turns/2?token={tok['p2']}"
    # linked from the seat and spectator pages
    assert f'href="/matches/{mid}/turns?token={tok["p1"]}"' in page(client, f"/play/{mid}", token=tok["p1"]).text
    assert f'href="/matches/{mid}/turns"' in page(client, f"/watch/{mid}").text


def test_a_turn_not_yet_played_is_404_with_a_sentence(client):
    mid, tok = _geeko_turns(client, 4, 1, False)
    for n in (2, 0, 99):
        r = page(client, f"/matches/{mid}/turns/{n}", token=tok["p1"])
        assert r.status_code == 404
        assert "no resolved decision point" in r.text
    r = client.get(f"/matches/{mid}/turns/2")  # an API client gets the JSON error
    assert r.status_code == 404 and r.json()["error"] == "not_found"
    r = page(client, f"/matches/{mid}/turns/1", token="not-a-token")
    assert r.status_code == 403


def test_G_10_6_G_16_5_a_past_turn_page_shows_no_other_seats_hidden_facts(client):
    """Two matches that differ only in p1's program at turn 2: p2's page of that turn is
    byte-identical (match ids and tokens aside), while p1's own differ. A spectator sees no
    stage section during the game (all are private, G-10.6) and gets the board exactly as the
    live spectator page drew it (which tests/server/test_secrecy_audit.py checks with twin
    states): p1's room number, public by G-10.6, is all that differs."""
    a_mid, a_tok = _geeko_turns(client, 4, 2, False)
    b_mid, b_tok = _geeko_turns(client, 4, 2, True)

    def read(mid, tok, who):
        params = {"token": tok[who]} if who else {}
        r = page(client, f"/matches/{mid}/turns/2", **params)
        assert r.status_code == 200, r.text
        return same_text(r.text, mid, tok)

    assert read(a_mid, a_tok, "p1") != read(b_mid, b_tok, "p1")  # the premise: p1's turn differed
    assert read(a_mid, a_tok, "p2") == read(b_mid, b_tok, "p2")
    for mid, tok in ((a_mid, a_tok), (b_mid, b_tok)):
        mine = read(mid, tok, "p1")
        spectator = read(mid, tok, None)
        assert "<table" in mine and "<table" not in spectator  # p1's stage tables: p1's eyes only
        live = client.get(f"/web/matches/{mid}/board.svg").text
        assert live.strip() and live.strip() in spectator


def test_the_whole_game_document_after_the_end_and_403_before(client):
    mid, tok = _geeko_turns(client, 4, 1, False)
    r = page(client, f"/matches/{mid}/document")
    assert r.status_code == 403 and "once the match has ended" in r.text
    mid, tok = create(client, "geeko", 4, {"turn_limit": 2})
    for n in (1, 2):
        for seat in ("p1", "p2"):
            order(client, mid, tok[seat], n, suggestion(client, mid, tok[seat], "pathfinder"))
    assert client.get(f"/api/matches/{mid}").json()["status"] == "ended"
    html = page(client, f"/matches/{mid}/document").text
    assert len(re.findall(r'class="card archive-point"', html)) == 2
    assert "(step 1 of the match)" in html and "(step 2 of the match)" in html and "Result:" in html
    assert 'class="legend-svg"' in html  # the whole game carries the legend too
    assert f'href="/matches/{mid}/document.pdf"' in page(client, f"/replay/{mid}").text


def test_the_pdf_is_a_real_pdf_or_a_clear_503(client, monkeypatch, tmp_path):
    mid, tok = create(client, "geeko", 4, {"turn_limit": 1})
    for seat in ("p1", "p2"):
        order(client, mid, tok[seat], 1, suggestion(client, mid, tok[seat], "pathfinder"))
    monkeypatch.setenv("BOTWARS_CHROMIUM", str(tmp_path / "no-chromium-here"))
    r = client.get(f"/matches/{mid}/document.pdf")
    assert r.status_code == 503 and r.json()["error"] == "pdf_unavailable"
    assert "no Chromium at" in r.json()["message"]
    monkeypatch.delenv("BOTWARS_CHROMIUM")
    import os
    if not os.path.exists("/usr/bin/chromium"):
        pytest.skip("no Chromium at /usr/bin/chromium: only the 503 was checked")
    r = client.get(f"/matches/{mid}/document.pdf")
    assert r.status_code == 200, r.text[:300]
    assert r.headers["content-type"] == "application/pdf" and r.content.startswith(b"%PDF-")


def test_stage_headings_read_as_words_and_name_the_player(client):
    """The seeds' table line (``=== TURN 1 STAGE 1 ROOM 1 ===``, G-10.2) stays the report's; the
    pages head each section in words, naming the player whose room it is (issue 24 item 8)."""
    r = client.post("/api/matches", json={"game": "geeko", "seats": ["remote", "remote"], "seed": 4,
                                          "config": {"turn_limit": 8}, "names": ["Ana", "Bo"]})
    mid, tok = r.json()["match"], {s["seat"]: s["token"] for s in r.json()["seats"]}
    for seat in ("p1", "p2"):
        order(client, mid, tok[seat], 1, suggestion(client, mid, tok[seat], "pathfinder"))
    secs = client.get(f"/web/matches/{mid}/turn/1/stages.json", params={"token": tok["p1"]}).json()["sections"]
    mine = [s for s in secs if s["seat"] == "p1"]
    assert mine and all(s["heading"].startswith("Turn 1, ") and s["heading"].endswith(" — Ana (Red)") for s in mine)
    assert all(s["header"].startswith("=== TURN 1") for s in mine)  # the seeds' line is kept in the data
    html = page(client, f"/matches/{mid}/turns/1", token=tok["p1"]).text
    assert "— Ana (Red)</h3>" in html and "=== TURN" not in html.split("<pre")[0]
