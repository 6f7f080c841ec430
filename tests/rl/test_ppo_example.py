"""examples/ppo_arena.py (issue 29 item 4): its Wilson interval is the textbook one and the
script runs end to end (one short update, a tiny evaluation) and reports what docs/rl.md quotes."""

import importlib.util
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "examples", "ppo_arena.py")


def load():
    spec = importlib.util.spec_from_file_location("ppo_arena", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_wilson_interval_matches_the_published_values():
    mod = load()
    lo, hi = mod.wilson(8, 10)          # Wilson (1927) score interval, 95 %: 0.4902 to 0.9433
    assert lo == pytest.approx(0.4902, abs=1e-4) and hi == pytest.approx(0.9433, abs=1e-4)
    lo, hi = mod.wilson(0, 20)          # 0 to 0.1611
    assert lo == pytest.approx(0.0, abs=1e-9) and hi == pytest.approx(0.1611, abs=1e-4)


@pytest.mark.slow
def test_the_example_trains_and_reports(tmp_path):
    out = tmp_path / "ppo.json"
    env = {**os.environ, "PYTHONPATH": os.path.join(ROOT, "src")}
    r = subprocess.run([sys.executable, SCRIPT, "--cpu-minutes", "0.01", "--envs", "4", "--steps", "4",
                        "--eval", "4", "--out", str(out)], capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    res = json.loads(out.read_text())["result"]
    assert res["updates"] >= 1 and res["env_steps"] >= 16
    for mode in ("sample", "greedy"):
        t = res["trained"][mode]
        assert t["wins"] + t["draws"] + t["losses"] == 4
        assert 0 <= t["wilson95"][0] <= t["win_rate"] <= t["wilson95"][1] <= 1
