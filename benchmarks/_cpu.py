"""CPU time of a benchmark and of every process it starts, sandboxed bots and kept hosts included
(issue 28 item 3): read from the cgroup hierarchy, v2 (``cpu.stat``) or v1 (``cpuacct``).

Sandboxed bots run in their own PID namespace and are never reaped by the benchmark, and kept
hosts outlive the matches, so ``getrusage(RUSAGE_CHILDREN)`` misses them. Only a cgroup sees
them all. How, by hierarchy:

- **cgroup v2, bots in their own pids cgroups** (the sandbox's ``…/botwars/PID-N``, made when
  the unified hierarchy is writable): this process moves into ``…/botwars/bench-PID``; the CPU
  is the growth of ``…/botwars/cpu.stat`` ``usage_usec``, which holds every bot's cgroup and
  this one, including those already removed (v2 keeps a removed child's usage in its parent).
  Bots of another botwars engine on the same machine would be counted too: run it alone.
- **cgroup v2, bots in the benchmark's own cgroup**: this process moves into a new child
  ``…/botwars-bench-PID`` of its cgroup, where its children stay; that child's ``cpu.stat``.
- **cgroup v1**: a ``cpuacct`` group of its own (``cpuacct.usage``; the bots' pids cgroups are
  in another hierarchy and leave this one alone).
- no group can be made (not root, a read-only hierarchy): the counter of this process's own
  cgroup is read as it is, v2 ``cpu.stat`` ``usage_usec`` or v1 ``cpuacct.usage`` of the path
  ``/proc/self/cgroup`` names: it counts every process in that cgroup (other work on the same
  machine or container too, so run alone), and the label says so. On v2 the sandbox may move
  the bots into its own pids cgroups, which leave that counter: then it is not used.
- nothing readable: ``getrusage(RUSAGE_SELF)`` + ``RUSAGE_CHILDREN`` (``allow_rusage``, the
  benchmarks' default), labelled as missing the sandboxed processes; without ``allow_rusage``
  :class:`NoAccounting` is raised, naming why.

Nothing here raises anything but :class:`NoAccounting`: an unreadable ``/proc/self/mounts``, a
missing or malformed counter, a refused write all mean "try the next way".
"""

from __future__ import annotations

import os
import resource


class NoAccounting(RuntimeError):
    """No cgroup can count this process's and its bots' CPU here (the message says why)."""


def _mounts(text: str) -> list[tuple[str, str, list[str]]]:
    out = []
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 4:
            out.append((parts[1], parts[2], parts[3].split(",")))
    return out


def _own_v2_path(proc_cgroup: str) -> str | None:
    for line in proc_cgroup.splitlines():
        if line.startswith("0::"):
            return line[3:].strip() or "/"
    return None


def _own_v1_path(proc_cgroup: str, controller: str = "cpuacct") -> str | None:
    """This process's path in the v1 hierarchy holding ``controller`` (``N:cpu,cpuacct:/path``)."""
    for line in proc_cgroup.splitlines():
        parts = line.split(":", 2)
        if len(parts) == 3 and controller in parts[1].split(","):
            return parts[2].strip() or "/"
    return None


