"""Issue 11 item 1: nothing but the referee calls ``Ruleset.resolve``. Every source file of the
package is parsed; a call of an attribute named ``resolve`` anywhere but in
``engine/referee.py`` is a second implementation of the decision point (a rule set's own
``resolve`` may call its parent's: ``super().resolve``)."""

import ast
import pathlib

import botwars

ROOT = pathlib.Path(botwars.__file__).parent


def _resolve_calls(path: pathlib.Path) -> list[int]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "resolve":
            target = node.func.value
            if isinstance(target, ast.Call) and isinstance(target.func, ast.Name) and target.func.id == "super":
                continue
            out.append(node.lineno)
    return out


def test_only_the_referee_calls_resolve():
    files = sorted(ROOT.rglob("*.py"))
    assert len(files) > 50
    calls = [f"{f.relative_to(ROOT)}:{n}" for f in files if f.name != "referee.py" or f.parent.name != "engine"
             for n in _resolve_calls(f)]
    assert calls == []


def test_the_scan_finds_a_call_and_allows_super(tmp_path):
    p = tmp_path / "x.py"
    p.write_text("def f(rs, s, o):\n    return rs.resolve(s, o)\n\n"
                 "class R:\n    def resolve(self, s, o):\n        return super().resolve(s, o)\n")
    assert _resolve_calls(p) == [2]
