"""Issue 28 item 3: the throughput benchmark counts every process's CPU on cgroup v2
(``cpu.stat``) and v1 (``cpuacct``), says which, and never falls back silently to
``getrusage`` (which misses the sandboxed bots and kept hosts). The cgroup files are faked in
a temporary folder (the kernel's names and formats); the real hierarchy is not touched."""

from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                "benchmarks"))
from _cpu import CpuAccount, NoAccounting  # noqa: E402

PID = 4242


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def stat(usec: int) -> str:
    return f"usage_usec {usec}\nuser_usec {usec // 2}\nsystem_usec {usec // 2}\n"


def test_v2_with_the_sandboxs_bot_cgroups_counts_the_whole_bot_folder(tmp_path):
    root = tmp_path / "cg2"
    bots = root / "botwars"
    write(str(bots / "cpu.stat"), stat(5_000_000))
    write(str(bots / f"bench-{PID}" / "cpu.stat"), stat(1_000))  # made by the kernel on mkdir
    write(str(root / "system.slice" / "cgroup.procs"), "")
    acc = CpuAccount(str(bots), mounts=f"cgroup2 {root} cgroup2 rw,nosuid 0 0\n",
                     proc_cgroup="0::/system.slice\n", pid=PID)
    assert acc.kind == "cgroup v2" and "cpu.stat" in acc.how and str(bots) in acc.how
    assert (bots / f"bench-{PID}" / "cgroup.procs").read_text() == str(PID)  # this process moved in
    assert acc.seconds() == pytest.approx(5.0)
    write(str(bots / "cpu.stat"), stat(7_250_000))  # a bot (in botwars/PID-N) used 2.25 s
    assert acc.seconds() == pytest.approx(7.25)
    acc.close()
    assert (root / "system.slice" / "cgroup.procs").read_text() == str(PID)  # moved back


def test_v2_without_bot_cgroups_uses_a_child_of_its_own_cgroup(tmp_path):
    """The quiet 16-core machine of the issue: unified hierarchy only; before, the benchmark
    made a 'cpuacct' folder there and crashed reading cpuacct.usage."""
    root = tmp_path / "cg2"
    here = root / "user.slice" / "session-1.scope"
    write(str(here / "cgroup.procs"), "")
    write(str(here / f"botwars-bench-{PID}" / "cpu.stat"), stat(3_000_000))
    acc = CpuAccount(None, mounts=f"cgroup2 {root} cgroup2 rw 0 0\n",
                     proc_cgroup="0::/user.slice/session-1.scope\n", pid=PID)
    assert acc.kind == "cgroup v2" and acc.seconds() == pytest.approx(3.0)
    assert not (root / "cpuacct").exists()


def test_v1_cpuacct(tmp_path):
    base = tmp_path / "cpu,cpuacct"
    write(str(base / "cgroup.procs"), "")
    write(str(base / f"botwars-bench-{PID}" / "cpuacct.usage"), "2500000000\n")
    acc = CpuAccount("/sys/fs/cgroup/pids/botwars",
                     mounts=f"cgroup {base} cgroup rw,cpu,cpuacct 0 0\ncgroup /sys/fs/cgroup/pids cgroup rw,pids 0 0\n",
                     proc_cgroup="4:cpu,cpuacct:/\n", pid=PID)
    assert acc.kind == "cgroup v1" and "cpuacct" in acc.how and acc.seconds() == pytest.approx(2.5)


def test_a_v2_counter_without_usage_is_not_taken_and_nothing_writable_is_refused(tmp_path):
    root = tmp_path / "cg2"
    write(str(root / "cgroup.procs"), "")
    write(str(root / f"botwars-bench-{PID}" / "cpu.stat"), "nr_periods 0\n")  # no usage_usec line
    with pytest.raises(NoAccounting) as err:
        CpuAccount(None, mounts=f"cgroup2 {root} cgroup2 rw 0 0\n", proc_cgroup="0::/\n", pid=PID)
    assert "sandboxed bots" in str(err.value) and "--rusage" in str(err.value)
    with pytest.raises(NoAccounting, match="no cgroup hierarchy is mounted"):
        CpuAccount(None, mounts="proc /proc proc rw 0 0\n", proc_cgroup="", pid=PID)
    acc = CpuAccount(None, allow_rusage=True, mounts="proc /proc proc rw 0 0\n", proc_cgroup="", pid=PID)
    assert acc.kind == "getrusage" and "NOT counted" in acc.how and acc.seconds() > 0


def test_no_group_can_be_joined_reads_the_own_v2_cgroup_counter(tmp_path):
    """Not root (or a read-only hierarchy): no child group can be joined, so the own cgroup's
    cpu.stat is read as it is, labelled as counting everything in that cgroup."""
    root = tmp_path / "cg2"
    here = root / "user.slice"
    write(str(here / "cpu.stat"), stat(9_000_000))
    (here / f"botwars-bench-{PID}" / "cgroup.procs").mkdir(parents=True)  # joining fails (a folder)
    acc = CpuAccount(None, mounts=f"cgroup2 {root} cgroup2 rw 0 0\n", proc_cgroup="0::/user.slice\n", pid=PID)
    assert acc.kind == "cgroup v2" and "own cgroup" in acc.how and acc.seconds() == pytest.approx(9.0)
    write(str(here / "cpu.stat"), stat(9_500_000))
    assert acc.seconds() == pytest.approx(9.5)
    acc.close()  # nothing was joined: nothing to undo


def test_own_v1_cpuacct_counter_is_read_when_no_group_can_be_joined(tmp_path):
    """cgroup v1 where a group can be made but not joined (the kernel refuses the write): the
    own cpuacct group's counter (the path /proc/self/cgroup names) is read, read only."""
    base = tmp_path / "cpu,cpuacct"
    write(str(base / "docker" / "abc" / "cpuacct.usage"), "4000000000\n")
    (base / f"botwars-bench-{PID}").mkdir(parents=True)
    (base / f"botwars-bench-{PID}" / "cgroup.procs").mkdir()  # writing it fails (a folder)
    acc = CpuAccount(None, mounts=f"cgroup {base} cgroup rw,cpu,cpuacct 0 0\n",
                     proc_cgroup="5:cpu,cpuacct:/docker/abc\n0::/\n", pid=PID)
    assert acc.kind == "cgroup v1" and "own cgroup" in acc.how and "docker/abc" in acc.how
    assert acc.seconds() == pytest.approx(4.0)


def test_nothing_readable_falls_back_to_getrusage_and_says_so(tmp_path):
    """Neither layout usable (mounted but empty, unreadable): never a crash; getrusage, labelled."""
    root = tmp_path / "cg2"
    root.mkdir()
    (root / f"botwars-bench-{PID}").mkdir()
    (root / f"botwars-bench-{PID}" / "cgroup.procs").mkdir()  # joining fails
    base = tmp_path / "cpuacct"
    (base / f"botwars-bench-{PID}" / "cgroup.procs").mkdir(parents=True)
    mounts = f"cgroup2 {root} cgroup2 rw 0 0\ncgroup {base} cgroup rw,cpuacct 0 0\n"
    acc = CpuAccount(None, allow_rusage=True, mounts=mounts, proc_cgroup="3:cpuacct:/\n0::/\n", pid=PID)
    assert acc.kind == "getrusage" and "NOT counted" in acc.how and acc.seconds() > 0
    with pytest.raises(NoAccounting):
        CpuAccount(None, mounts=mounts, proc_cgroup="3:cpuacct:/\n0::/\n", pid=PID)