def _read_text(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError:
        return ""


class CpuAccount:
    """Where CPU time is read: :attr:`kind` (``cgroup v2``, ``cgroup v1`` or ``getrusage``),
    :attr:`how` (one line for the report). :meth:`seconds` is the CPU time (seconds) used so
    far by everything counted; :meth:`close` moves this process back and removes its group.

    ``bot_cgroup``: the sandbox's folder of bot cgroups (``sandbox.probe().cgroup``) or
    ``None``; ``mounts`` / ``proc_cgroup``: the text of ``/proc/self/mounts`` and
    ``/proc/self/cgroup`` (read when not given; tests pass their own); ``pid``: whose group.
    Raises :class:`NoAccounting` when no cgroup can be used and ``allow_rusage`` is false."""

    def __init__(self, bot_cgroup: str | None = None, *, allow_rusage: bool = False, mounts: str | None = None,
                 proc_cgroup: str | None = None, pid: int | None = None):
        self.pid = os.getpid() if pid is None else pid
        self.kind = "getrusage"
        self._read = ""  # file whose counter is read
        self._mine = ""  # the group made for this process (removed at close)
        self._back = ""  # cgroup.procs to move back to
        if mounts is None:
            mounts = _read_text("/proc/self/mounts")
        if proc_cgroup is None:
            proc_cgroup = _read_text("/proc/self/cgroup")
        why: list[str] = []
        if self._pick(bot_cgroup, mounts, proc_cgroup, why):
            return
        if not allow_rusage:
            raise NoAccounting("cannot count the sandboxed bots' CPU: " + "; ".join(why) +
                               " (run as root, or give --rusage to count only this process and its reaped "
                               "children, which misses every sandboxed bot)")
        self.how = ("getrusage (self + reaped children: sandboxed bots and kept hosts are NOT counted; "
                    + ("; ".join(why) or "no cgroup") + ")")

    def _pick(self, bot_cgroup: str | None, mounts: str, proc_cgroup: str, why: list[str]) -> bool:
        """Take the first way of counting that works (see the module docstring); False when none
        does (``why`` then says why, one entry per way tried)."""
        table = _mounts(mounts)
        v2 = [m for m in table if m[1] == "cgroup2"]
        v1 = [m for m in table if m[1] == "cgroup" and "cpuacct" in m[2]]
        own = _own_v2_path(proc_cgroup)
        here = os.path.join(v2[0][0], own.lstrip("/")) if v2 and own is not None else ""
        bots_leave = bool(v2 and bot_cgroup and any(bot_cgroup.startswith(m[0].rstrip("/") + "/") for m in v2))
        if bots_leave and bot_cgroup:
            try:
                self._join(os.path.join(bot_cgroup, f"bench-{self.pid}"), os.path.join(bot_cgroup, "cpu.stat"),
                           os.path.join(here or v2[0][0], "cgroup.procs"))
                self.kind = "cgroup v2"
                self.how = (f"cgroup v2 cpu.stat of {bot_cgroup} (this process in bench-{self.pid} and every "
                            "sandboxed bot in its own pids cgroup there; run no other botwars engine meanwhile)")
                return True
            except OSError as exc:
                why.append(f"cgroup v2 {bot_cgroup}: {exc.strerror or exc}")
        if here and not bots_leave:  # the bots stay in this process's cgroup: a child of it counts all
            mine = os.path.join(here, f"botwars-bench-{self.pid}")
            try:
                self._join(mine, os.path.join(mine, "cpu.stat"), os.path.join(here, "cgroup.procs"))
                self.kind = "cgroup v2"
                self.how = f"cgroup v2 cpu.stat of {mine} (this process and every process it starts)"
                return True
            except OSError as exc:
                why.append(f"cgroup v2 {mine}: {exc.strerror or exc}")
        own1 = _own_v1_path(proc_cgroup)
        if v1:
            base = v1[0][0]
            mine = os.path.join(base, f"botwars-bench-{self.pid}")
            try:
                self._join(mine, os.path.join(mine, "cpuacct.usage"),
                           os.path.join(base, (own1 or "/").lstrip("/"), "cgroup.procs"))
                self.kind = "cgroup v1"
                self.how = f"cgroup v1 cpuacct {mine} (this process and every process it starts)"
                return True
            except OSError as exc:
                why.append(f"cgroup v1 {mine}: {exc.strerror or exc}")
        # no group of its own: the own cgroup's counter, read only (every process in it counts)
        if here and not bots_leave and self._take(os.path.join(here, "cpu.stat"), why):
            self.kind = "cgroup v2"
            self.how = (f"cgroup v2 cpu.stat of this process's own cgroup {here} (read only: every process in it "
                        "counts, the bots and anything else running there; run alone)")
            return True
        if v1 and own1 is not None and self._take(os.path.join(v1[0][0], own1.lstrip("/"), "cpuacct.usage"), why):
            self.kind = "cgroup v1"
            self.how = (f"cgroup v1 cpuacct.usage of this process's own cgroup {self._read} (read only: every "
                        "process in it counts, the bots and anything else running there; run alone)")
            return True
        if not v1 and not v2:
            why.append("no cgroup hierarchy is mounted")
        return False

    def _take(self, counter: str, why: list[str]) -> bool:
        """Read ``counter`` from now on if it can be read (no group is made or joined)."""
        try:
            self._counter(counter)
        except (OSError, ValueError) as exc:
            why.append(f"{counter}: {getattr(exc, 'strerror', None) or exc}")
            return False
        self._read = counter
        return True

    def _join(self, group: str, counter: str, back: str) -> None:
        made = not os.path.isdir(group)
        os.makedirs(group, exist_ok=True)
        try:
            with open(os.path.join(group, "cgroup.procs"), "w") as f:
                f.write(str(self.pid))
            self._counter(counter)  # readable, or OSError
        except (OSError, ValueError) as exc:
            if made:
                try:
                    os.rmdir(group)
                except OSError:
                    pass
            raise OSError(getattr(exc, "errno", None), getattr(exc, "strerror", None) or str(exc)) from None
        self._read, self._mine, self._back = counter, group, back

    def _counter(self, path: str) -> float:
        with open(path, encoding="ascii") as f:
            text = f.read()
        if path.endswith("cpu.stat"):
            for line in text.splitlines():
                key, _, value = line.partition(" ")
                if key == "usage_usec":
                    return int(value) / 1e6
            raise ValueError(f"{path} has no usage_usec line")
        return int(text.strip()) / 1e9

    def seconds(self) -> float:
        """CPU seconds used so far by everything this account counts (a counter: take differences)."""
        if self._read:
            return self._counter(self._read)
        me = resource.getrusage(resource.RUSAGE_SELF)
        ch = resource.getrusage(resource.RUSAGE_CHILDREN)
        return me.ru_utime + me.ru_stime + ch.ru_utime + ch.ru_stime

    def close(self) -> None:
        """Move this process back to where it was and remove its group (once it is empty)."""
        if not self._mine:
            return
        try:
            with open(self._back, "w") as f:
                f.write(str(self.pid))
            os.rmdir(self._mine)
        except OSError:
            pass
        self._mine = ""
