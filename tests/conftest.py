import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCENARIOS = os.path.join(ROOT, "tests", "scenarios")

import fcntl
import shutil
import subprocess

import pytest

# ---- the test-only sixth game, flag race (tests/plugins/sixth/, issue 26 item 5): registered for a
# test through the registry the botwars.games entry points feed (register_game), as an installed
# distribution would be found; no platform code names it
SIXTH = os.path.join(ROOT, "tests", "plugins", "sixth")


@pytest.fixture
def flagrace():
    """The flag race ``Game``, registered for the test (its folder on ``sys.path``) and removed
    after it."""
    from botwars.engine.plugin import register_game, unregister_game
    added = SIXTH not in sys.path
    if added:
        sys.path.insert(0, SIXTH)
    import flagrace as package
    game = register_game(package.GAME)
    try:
        yield game
    finally:
        unregister_game(game.id)
        if added:
            sys.path.remove(SIXTH)


@pytest.fixture
def flagrace_copy(flagrace, tmp_path):
    """``(game, folder)``: the registered flag race and a copy of its folder to edit (a test that
    breaks it there breaks nothing else)."""
    folder = str(tmp_path / "sixth")
    shutil.copytree(SIXTH, folder, ignore=shutil.ignore_patterns("__pycache__"))
    return flagrace, folder


@pytest.fixture(scope="session", autouse=True)
def bubblewrap():
    """Every bot runs in bubblewrap: install it with scripts/ensure-bubblewrap.sh when missing.

    Returns bwrap's path, or None when it could not be installed (then the sandbox level drops,
    which the hostile-bot suite reports as a failure, never a skip). Under xdist the workers
    take turns through a lock file, so only one runs apt-get.
    """
    path = shutil.which("bwrap")
    if path is None:
        with open(os.path.join("/tmp", "botwars-ensure-bubblewrap.lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                r = subprocess.run(["bash", os.path.join(ROOT, "scripts", "ensure-bubblewrap.sh")],
                                   capture_output=True, text=True, timeout=600)
                path = r.stdout.strip().splitlines()[-1] if r.returncode == 0 and r.stdout.strip() else None
            except (OSError, subprocess.TimeoutExpired):
                path = None
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)
        from botwars.agents import sandbox
        sandbox.probe(refresh=True)
    return path


# ---- the hostile-bot suite's figure (tests/agents/hostile): here, because under xdist only the
# controller prints the summary and it loads no conftest below tests/
_hostile: dict[str, str] = {}


def pytest_runtest_logreport(report):
    if "test_hostile_bots.py::test_hostile_bot_is_contained" not in report.nodeid:
        return
    if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
        _hostile[report.nodeid] = "xfail" if hasattr(report, "wasxfail") else report.outcome


def pytest_terminal_summary(terminalreporter):
    if _hostile:
        contained = sum(1 for v in _hostile.values() if v == "passed")
        terminalreporter.write_line(f"hostile bots: {contained}/{len(_hostile)} contained "
                                    f"({100.0 * contained / len(_hostile):.1f} %; expected failures: "
                                    f"{sum(1 for v in _hostile.values() if v == 'xfail')})")


# ---- never skip silently: every skip and expected failure prints its reason in the summary
# (pytest's -rsx), whatever options the run was given (-q alone shows only a count)
def pytest_configure(config):
    chars = config.option.reportchars or ""
    if "A" not in chars and "a" not in chars:
        config.option.reportchars = chars + "".join(c for c in "sx" if c not in chars)
