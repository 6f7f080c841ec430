"""The one safe reader of strangers' YAML, JSON and files (issue 25, items 1 and 9):
:mod:`botwars.engine.safeload`. Anchors and aliases are refused before anything is built,
depth, size and integer digits are bounded, and an error quotes at most 200 characters."""

from __future__ import annotations

import json

import pytest

from botwars.engine.errors import ConfigError
from botwars.engine.safeload import Limits, check_tree, compose_yaml, load_json, load_yaml, quote, read_text

# the "billion laughs": nine levels of ten aliases each, 10**9 strings once built
LAUGHS = "a: &a [lol,lol,lol,lol,lol,lol,lol,lol,lol,lol]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{','.join('*' + chr(97 + i) for _ in range(10))}]\n" for i in range(8))


def test_a_billion_laughs_is_refused_at_the_alias_that_crosses_the_bound():
    with pytest.raises(ConfigError) as info:
        load_yaml(LAUGHS, "pool.yaml")
    # line 5 (e: ten times d, which holds 11,111 values) is where the count passes 100,000
    assert info.value.source == "pool.yaml" and info.value.line == 5
    assert info.value.message == "more than 100000 values once its aliases (*name) are expanded"
    with pytest.raises(ConfigError, match="more than 100 values once its aliases"):
        compose_yaml(LAUGHS, "pool.yaml", Limits(max_nodes=100))


def test_aliases_within_the_bound_load_as_pyyaml_builds_them():
    import yaml
    text = "base: &b {hp: 2, at: D4}\nsubs:\n  a: *b\n  v: *b\nevents: {p1: &seen [1, 2], p2: *seen}\n"
    assert load_yaml(text, "s.yaml") == yaml.safe_load(text)
    # the mapping, 59 lists and the 4 levels the alias stands for: 64 levels, the limit
    deep = "a: &a [[[[1]]]]\nb: " + "[" * 59 + "*a" + "]" * 59 + "\n"
    assert load_yaml(deep, "d.yaml")["a"] == [[[[1]]]]
    with pytest.raises(ConfigError, match="nested more than 64 levels"):  # one list more: 65
        load_yaml(deep.replace("[" * 59, "[" * 60).replace("]" * 59, "]" * 60), "d.yaml")


@pytest.mark.parametrize("text", ["a: &a [*a]\n", "a: *x\n", "<<: *base\n"])
def test_a_recursive_or_undefined_alias_is_refused(text):
    with pytest.raises(ConfigError, match="alias"):
        load_yaml(text, "f.yaml")
    with pytest.raises(ConfigError, match="alias"):
        compose_yaml(text, "f.yaml")


def test_ordinary_yaml_and_json_load_as_pyyaml_safe_load_does():
    import yaml
    text = "game: arena\nturns:\n  - {orders: {1a: M-E}, n: 3}\nx: [1.5, true, null, '007', 0x1F]\n"
    assert load_yaml(text, "s.yaml") == yaml.safe_load(text)
    assert load_yaml('{"commands": [{"id": "step", "copies": 2}]}', "p.json") == {
        "commands": [{"id": "step", "copies": 2}]}
    assert load_yaml("", "empty.yaml") is None


def test_nesting_deeper_than_the_limit_is_refused_in_yaml_and_json():
    deep_yaml = "[" * 65 + "]" * 65
    with pytest.raises(ConfigError, match="nested more than 64 levels"):
        load_yaml(deep_yaml, "d.yaml")
    assert load_yaml("[" * 64 + "]" * 64, "ok.yaml") is not None
    with pytest.raises(ConfigError, match="nested more than 64 levels"):
        load_json("[" * 65 + "]" * 65, "d.json")
    # deeper than the interpreter's recursion limit: a ConfigError, not a RecursionError
    with pytest.raises(ConfigError, match="nested more than"):
        load_json("[" * 100_000 + "]" * 100_000, "d.json", Limits(max_bytes=1 << 20))
    with pytest.raises(ConfigError, match="nested more than"):
        load_yaml("[" * 100_000 + "]" * 100_000, "d.yaml", Limits(max_bytes=1 << 20))


def test_integers_of_more_than_100_digits_are_refused_not_a_traceback():
    for text in ("n: " + "9" * 101, "n: !!int '" + "9" * 101 + "'", "n: -" + "1" * 5000, "n: 0x" + "f" * 200):
        with pytest.raises(ConfigError, match="more than 100 digits"):
            load_yaml(text, "n.yaml")
    assert load_yaml("n: " + "9" * 100, "n.yaml") == {"n": int("9" * 100)}
    assert load_yaml("n: '" + "9" * 500 + "'", "n.yaml") == {"n": "9" * 500}  # quoted: text, fine
    # but not a run of digits that a notation would meet int() with ("r99...9c1")
    with pytest.raises(ConfigError, match="a run of more than 1000 digits in a text"):
        load_yaml("at: r" + "9" * 5000 + "c1", "n.yaml")
    for text in ("[" + "9" * 101 + "]", "1" * 5000, '{"seed": -' + "7" * 4301 + "}"):
        with pytest.raises(ConfigError, match="more than 100 digits"):
            load_json(text, "n.json")
    with pytest.raises(ConfigError, match="more than 100 digits"):
        check_tree({"a": [[10 ** 100]]}, "tree")


def test_size_is_bounded_before_parsing():
    with pytest.raises(ConfigError, match="over the limit of 100 bytes"):
        load_yaml("a: " + "x" * 200, "big.yaml", Limits(max_bytes=100))
    with pytest.raises(ConfigError, match="over the limit of 100 bytes"):
        load_json(json.dumps("é" * 60), "big.json", Limits(max_bytes=100))  # 120 bytes of UTF-8


def test_read_text_stops_at_the_limit_even_on_an_endless_file(tmp_path):
    with pytest.raises(ConfigError) as info:
        read_text("/dev/zero", Limits(max_bytes=4096), what="record")
    assert info.value.one_line() == "/dev/zero: the record is over the limit of 4096 bytes"
    with pytest.raises(ConfigError, match="is a folder"):
        read_text(str(tmp_path))
    with pytest.raises(ConfigError, match="cannot read: No such file or directory"):
        read_text(str(tmp_path / "nope"))
    (tmp_path / "bin").write_bytes(b"\xff\xfe secret")
    with pytest.raises(ConfigError) as info:
        read_text(str(tmp_path / "bin"))
    assert "not UTF-8" in info.value.message and "secret" not in info.value.one_line()


def test_quote_is_bounded_even_for_a_shared_structure_of_a_billion_strings():
    x: list = ["lol"] * 10
    for _ in range(9):
        x = [x] * 10  # 10**10 strings if written out whole
    text = quote({"id": x})
    assert len(text) <= 200 and text.startswith("{'id': [[")
    long = quote("z" * 10_000)
    assert len(long) <= 200 and "..." in long
    assert quote("dash") == "'dash'" and quote(None) == "None"


def test_syntax_errors_name_line_and_column():
    with pytest.raises(ConfigError) as info:
        load_yaml("game: arena\nrobots: [1a\n", "s.yaml")
    assert info.value.line == 3 and info.value.message.startswith("YAML error:")
    with pytest.raises(ConfigError) as info:
        load_json('{"a": 1,\n "b": }', "r.json")
    assert (info.value.line, info.value.column) == (2, 7) and info.value.message.startswith("not JSON")
