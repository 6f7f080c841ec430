"""Issue 26 item 1, checked on the source: one seat driver around the one referee.

- only ``engine/referee.py`` and ``engine/driver.py`` call ``resolve_point`` (a decision point is
  resolved, and its record line written, in one place);
- only they call ``.replay(`` (one re-simulation path: :func:`botwars.engine.driver.resimulate`);
- no code outside ``engine/referee.py`` builds a seat's view with ``<rules>.view(`` on a rule set
  (``rs``, ``ruleset``, ``rules``, ``RS``, ``sess.rs``, ``ref.ruleset``...): views come from
  :meth:`Referee.view` or :func:`botwars.engine.referee.seat_view`. A rule set's own methods may
  call ``self.view`` (its text and SVG rendering of its own position): that is the rules'
  code, not a second way to project a state;
- the server's rules pool is a declared port: :class:`RemoteRules` implements every call of
  :class:`botwars.engine.rulesport.RulesPort` and proxies nothing by name (no ``__getattr__``).
"""

from __future__ import annotations

import ast
import pathlib
import typing

import botwars
from botwars.engine.rulesport import RULES_PORT_CALLS, RulesPort
from botwars.engine.ruleset import get_ruleset

ROOT = pathlib.Path(botwars.__file__).parent
THE_DRIVER = {"engine/referee.py", "engine/driver.py"}
RULES_NAMES = {"rs", "ruleset", "rules", "RS"}


def _calls(path: pathlib.Path) -> list[tuple[int, str, ast.expr]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [(n.lineno, n.func.attr, n.func.value) for n in ast.walk(tree)
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)]


def _rules_receiver(node: ast.expr) -> bool:
    """``rs``, ``rules``, ``sess.rs``, ``ref.ruleset``, ``self.rules``... (not ``self``: a rule set's own)."""
    if isinstance(node, ast.Name):
        return node.id in RULES_NAMES
    return isinstance(node, ast.Attribute) and node.attr in RULES_NAMES


def _scan(attr: str, allowed: set[str], receiver=lambda node: True) -> list[str]:
    files = sorted(ROOT.rglob("*.py"))
    assert len(files) > 50
    out = []
    for f in files:
        rel = f.relative_to(ROOT).as_posix()
        if rel in allowed:
            continue
        out += [f"{rel}:{line}" for line, name, target in _calls(f) if name == attr and receiver(target)]
    return out


def test_only_the_referee_and_the_driver_resolve_a_point():
    assert _scan("resolve_point", THE_DRIVER) == []


def test_one_re_simulation_path():
    assert _scan("replay", THE_DRIVER) == []


def test_no_view_is_built_outside_the_referee():
    assert _scan("view", {"engine/referee.py"}, _rules_receiver) == []


def test_the_scan_finds_what_it_forbids(tmp_path):
    p = tmp_path / "x.py"
    p.write_text("def f(rs, sess, ref, self):\n    rs.view(s, 'p1')\n    sess.rs.view(s, None)\n"
                 "    ref.resolve_point()\n    ref.replay(line)\n    self.view(s, None)\n    ref.view('p1')\n")
    found = [(line, name) for line, name, target in _calls(p)
             if name in ("resolve_point", "replay") or (name == "view" and _rules_receiver(target))]
    assert found == [(2, "view"), (3, "view"), (4, "resolve_point"), (5, "replay")]


def test_the_rules_pool_is_a_declared_port():
    from botwars.server.rulespool import RemoteRules
    members = {n for n in dir(RulesPort) if not n.startswith("_")}
    assert members == set(RULES_PORT_CALLS)
    assert "__getattr__" not in vars(RemoteRules)
    for name in RULES_PORT_CALLS:
        assert name in vars(RemoteRules), f"RemoteRules does not implement {name}"
    # a rule set is a port too (structurally: the referee holds either)
    assert isinstance(get_ruleset("arena"), RulesPort)
    assert typing.get_type_hints(RulesPort.pending)["return"] == list[str]
