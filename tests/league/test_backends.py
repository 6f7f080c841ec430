"""Backends (issue 15 item 3): the Ray backend gives the local backend's results for the same
seeds, and a worker process that dies mid-match (the agent kills its own worker the first time,
a marker file remembering it) has its match played again and stored exactly once — on Ray
(``max_retries``) and in the local process pool alike. Ray runs on a local instance started here."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import sys

import pytest

from botwars.agents.spec import make_agent
from botwars.league.backends import LocalBackend, RayBackend
from botwars.league.runner import MatchJob, play_match
from botwars.league.tournament import Tournament, TournamentSettings

AGENTS = ["builtin:hunter", "builtin:random", "builtin:swarm"]
TOTAL = 3 * 2 * 1


class _Suicidal:
    """Wraps an agent; at its 3rd decision kills the process it runs in, unless ``marker`` exists
    (it is created just before, so the retry plays normally)."""

    def __init__(self, inner, marker: str):
        self.inner, self.marker, self.n = inner, marker, 0

    def start(self, *a, **k):
        return self.inner.start(*a, **k)

    def act(self, view, deadline_s):
        self.n += 1
        if self.n == 3 and not os.path.exists(self.marker):
            with open(self.marker, "w") as f:
                f.write(str(os.getpid()))
            os.kill(os.getpid(), signal.SIGKILL)
        return self.inner.act(view, deadline_s)

    def close(self):
        return self.inner.close()


class KillOnce:
    """A backend task: :func:`play_match` whose first ``swarm`` agent kills its worker mid-match once."""

    def __init__(self, marker: str):
        self.marker = marker

    def __call__(self, job: MatchJob):
        def factory(spec, game):
            a = make_agent(spec, game)
            return _Suicidal(a, self.marker) if spec == "builtin:swarm" else a
        return play_match(job, factory)


class KillAlways:
    """A backend task: :func:`play_match`, except that the worker given ``match_id`` kills itself,
    on every try (so the backend gives up and stores the match as ``failed``)."""

    def __init__(self, match_id: str):
        self.match_id = match_id

    def __call__(self, job: MatchJob):
        if job.match_id == self.match_id:
            os.kill(os.getpid(), signal.SIGKILL)
        return play_match(job)


def tournament(out, **kw) -> Tournament:
    s = TournamentSettings("arena", AGENTS, overrides={"max_turns": "20"}, seed=3, **kw)
    return Tournament(s, str(out))


def table(t: Tournament) -> str:
    rows, _ = t.standings()
    return json.dumps(rows, sort_keys=True)


def stored(out) -> list[str]:
    with sqlite3.connect(os.path.join(out, "tournament.db")) as c:
        return [r[0] for r in c.execute("SELECT match_id FROM tournament_matches WHERE status = 'ok'")]


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    t = tournament(tmp_path_factory.mktemp("local"))
    t.run(LocalBackend(2))
    assert len(t.db.done_ids(t.id)) == TOTAL
    yield table(t)
    t.close()


def test_a_local_worker_that_dies_mid_match_is_replaced_and_the_match_counted_once(tmp_path, reference):
    marker = str(tmp_path / "killed")
    t = tournament(tmp_path / "out")
    t.run(LocalBackend(2, task=KillOnce(marker)))
    assert os.path.exists(marker)  # a worker was killed
    ids = stored(tmp_path / "out")
    assert len(ids) == len(set(ids)) == TOTAL
    assert table(t) == reference
    t.close()


@pytest.mark.slow
def test_a_match_lost_on_every_try_is_stored_failed_and_played_again_only_with_retry_failed(tmp_path, reference):
    t = tournament(tmp_path / "out")
    target = t.fixtures()[2].match_id
    t.run(LocalBackend(2, task=KillAlways(target)))
    failed = t.failed_matches()
    assert [m["match_id"] for m in failed] == [target]
    assert failed[0]["error_detail"][0]["code"] == "lost" and failed[0]["outcome"] is None
    assert table(t) != reference  # one match short
    t.run(LocalBackend(2))  # a plain re-run does not play it again
    assert [m["match_id"] for m in t.failed_matches()] == [target]
    assert t.retry_failed() == 1
    assert target not in t.db.done_ids(t.id)
    t.run(LocalBackend(2))
    assert t.failed_matches() == [] and len(stored(tmp_path / "out")) == TOTAL
    assert table(t) == reference  # the same seed: the result the match would have had
    assert t.retry_failed() == 0
    t.close()


@pytest.fixture(scope="module")
def local_ray():
    import ray
    from ray import cloudpickle

    src = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "src")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR",
             runtime_env={"env_vars": {"PYTHONPATH": src}})
    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import this test module
    yield ray
    ray.shutdown()


@pytest.mark.slow
def test_ray_gives_the_local_results(tmp_path, reference, local_ray):
    t = tournament(tmp_path / "ray")
    t.run(RayBackend())
    assert len(stored(tmp_path / "ray")) == TOTAL
    assert table(t) == reference
    t.close()


@pytest.mark.slow
def test_a_ray_worker_that_dies_mid_match_is_retried_and_counted_once(tmp_path, reference, local_ray):
    marker = str(tmp_path / "killed")
    t = tournament(tmp_path / "ray")
    t.run(RayBackend(task=KillOnce(marker)))
    assert os.path.exists(marker)
    ids = stored(tmp_path / "ray")
    assert len(ids) == len(set(ids)) == TOTAL
    assert table(t) == reference
    t.close()


class WorkerPid:
    """A backend task: :func:`play_match`, with the worker's process id in the report's row."""

    def __call__(self, job: MatchJob):
        report = play_match(job)
        report.row["worker_pid"] = os.getpid()
        return report


def test_a_kept_local_pool_plays_later_batches_in_the_same_workers():
    """Issue 15 item 5 (the league's scheduler runs one batch per step): with ``keep_pool`` the
    worker processes, and so the sandboxed hosts they keep, serve every batch until ``close``;
    without it each batch gets new workers."""
    from botwars.engine import get_ruleset
    config = get_ruleset("arena").validate_config({"max_turns": 3})

    def jobs(k):
        return [MatchJob(match_id=f"m{k}-{i}", game="arena", specs=("builtin:random", "builtin:hunter"), seed=i,
                         config=config) for i in range(2)]

    def pids(backend, k):
        got = []
        backend.run(jobs(k), lambda rep: got.append(rep.row["worker_pid"]))
        assert len(got) == 2
        return set(got)

    kept = LocalBackend(1, task=WorkerPid(), keep_pool=True)
    try:
        first, second = pids(kept, 1), pids(kept, 2)
        assert first == second and os.getpid() not in first
    finally:
        kept.close()
    assert kept._pool is None
    fresh = LocalBackend(1, task=WorkerPid())
    assert pids(fresh, 3) != pids(fresh, 4)
