"""Data from strangers over HTTP (issue 25, items 1 and 8): a YAML bomb in a game parameter is
a short 422 naming the parameter (it used to drive the server to 1.8 GiB and a 500, or answer
with a 39 MB error body), and a long bad value is quoted at most 200 characters. (How long a
bomb takes to refuse is measured in benchmarks/hostile_input.py, not here.)"""

from __future__ import annotations

import tracemalloc

import pytest

# 419 bytes: the "billion laughs" (10**9 strings once expanded) inside a DADOED pool (D-4.7 lets a
# match give its pool's text)
LAUGHS = ('commands:\n- id: &a [lol,lol,lol,lol,lol,lol,lol,lol,lol,lol]\n'
          + "".join(f"  {chr(98 + i)}: &{chr(98 + i)} [{','.join('*' + chr(97 + i) for _ in range(10))}]\n"
                    for i in range(8))
          + "  name: *i\n  colour: blue\n  copies: 1\n")
# under 300 bytes: a pool whose bad 'id' holds 10**7 strings; the old error message wrote it out
# whole (an 80 MB answer after seconds of work)
LAUGHS_IN_ID = ('commands:\n- id: [&a [lol,lol,lol,lol,lol,lol,lol,lol,lol,lol], '
                + ", ".join(f"&{chr(98 + i)} [{','.join('*' + chr(97 + i) for _ in range(10))}]" for i in range(6))
                + "]\n  colour: blue\n")

def make(api, game, **config):
    return api.post("/api/matches", json={"game": game, "config": config})


@pytest.mark.parametrize("bomb", [LAUGHS, LAUGHS_IN_ID])
def test_a_yaml_bomb_in_a_pool_is_a_short_422_naming_the_parameter(api, bomb):
    assert len(bomb) < 420
    tracemalloc.start()
    try:
        r = make(api, "dadoed", pool=bomb)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert r.status_code == 422, r.text[:500]
    assert len(r.content) < 2048
    body = r.json()
    assert body["error"] == "bad_config"
    assert "parameter pool" in body["message"]
    assert "more than 100000 values once its aliases (*name) are expanded" in body["message"]
    assert peak < 50 << 20, peak  # the server process grew by less than 50 MB answering it
    assert api.get("/api/matches").json() == []


def test_a_long_bad_value_is_quoted_at_most_200_characters(api):
    long_id = "x-" * 3000  # not a name like dash (the text limit is 8192 characters)
    pool = f"commands:\n- id: '{long_id}'\n  colour: blue\n  copies: 1\n"
    r = make(api, "dadoed", pool=pool)
    assert r.status_code == 422 and "'id' must be a name" in r.json()["message"]
    assert long_id[:200] not in r.text and len(r.content) < 1024
    for digits in (4000, 5000):  # 5,000: beyond what int() converts (a ValueError naming sys internals)
        r = make(api, "arena", max_turns="9" * digits)
        assert r.status_code == 422 and len(r.content) < 1024
        assert r.json()["message"].startswith("config: parameter max_turns: expected an integer of at most 100 digits")


def test_huge_integers_and_deep_nesting_in_a_pool_are_422(api):
    for pool, words in ((f"commands:\n- {{id: step, colour: blue, copies: {'9' * 5000}}}\n", "more than 100 digits"),
                        ("commands: " + "[" * 2000 + "]" * 2000 + "\n", "nested more than 64 levels")):
        r = make(api, "dadoed", pool=pool)
        assert r.status_code == 422, r.text[:300]
        assert "parameter pool" in r.json()["message"] and words in r.json()["message"]
