"""Hostile bots against the sandbox (issue 12): every attack, every agent kind, three games.

Each case plays a bot that attacks (``hostile_lib.py``) against a well-behaved sandboxed opponent
and must end contained: the match finished, the attack recorded as the hostile seat's error,
the opponent without error, the record verifying and free of secrets, no process left, nothing
reached or changed on the host (``hostile_harness.py`` lists the checks). The summary line
``hostile bots: N/M contained`` follows the run; ``benchmarks/hostile_bots.py`` prints the same
figure without pytest.
"""

import pytest

from botwars.agents import sandbox

from hostile_harness import CASES, run_case

# Engine defect, not a sandbox one (reproduced with an in-process agent and no sandbox): a
# submarine seat whose agent fails with ``malformed`` at setup gets a record whose re-simulation
# diverges at decision 1. match.py/record.py belong to the referee rewrite; these cases report it.
RECORD_BUG = {("submarine", "py", "huge_output"), ("submarine", "py", "invalid_utf8"),
              ("submarine", "cmd", "huge_output"), ("submarine", "cmd", "invalid_utf8")}


def test_this_machine_reaches_the_full_isolation_level():
    report = sandbox.probe()
    assert report.level == "full", report.text()


@pytest.mark.slow
@pytest.mark.parametrize("game,kind,attack", CASES, ids=["-".join(c) for c in CASES])
def test_hostile_bot_is_contained(tmp_path, game, kind, attack):
    verdict = run_case(game, kind, attack, str(tmp_path))
    problems = verdict.problems
    if (game, kind, attack) in RECORD_BUG and problems and all(p.startswith("record does not verify")
                                                               for p in problems):
        pytest.xfail("engine: a 'malformed' agent failure at submarine setup makes the record diverge")
    assert not problems, verdict.line()
    assert verdict.errors  # the attack left its trace in MatchResult.errors
