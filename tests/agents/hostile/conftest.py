"""The hostile-bot suite's summary line: how many cases the sandbox contained (also under xdist,
where the controller sees every worker's reports)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

_results: dict[str, str] = {}


def pytest_runtest_logreport(report):
    if "test_hostile_bots.py::test_hostile_bot_is_contained" not in report.nodeid:
        return
    if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
        _results[report.nodeid] = "xfail" if hasattr(report, "wasxfail") else report.outcome


def pytest_terminal_summary(terminalreporter):
    if not _results:
        return
    contained = sum(1 for v in _results.values() if v == "passed")
    total = len(_results)
    terminalreporter.write_line(f"hostile bots: {contained}/{total} contained "
                                f"({100.0 * contained / total:.1f} %)")
