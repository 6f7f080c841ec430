"""Issue 28 item 3: the rgkit host builds ``game.robots`` only when a bot reads it
(:class:`botwars.games.arena.rgkit_host.LazyGame`), and every way of reading it gives what the
eager ``AttrDict(robots=..., turn=...)`` gave: same keys in the same order, same values."""

from __future__ import annotations

import copy
import pickle

import pytest

from botwars.games.arena.rgcompat import AttrDict
from botwars.games.arena.rgkit_host import LazyGame


def record() -> AttrDict:
    return AttrDict({(3, 4): AttrDict(location=(3, 4), hp=50, player_id=0, robot_id=7),
                     (9, 9): AttrDict(location=(9, 9), hp=12, player_id=1)})


@pytest.fixture
def lazy():
    calls = []

    def build():
        calls.append(1)
        return record()
    return (lambda turn=5: LazyGame(turn, build)), calls


def eager(turn=5) -> AttrDict:
    return AttrDict(robots=record(), turn=turn)


def test_reading_only_the_turn_and_setting_the_seed_builds_nothing(lazy):
    make, calls = lazy
    g = make()
    g.seed = "123-7"
    assert g.turn == 5 and g["turn"] == 5 and g.seed == "123-7"
    assert calls == []


@pytest.mark.parametrize("read", [
    lambda g: g.robots, lambda g: g["robots"], lambda g: "robots" in g, lambda g: len(g), lambda g: list(g),
    lambda g: list(g.keys()), lambda g: list(g.values()), lambda g: list(g.items()), lambda g: g.get("robots"),
    lambda g: g.copy(), lambda g: dict(g), lambda g: {**g}, lambda g: repr(g), lambda g: g == eager(),
    lambda g: copy.deepcopy(g), lambda g: pickle.loads(pickle.dumps(g)), lambda g: getattr(g, "robots"),
    lambda g: vars(g)["robots"],
], ids=["attr", "item", "in", "len", "iter", "keys", "values", "items", "get", "copy", "dict", "splat", "repr",
        "eq", "deepcopy", "pickle", "getattr", "vars"])
def test_every_read_gives_the_eager_game_built_once(lazy, read):
    make, calls = lazy
    g = make()
    got, want = read(g), read(eager())
    assert got == want
    assert calls == [1]
    assert list(g.keys()) == ["robots", "turn"] and g == eager() and g.robots is g["robots"]
    read(g)
    assert calls == [1]  # once per game (one game serves all of a player's robots in a turn)


def test_a_bot_that_sets_its_own_robots_first_keeps_them(lazy):
    make, calls = lazy
    g = make()
    g.robots = {}
    assert g.robots == {} and len(g) == 2 and calls == []


def test_a_changed_record_is_seen_by_the_next_robot_as_in_rgkit(lazy):
    make, calls = lazy
    g = make()
    del g.robots[(9, 9)]
    assert list(g["robots"]) == [(3, 4)] and calls == [1]


def test_missing_names_still_raise(lazy):
    make, _ = lazy
    g = make()
    with pytest.raises(AttributeError):
        g.nothing  # noqa: B018
    with pytest.raises(KeyError):
        g["nothing"]
