"""Every numbered arena rule (R1-R32, H1-H27, P1-P14) is cited by a test or a scenario file.

A test cites a rule by naming it in the test's name or docstring (``test_R16_...``); a scenario
file by listing it under ``rules:``.
"""

import ast
import os
import re

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
SCEN = os.path.join(os.path.dirname(HERE), "scenarios", "arena")
ALL = [f"R{i}" for i in range(1, 33)] + [f"H{i}" for i in range(1, 28)] + [f"P{i}" for i in range(1, 15)]


def cited() -> set[str]:
    ids: set[str] = set()
    for name in os.listdir(SCEN):
        if name.endswith(".yaml"):
            doc = yaml.safe_load(open(os.path.join(SCEN, name), encoding="utf-8"))
            ids |= {str(r) for r in doc.get("rules", [])}
    for name in os.listdir(HERE):
        if name.startswith("test_") and name.endswith(".py") and name != os.path.basename(__file__):
            tree = ast.parse(open(os.path.join(HERE, name), encoding="utf-8").read())
            # only a test's name or its own docstring cites (a comment or a module docstring
            # naming a rule is no test of it)
            for node in ast.walk(tree):
                if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
                    ids |= set(re.findall(r"(?:^|_)([RHP]\d+)(?=_|$)", node.name))
                    ids |= set(re.findall(r"(?<![A-Za-z0-9])([RHP]\d+)(?![0-9])", ast.get_docstring(node) or ""))
    return ids


def test_every_numbered_rule_is_cited():
    ids = cited()
    missing = [r for r in ALL if r not in ids]
    assert not missing, f"rules cited by no test or scenario: {missing}"
