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

# The four submarine cases (``huge_output`` and ``invalid_utf8``, Python and ``cmd:``) used to
# be marked expected failures for an engine defect (a ``malformed`` failure at submarine setup
# gave a record that diverged on re-simulation). The referee rewrite fixed it: they pass, and an
# expected-failure mark would only have hidden the defect's return. They are plain cases now.


def test_this_machine_reaches_the_full_isolation_level():
    report = sandbox.probe()
    assert report.level == "full", report.text()


@pytest.mark.slow
@pytest.mark.parametrize("game,kind,attack", CASES, ids=["-".join(c) for c in CASES])
def test_hostile_bot_is_contained(tmp_path, game, kind, attack):
    verdict = run_case(game, kind, attack, str(tmp_path))
    assert not verdict.problems, verdict.line()
    assert verdict.errors  # the attack left its trace in MatchResult.errors
