"""Notices a player can act on (issue 24 items 2 and 8), through a real SMTP sink: each notice
links the recipient's own seat page (only to the address registered with that seat's token),
names the players, carries that seat's private summary (F-15.3: its own HP, robots left, hand
size; its time left) and never another seat's secrets; the result notice links the replay."""

from __future__ import annotations

from server_support import make_client
from test_notices import PUBLIC, auth, confirm, notice_env, smtp, subject, wait_for  # noqa: F401  (fixtures)


def test_factory_notices_link_the_own_seat_and_carry_only_the_own_summary(smtp, notice_env, sqlite_url, clock):
    notice_env(smtp.port)
    with make_client(sqlite_url, clock) as c:
        r = c.post("/api/matches", json={"game": "factory", "seats": ["remote", "remote"], "seed": 3,
                                         "names": ["Ana", "Bo"]})
        assert r.status_code == 201, r.text
        mid = r.json()["match"]
        tok = {s["seat"]: s["token"] for s in r.json()["seats"]}
        for seat, addr in (("p1", "ana@example.com"), ("p2", "bo@example.com")):
            assert c.post(f"/api/matches/{mid}/notices", headers=auth(tok[seat]), json={"email": addr}).status_code == 200
            confirm(c, smtp, addr)  # issue 25 item 6: nothing else is mailed before the owner agrees
        hands = {s: c.get(f"/api/matches/{mid}/view", headers=auth(tok[s])).json()["view"]["hand"] for s in tok}
        assert hands["p1"] and hands["p2"]
        mails = {a: wait_for(lambda a=a: [m for m in smtp.to(a) if "move" in subject(m)], f"the your-move mail to {a}")[0]
                 for a in ("ana@example.com", "bo@example.com")}
        for seat, addr, other in (("p1", "ana@example.com", "p2"), ("p2", "bo@example.com", "p1")):
            text = mails[addr].get_content()
            assert f"{PUBLIC}/play/{mid}?token={tok[seat]}" in text  # the seat's own page
            assert tok[other] not in text and "Play with your seat's own link" not in text
            # F-5.5: 5 days a turn by default; F-8.1 three robots; F-5.2 nine cards dealt
            assert "Your position: HP 10, robots left 3, cards in hand 9, time left 5 d 0:00:00." in text
            for card in set(hands["p1"]) | set(hands["p2"]):
                assert card not in text  # no card of any hand, the recipient's own included
        assert "seat Ana (p1, red)'s move" in mails["ana@example.com"].get_content()  # name beside the colour word
        # the result names the winner and links the replay
        assert c.post(f"/api/matches/{mid}/resign", headers=auth(tok["p2"])).status_code == 200
        res = wait_for(lambda: [m for m in smtp.to("ana@example.com") if "has ended" in subject(m)], "the result")
        assert subject(res[0]) == f"botwars: match {mid} has ended, Ana (p1) won"
        text = res[0].get_content()
        assert f"Replay of the whole game: {PUBLIC}/replay/{mid}" in text
        assert f"{PUBLIC}/play/{mid}?token={tok['p1']}" in text and tok["p2"] not in text


def test_a_pbem_point_gets_a_reminder_two_days_before_its_deadline():
    from botwars.server.notices import PBEM_REMINDER_S, reminder_offsets
    assert sorted(reminder_offsets((86400.0, 3600.0), 1000.0 + 432_000, 1000.0)) == [3600.0, 86400.0, PBEM_REMINDER_S]
    assert sorted(reminder_offsets((86400.0, 3600.0), 1000.0 + 86_400, 1000.0)) == [3600.0, 86400.0]
    assert reminder_offsets((86400.0,), None, 1000.0) == []
