"""Running untrusted bot programs: bubblewrap, seccomp, rlimits, cgroups, and the isolation level.

Every bot program (``cmd:``, Python-file and ``rgkit:`` bots through their hosts, ``botwars-io:``
bots) is started by :func:`spawn` (or :func:`run_once`) and never shares memory, environment or a
PID namespace with the engine. The layers, each used where this machine has it
(:func:`probe` tells which; ``botwars sandbox check`` prints it; ``docs/sandbox.md``):

- **rlimits** (always, on POSIX): address space ``memory_mib`` MiB, CPU ``cpu_s`` seconds, files
  written at most ``file_mib`` MiB, ``open_files`` descriptors, no core files; process count
  ``processes`` (``RLIMIT_NPROC``: only effective when the engine is not root, and then it
  counts all processes of the engine's user);
- **cgroup** (when a ``pids`` cgroup hierarchy is writable, e.g. the engine is root): every bot
  gets its own cgroup with ``pids.max = processes``, so a fork bomb stops at that count and
  every process it made is found and killed at the end;
- **bubblewrap** (``bwrap``, installed by ``scripts/ensure-bubblewrap.sh``): new user, PID,
  network, IPC, UTS and mount namespaces (``--disable-userns``: none further), ``--new-session``,
  ``--die-with-parent``, ``--clearenv`` plus an allow-list (:data:`ENV_NAMES`), a read-only view
  of only ``/usr`` (and the ``/bin``, ``/lib`` links), the Python install, the ``botwars``
  package, the bot's own files and a few harmless ``/etc`` files; a private ``/proc`` and
  ``/dev``; a private writable ``/tmp`` of ``tmp_mib`` MiB (also ``HOME``); everything else
  read-only;
- **seccomp** (``pyseccomp`` over libseccomp, loaded by bwrap just before the bot starts): the
  system calls in :data:`DENIED_SYSCALLS` fail with ``EPERM``;
- **Landlock** (kernel ABI >= 1, the ``landlock`` package): inside the sandbox, bwrap runs
  :mod:`botwars.agents.landlock_exec`, which restricts itself and then ``exec``s the bot: read
  and execute only the read-only binds, read ``/proc``, use ``/dev``'s devices, anything in
  ``/tmp``; TCP bind/connect denied (ABI >= 4, unless the network is allowed); signals and
  abstract sockets scoped to the bot (ABI >= 6). Not required by any level (defence in depth).

The bot dies with its match: :func:`kill` kills bwrap's process group, which kills the PID
namespace and so every process the bot started (a ``setsid`` daemon included), and then every
process left in its cgroup. A kept host (:mod:`botwars.agents.hostpool`) lives on, but
:func:`sweep` kills every other process of its sandbox when its match ends. ``PR_SET_PDEATHSIG`` and ``--die-with-parent`` kill it when the
engine dies.

Isolation levels, weakest first (:data:`LEVELS`): ``none`` (no limits can be set), ``process``
(rlimits, own session, clean environment; the bot sees the engine's files and network),
``namespaces`` (bubblewrap works), ``full`` (namespaces + seccomp + a per-bot process limit).
:func:`require_level` refuses to go on below a minimum (``BOTWARS_SANDBOX_MIN``).
``BOTWARS_BOT_NETWORK=1`` gives bots the engine's network (for local experiments only).
"""

from __future__ import annotations

import ctypes
import errno
import itertools
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from botwars.engine.codes import FailureCode

LEVELS = ("none", "process", "namespaces", "full")

#: environment variables a bot may receive (everything else of the engine's is dropped)
ENV_NAMES = frozenset({"BOTWARS_GAME", "BOTWARS_SEAT", "BOTWARS_SEED", "BOTWARS_CONFIG", "BOTWARS_CONFIG_FILE",
                       "BOTWARS_HOST_REUSE",
                       "PYTHONPATH"})
#: what every bot gets besides the names above
BASE_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8",
            "PYTHONDONTWRITEBYTECODE": "1"}

#: system calls a bot never needs; denied with EPERM by the seccomp layer
DENIED_SYSCALLS = (
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
    "mount", "umount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen", "fsconfig",
    "fsmount", "fspick", "mount_setattr",
    "unshare", "setns",
    "kexec_load", "kexec_file_load", "reboot", "init_module", "finit_module", "delete_module",
    "bpf", "perf_event_open", "userfaultfd", "io_uring_setup", "io_uring_enter", "io_uring_register",
    "keyctl", "add_key", "request_key",
    "swapon", "swapoff", "acct", "quotactl", "quotactl_fd", "syslog", "vhangup", "lookup_dcookie",
    "settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "sethostname", "setdomainname",
    "iopl", "ioperm", "open_by_handle_at", "name_to_handle_at", "fanotify_init", "nfsservctl", "uselib",
    "personality",
)

_ETC_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime", "/etc/alternatives",
              "/etc/ssl/certs", "/etc/mime.types")
_TOP_LINKS = ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")

PR_SET_PDEATHSIG = 1
#: the launcher that applies Landlock inside the sandbox (:mod:`botwars.agents.landlock_exec`)
_LANDLOCK_EXEC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "landlock_exec.py")


class SandboxUnavailable(RuntimeError):
    """The isolation level on this machine is below the required minimum (message says why)."""


@dataclass(frozen=True)
class Limits:
    """Resource limits of one bot sandbox.

    ``memory_mib``: address space (MiB, ``None`` = unlimited); ``cpu_s``: CPU seconds per
    process; ``processes``: processes and threads at once; ``file_mib``: the largest file it may
    write (MiB); ``open_files``: open descriptors; ``tmp_mib``: size of its private ``/tmp``.
    """

    memory_mib: int | None = 1024
    cpu_s: int = 600
    processes: int = 64
    file_mib: int = 64
    open_files: int = 256
    tmp_mib: int = 64


@dataclass
class Layer:
    """One isolation layer: ``name``, whether it is ``active`` here, ``detail`` (why / how),
    and what it ``blocks``."""

    name: str
    active: bool
    detail: str
    blocks: str


@dataclass
class Report:
    """What :func:`probe` found: the ``layers`` and the resulting ``level`` (one of :data:`LEVELS`).

    ``bwrap`` is the bubblewrap path when bubblewrap works here, ``seccomp`` the compiled BPF
    filter when seccomp works, ``cgroup`` the writable pids hierarchy (or ``None``), ``landlock``
    whether every bot is started through the Landlock launcher (kernel ABI ``landlock_abi``).
    """

    layers: list[Layer]
    level: str
    bwrap: str | None = None
    seccomp: bytes | None = None
    cgroup: str | None = None
    landlock_abi: int = 0
    landlock: bool = False
    reasons: list[str] = field(default_factory=list)

    def layer(self, name: str) -> Layer:
        return next(layer for layer in self.layers if layer.name == name)

    def text(self) -> str:
        """The human-readable report ``botwars sandbox check`` prints."""
        lines = ["botwars bot sandbox on this machine:"]
        for layer in self.layers:
            lines.append(f"  [{'x' if layer.active else ' '}] {layer.name:<16} {layer.detail}")
            lines.append(f"      {'blocks' if layer.active else 'would block'}: {layer.blocks}")
        lines.append(f"isolation level: {self.level}  (levels: {' < '.join(LEVELS)})")
        for r in self.reasons:
            lines.append(f"  not higher because: {r}")
        return "\n".join(lines)


_probe_lock = threading.Lock()
_probe_cache: Report | None = None
_counter = itertools.count(1)


# ---- probing ---------------------------------------------------------------------------------
def find_bwrap() -> str | None:
    """The path of the ``bwrap`` program, or ``None`` (``BOTWARS_BWRAP`` overrides the lookup)."""
    env = os.environ.get("BOTWARS_BWRAP")
    if env:
        return env if os.access(env, os.X_OK) else None
    return shutil.which("bwrap") or (shutil.which("bwrap", path="/usr/bin:/usr/local/bin"))


def seccomp_filter() -> bytes:
    """The compiled seccomp BPF program denying :data:`DENIED_SYSCALLS` (EPERM), for this CPU.

    Raises :class:`ImportError` without ``pyseccomp``, :class:`OSError` without libseccomp.
    Names this architecture does not have are left out.
    """
    import tempfile

    import pyseccomp as sc

    filt = sc.SyscallFilter(sc.ALLOW)
    for name in DENIED_SYSCALLS:
        try:
            filt.add_rule(sc.ERRNO(errno.EPERM), name)
        except (OSError, ValueError, RuntimeError):
            continue  # no such system call on this architecture
    with tempfile.TemporaryFile() as f:
        filt.export_bpf(f)
        f.seek(0)
        return f.read()


def _pids_hierarchy() -> str | None:
    """A writable cgroup folder (``.../botwars``) where a ``pids`` controller works, or ``None``."""
    if sys.platform != "linux":
        return None
    try:
        with open("/proc/self/mounts", encoding="utf-8") as f:
            mounts = [line.split() for line in f]
    except OSError:
        return None
    candidates = []
    for m in mounts:
        if len(m) < 4:
            continue
        if m[2] == "cgroup" and "pids" in m[3].split(","):
            candidates.append((m[1], 1))
        elif m[2] == "cgroup2":
            try:
                with open(os.path.join(m[1], "cgroup.controllers"), encoding="utf-8") as f:
                    if "pids" in f.read().split():
                        candidates.append((m[1], 2))
            except OSError:
                pass
    for root, version in candidates:
        base = os.path.join(root, "botwars")
        try:
            if version == 2:
                _write(os.path.join(root, "cgroup.subtree_control"), "+pids")
            os.makedirs(base, exist_ok=True)
            if version == 2:
                _write(os.path.join(base, "cgroup.subtree_control"), "+pids")
            _sweep(base)
            probe_dir = os.path.join(base, f"probe-{os.getpid()}-{next(_counter)}")
            os.mkdir(probe_dir)
            try:
                _write(os.path.join(probe_dir, "pids.max"), "1")
            finally:
                os.rmdir(probe_dir)
            return base
        except OSError:
            continue
    return None


def _sweep(base: str) -> None:
    """Remove the empty bot cgroups (``PID-N``) left by engines that died without cleaning up."""
    try:
        names = os.listdir(base)
    except OSError:
        return
    for name in names:
        owner = name.split("-")[-2] if name.startswith("probe-") else name.split("-")[0]
        if not owner.isdigit() or int(owner) == os.getpid():
            continue
        try:
            os.kill(int(owner), 0)
            continue  # its engine is alive: it is in use
        except ProcessLookupError:
            pass
        except OSError:
            continue
        try:  # only an empty one: an engine in another PID namespace may look dead from here
            os.rmdir(os.path.join(base, name))
        except OSError:
            pass


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def landlock_abi() -> int:
    """The kernel's Landlock ABI version (0 when it has none)."""
    if sys.platform != "linux":
        return 0
    try:
        from landlock import landlock_abi_version
        return int(landlock_abi_version())
    except Exception:
        return 0


def _userns_available() -> tuple[bool, str]:
    if sys.platform != "linux":
        return False, "not Linux"
    try:
        with open("/proc/sys/user/max_user_namespaces", encoding="utf-8") as f:
            n = int(f.read().strip() or 0)
        if n == 0:
            return False, "user.max_user_namespaces is 0"
    except (OSError, ValueError):
        pass
    try:
        with open("/proc/sys/kernel/unprivileged_userns_clone", encoding="utf-8") as f:
            if f.read().strip() == "0" and os.geteuid() != 0:
                return False, "kernel.unprivileged_userns_clone is 0"
    except OSError:
        pass
    return True, "the kernel allows new user namespaces"


def probe(refresh: bool = False) -> Report:
    """Find which layers work on this machine (cached; ``refresh`` probes again). Never raises.

    bubblewrap counts as working when it can start a trivial program in the namespaces
    :func:`spawn` uses, seccomp when the filter compiles and bwrap can load it.
    """
    global _probe_cache
    with _probe_lock:
        if _probe_cache is not None and not refresh:
            return _probe_cache
        _probe_cache = _probe()
        return _probe_cache


def _probe() -> Report:
    posix = os.name == "posix"
    layers: list[Layer] = []
    reasons: list[str] = []
    layers.append(Layer("process", posix, "own process and session, killed as a group; clean environment"
                        if posix else "not a POSIX system: no limits can be set",
                        "sharing memory with the engine or the other bot; reading the engine's environment "
                        "(secrets); outliving a timeout"))
    layers.append(Layer("rlimits", posix, "address space, CPU seconds, file size, open files, no core files",
                        "memory bombs, endless CPU loops after the match, huge files, descriptor exhaustion"))
    cg = _pids_hierarchy() if posix else None
    nproc_ok = posix and os.geteuid() != 0
    layers.append(Layer("process-limit", bool(cg) or nproc_ok,
                        f"one pids cgroup per bot under {cg}" if cg else
                        ("RLIMIT_NPROC (counts all processes of the engine's user)" if nproc_ok else
                         "none: no writable pids cgroup and RLIMIT_NPROC does not bind root"),
                        "fork bombs"))
    ok, why = _userns_available()
    layers.append(Layer("user-namespaces", ok, why, "(needed by bubblewrap)"))
    bwrap = find_bwrap() if posix else None
    bw_ok = False
    bw_detail = "bwrap not found (run scripts/ensure-bubblewrap.sh)"
    if bwrap and ok:
        bw_ok, bw_detail = _try_bwrap(bwrap, None)
    elif bwrap:
        bw_detail = f"{bwrap} found, but user namespaces are unavailable"
    layers.append(Layer("bubblewrap", bw_ok, bw_detail,
                        "seeing or signalling the engine and other bots (PID namespace), the network, "
                        "Unix sockets and IPC of the host, every file but the runtime and its own, writing "
                        "anywhere but its private /tmp, daemons outliving the match"))
    sec: bytes | None = None
    sec_detail = ""
    try:
        sec = seccomp_filter()
    except Exception as exc:  # no pyseccomp or libseccomp
        sec_detail = f"cannot build the filter: {type(exc).__name__}: {exc}"
    sec_ok = False
    if sec is not None and bw_ok and bwrap:
        sec_ok, sec_detail = _try_bwrap(bwrap, sec)
        if sec_ok:
            sec_detail = f"{len(DENIED_SYSCALLS)} system calls denied (pyseccomp/libseccomp, loaded by bwrap)"
    elif sec is not None:
        sec_detail = "filter built, but it is loaded by bubblewrap, which does not work here"
    layers.append(Layer("seccomp", sec_ok, sec_detail,
                        "ptrace, mount, kexec, bpf, perf, io_uring, keyrings, module loading, namespace changes, "
                        "clock and host name changes"))
    abi = landlock_abi() if posix else 0
    ll_ok = False
    if not abi:
        ll_detail = "not available in this kernel (or the 'landlock' package is missing)"
    elif not (bw_ok and bwrap):
        ll_detail = f"kernel ABI {abi}, but it is applied inside bubblewrap, which does not work here"
    else:
        ll_ok, ll_detail = _try_bwrap(bwrap, sec if sec_ok else None, landlock=True)
        if ll_ok:
            ll_detail = (f"kernel ABI {abi}, applied in the sandbox before the bot starts"
                         + ("; TCP bind/connect denied" if abi >= 4 else "")
                         + ("; signals and abstract Unix sockets scoped to the bot" if abi >= 6 else ""))
    layers.append(Layer("landlock", ll_ok, ll_detail,
                        "opening any file but the read-only runtime and the bot's own files (read/execute), "
                        "/proc (read) and /dev (devices); creating, writing or removing anything outside its "
                        "private /tmp (also in the writable /proc); TCP bind and connect (ABI 4+), even on the "
                        "sandbox's own loopback; signals to processes outside the bot (ABI 6+)"))
    if not posix:
        level = "none"
    elif not bw_ok:
        level = "process"
        reasons.append(f"bubblewrap: {bw_detail}")
    elif not sec_ok or not (cg or nproc_ok):
        level = "namespaces"
        if not sec_ok:
            reasons.append(f"seccomp: {sec_detail}")
        if not (cg or nproc_ok):
            reasons.append("process limit: no writable pids cgroup, and RLIMIT_NPROC does not bind root")
    else:
        level = "full"
    return Report(layers, level, bwrap if bw_ok else None, sec if sec_ok else None, cg, abi, ll_ok, reasons)


def _try_bwrap(bwrap: str, seccomp: bytes | None, landlock: bool = False) -> tuple[bool, str]:
    try:
        proc = _start([sys.executable, "-S", "-c", "pass"], Limits(memory_mib=None), network=False, env={},
                      paths=(), bwrap=bwrap, seccomp=seccomp, cgroup=None, landlock=landlock,
                      stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            _, err = proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            kill(proc)
            return False, f"{bwrap} did not start a program within 20 s"
        if proc.returncode != 0:
            last = (err or b"").decode("utf-8", "replace").strip().splitlines()[-1:] or [f"exit {proc.returncode}"]
            return False, f"{bwrap} fails here: {last[0][:200]}"
        return True, f"{bwrap} (user, PID, network, IPC, UTS and mount namespaces)"
    except OSError as exc:
        return False, f"cannot run {bwrap}: {exc.strerror or exc}"


def isolation_level() -> str:
    """The isolation level bots get on this machine (one of :data:`LEVELS`)."""
    return probe().level


def require_level(minimum: str | None = None) -> Report:
    """Check that bots are isolated at least at ``minimum`` before running untrusted code.

    ``minimum`` defaults to the environment variable ``BOTWARS_SANDBOX_MIN``, else ``full``.
    Returns the :class:`Report`. Raises :class:`SandboxUnavailable` naming the level reached,
    the one required and why it is lower; :class:`ValueError` for an unknown level name.
    """
    if minimum is None:
        minimum = os.environ.get("BOTWARS_SANDBOX_MIN", "").strip() or "full"
    if minimum not in LEVELS:
        raise ValueError(f"unknown sandbox level {minimum!r} (known: {', '.join(LEVELS)})")
    report = probe()
    if LEVELS.index(report.level) < LEVELS.index(minimum):
        why = "; ".join(report.reasons) or "no isolation layer works here"
        raise SandboxUnavailable(f"refusing untrusted bot code: this machine isolates bots at level "
                                 f"'{report.level}', below the required '{minimum}' ({why}); "
                                 f"run 'botwars sandbox check' for details")
    return report


# ---- starting ------------------------------------------------------------------------------------
def network_allowed() -> bool:
    """True if ``BOTWARS_BOT_NETWORK=1`` lets bots use the network."""
    return os.environ.get("BOTWARS_BOT_NETWORK", "") == "1"


def network_isolation_available() -> bool:
    """True if bot processes are started without network access on this machine."""
    return probe().bwrap is not None


def bot_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The whole environment of a bot: :data:`BASE_ENV` plus the names of ``extra`` that are
    in :data:`ENV_NAMES` (anything else is dropped, so no engine secret can pass)."""
    env = dict(BASE_ENV)
    for k, v in (extra or {}).items():
        if k in ENV_NAMES:
            env[k] = str(v)
    return env


def _bot_paths(argv: list[str]) -> tuple[list[str], list[str]]:
    """``argv`` with its existing relative paths made absolute, and the paths to show the bot."""
    out: list[str] = []
    paths: list[str] = []
    for i, a in enumerate(argv):
        if a and not a.startswith("-") and (os.sep in a or i > 0) and os.path.exists(a):
            p = os.path.abspath(a)
            out.append(p)
            if os.path.realpath(p) != "/":  # never the whole host
                paths.append(p)
        else:
            out.append(a)
    return out, paths


def _runtime_paths() -> list[str]:
    """The Python install(s) and the ``botwars`` package: what the hosts need, read-only."""
    import botwars
    paths = []
    for p in (sys.base_prefix, sys.prefix, sys.exec_prefix):
        p = os.path.realpath(p)
        if not p.startswith("/usr/") and p not in ("/usr", "/"):
            paths.append(p)
    exe = os.path.realpath(sys.executable)
    if not exe.startswith("/usr/"):
        paths.append(exe)
    paths.append(os.path.dirname(os.path.abspath(botwars.__file__)))
    ll = _landlock_dir()
    if ll:
        paths.append(os.path.join(ll, "landlock"))
    return paths


def _landlock_dir() -> str | None:
    """The folder holding the ``landlock`` package (put on the launcher's path), or ``None``."""
    try:
        import landlock
    except ImportError:
        return None
    return os.path.dirname(os.path.dirname(os.path.abspath(landlock.__file__)))


def _ro_binds(paths: Iterable[str]) -> tuple[list[str], list[str]]:
    """The host paths bubblewrap binds read-only at the same place: the system ones (``/usr``,
    the real ``/bin`` style folders, :data:`_ETC_FILES`) and, second, the runtime and ``paths``
    (bound after the private ``/tmp``, as they may lie in the host's ``/tmp``; nested ones dropped)."""
    system = ["/usr"]
    system += [top for top in _TOP_LINKS if not os.path.islink(top) and os.path.isdir(top)]
    system += [p for p in _ETC_FILES if os.path.exists(p)]
    own: list[str] = []
    seen: set[str] = set()
    for p in sorted(set(_runtime_paths()) | set(paths), key=len):
        if p in seen or any(p.startswith(s.rstrip("/") + "/") for s in seen if os.path.isdir(s)):
            continue  # already visible through a folder bound before
        seen.add(p)
        own.append(p)
    return system, own


def _landlock_argv(ro: list[str], network: bool) -> list[str]:
    """The launcher command that applies Landlock inside the sandbox and then runs the bot
    (:mod:`botwars.agents.landlock_exec`): read and execute ``ro``, read ``/proc``, use the
    devices in ``/dev``, everything in ``/tmp``, list folders; no TCP bind or connect unless ``network``."""
    # "/" (bubblewrap's own root: only the bound paths and the folders leading to them) may be
    # listed, as Python lists the folders on its path (e.g. PYTHONPATH=.../src, bound only at .../src/botwars)
    policy = {"list": ["/"], "ro": ro, "rw": ["/tmp"], "dev": ["/dev"], "proc": ["/proc"], "net": not network}
    return [os.path.realpath(sys.executable), "-I", "-S", _LANDLOCK_EXEC, _landlock_dir() or "",
            json.dumps(policy, separators=(",", ":")), "--"]


def _bwrap_argv(bwrap: str, argv: list[str], limits: Limits, network: bool, env: dict[str, str],
                paths: Iterable[str], seccomp_fd: int | None, landlock: bool = False) -> list[str]:
    cmd = [bwrap, "--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
           "--disable-userns", "--die-with-parent", "--new-session", "--hostname", "botwars"]
    if not network:
        cmd.append("--unshare-net")
    cmd.append("--clearenv")
    for k, v in sorted(env.items()):
        cmd += ["--setenv", k, v]
    for top in _TOP_LINKS:
        if os.path.islink(top):
            cmd += ["--symlink", os.readlink(top), top]
    system, own = _ro_binds(paths)
    for p in system:
        cmd += ["--ro-bind", p, p]
    cmd += ["--proc", "/proc", "--dev", "/dev", "--size", str(limits.tmp_mib * 1024 * 1024), "--tmpfs", "/tmp"]
    for p in own:
        cmd += ["--ro-bind", p, p]
    cmd += ["--remount-ro", "/dev", "--remount-ro", "/", "--chdir", "/tmp"]
    if seccomp_fd is not None:
        cmd += ["--seccomp", str(seccomp_fd)]
    launcher = _landlock_argv(system + own, network) if landlock else []
    return cmd + ["--"] + launcher + argv


def _rlimits(limits: Limits, cgroup_procs: str | None) -> Callable[[], None]:
    """The ``preexec_fn``: join the cgroup, set the rlimits and the parent-death signal.

    Runs in the forked child, so it only uses async-safe-enough calls and never raises.
    """
    mib = 1024 * 1024
    nproc = None
    if cgroup_procs is None and os.geteuid() != 0:
        nproc = _user_process_count() + limits.processes

    def preexec() -> None:
        if cgroup_procs is not None:
            try:
                fd = os.open(cgroup_procs, os.O_WRONLY)
                os.write(fd, str(os.getpid()).encode())
                os.close(fd)
            except OSError:
                pass
        try:
            import resource
            wanted = [(resource.RLIMIT_CORE, 0), (resource.RLIMIT_CPU, limits.cpu_s),
                      (resource.RLIMIT_FSIZE, limits.file_mib * mib), (resource.RLIMIT_NOFILE, limits.open_files)]
            if limits.memory_mib:
                wanted.append((resource.RLIMIT_AS, int(limits.memory_mib) * mib))
            if nproc is not None:
                wanted.append((resource.RLIMIT_NPROC, nproc))
            for which, value in wanted:
                try:
                    soft, hard = resource.getrlimit(which)
                    if hard != resource.RLIM_INFINITY:
                        value = min(value, hard)
                    resource.setrlimit(which, (value, value))
                except (OSError, ValueError):
                    pass
        except Exception:
            pass
        try:  # Linux: the bot dies with the engine
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except Exception:
            pass

    return preexec


def _user_process_count() -> int:
    uid = os.geteuid()
    n = 0
    try:
        for name in os.listdir("/proc"):
            if name.isdigit():
                try:
                    if os.stat(f"/proc/{name}").st_uid == uid:
                        n += 1
                except OSError:
                    pass
    except OSError:
        return 0
    return n


class BotProcess(subprocess.Popen):
    """A :class:`subprocess.Popen` of a sandboxed bot; ``cgroup`` is its pids cgroup folder or
    ``None``; ``wrapped``: it is bubblewrap, which runs the program two levels down (bwrap, the
    PID namespace's init, the program)."""

    cgroup: str | None = None
    wrapped: bool = False


def _start(argv: list[str], limits: Limits, *, network: bool, env: dict[str, str], paths: Iterable[str],
           bwrap: str | None, seccomp: bytes | None, cgroup: str | None, stdin: Any, stdout: Any,
           stderr: Any, landlock: bool = False) -> BotProcess:
    cg_dir = None
    if cgroup is not None:
        cg_dir = os.path.join(cgroup, f"{os.getpid()}-{next(_counter)}")
        try:
            os.mkdir(cg_dir)
            _write(os.path.join(cg_dir, "pids.max"), str(limits.processes))
        except OSError:
            _remove_cgroup(cg_dir)
            cg_dir = None
    pass_fds: tuple[int, ...] = ()
    rfd = None
    try:
        if bwrap is not None:
            if seccomp is not None:
                rfd, wfd = os.pipe()
                try:
                    os.write(wfd, seccomp)  # a few hundred bytes: fits in the pipe buffer
                finally:
                    os.close(wfd)
                pass_fds = (rfd,)
            cmd = _bwrap_argv(bwrap, argv, limits, network, env, paths, rfd, landlock)
        else:
            cmd = argv
        proc = BotProcess(cmd, stdin=stdin, stdout=stdout, stderr=stderr, env=env, close_fds=True,
                          pass_fds=pass_fds, bufsize=0, start_new_session=True, cwd="/tmp" if bwrap is None else None,
                          preexec_fn=_rlimits(limits, os.path.join(cg_dir, "cgroup.procs") if cg_dir else None))
    except BaseException:
        if cg_dir:
            _remove_cgroup(cg_dir)
        raise
    finally:
        if rfd is not None:
            os.close(rfd)
    proc.cgroup = cg_dir
    proc.wrapped = bwrap is not None
    return proc


def spawn(argv: list[str], *, memory_limit_mib: int | None = None, network: bool | None = None,
          env: dict[str, str] | None = None, limits: Limits | None = None, paths: Iterable[str] = (),
          stdin: Any = subprocess.PIPE, stdout: Any = subprocess.PIPE, stderr: Any = subprocess.PIPE) -> BotProcess:
    """Start ``argv`` as a bot in the strongest sandbox this machine has (see the module docstring).

    ``env`` holds the bot's own variables (only :data:`ENV_NAMES` pass, on top of
    :data:`BASE_ENV`). ``paths`` are extra files or folders the bot may read (its own); paths in
    ``argv`` that exist are added, and relative ones made absolute. ``memory_limit_mib``
    overrides ``limits.memory_mib``. ``network=None`` follows ``BOTWARS_BOT_NETWORK``.
    The bot starts in ``/tmp`` (its private one under bubblewrap). Returns a
    :class:`BotProcess` (stop it with :func:`kill`). Raises :class:`OSError` when the program
    cannot be started (under bubblewrap a missing program is a quick exit with status 1 instead).
    """
    if network is None:
        network = network_allowed()
    limits = limits or Limits()
    if memory_limit_mib is not None:
        limits = Limits(memory_limit_mib, limits.cpu_s, limits.processes, limits.file_mib, limits.open_files,
                        limits.tmp_mib)
    report = probe()
    argv, own = _bot_paths(list(argv))
    if not argv:
        raise FileNotFoundError(errno.ENOENT, "empty command")
    if report.bwrap is None and os.name == "posix" and os.sep not in argv[0]:
        # without bubblewrap the program is looked up on the engine's PATH, as before
        argv[0] = shutil.which(argv[0]) or argv[0]
    elif report.bwrap is not None:
        # inside, only /usr and the bot's own files exist: say so now rather than as bwrap's exit 1
        found = os.path.exists(argv[0]) if os.sep in argv[0] else shutil.which(argv[0], path=BASE_ENV["PATH"])
        if not found:
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), argv[0])
    return _start(argv, limits, network=network, env=bot_env(env), paths=list(paths) + own, bwrap=report.bwrap,
                  seccomp=report.seccomp, cgroup=report.cgroup, stdin=stdin, stdout=stdout, stderr=stderr,
                  landlock=report.landlock)


def _remove_cgroup(path: str, wait_s: float = 1.0) -> bool:
    """Kill what is left in the cgroup ``path`` and remove it; True when it is gone."""
    end = time.monotonic() + wait_s
    while True:
        try:
            with open(os.path.join(path, "cgroup.procs"), encoding="utf-8") as f:
                pids = [int(x) for x in f.read().split()]
        except FileNotFoundError:
            return True
        except (OSError, ValueError):
            pids = []
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        try:
            os.rmdir(path)
            return True
        except FileNotFoundError:
            return True
        except OSError:
            if time.monotonic() >= end:
                return False
            time.sleep(0.01)


def kill(proc: subprocess.Popen) -> None:
    """Kill the bot, its process group, its PID namespace and its cgroup; reap it. Never raises."""
    if os.name == "posix":
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (OSError, AttributeError):
            pass
    try:
        proc.kill()
    except OSError:
        pass
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        try:
            if stream is not None:
                stream.close()
        except OSError:
            pass
    try:
        proc.wait(timeout=5)
    except Exception:
        pass
    cg = getattr(proc, "cgroup", None)
    if cg:
        _remove_cgroup(cg)
        proc.cgroup = None


def _stat(pid: int) -> tuple[str, int, int] | None:
    """``(state, parent pid, start time in clock ticks)`` of ``pid`` from ``/proc``, or ``None``."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            text = f.read().decode("ascii", "replace")
    except OSError:
        return None
    fields = text.rsplit(")", 1)[-1].split()  # after the command name, which may hold anything
    try:
        return fields[0], int(fields[1]), int(fields[19])
    except (IndexError, ValueError):
        return None


def _members(proc: subprocess.Popen) -> dict[int, tuple[str, int, int]]:
    """Every process of the bot's sandbox with its :func:`_stat`: the members of its cgroup,
    else (no cgroup here) ``proc`` and its descendants (within a PID namespace that is every
    process the bot started; without one, a daemon that left the tree is not found)."""
    cg = getattr(proc, "cgroup", None)
    pids: list[int] = []
    if cg:
        try:
            with open(os.path.join(cg, "cgroup.procs"), encoding="ascii") as f:
                pids = [int(x) for x in f.read().split()]
        except (OSError, ValueError):
            pids = []
    if not pids:
        table: dict[int, tuple[str, int, int]] = {}
        try:
            names = os.listdir("/proc")
        except OSError:
            return {}
        for name in names:
            if name.isdigit():
                st = _stat(int(name))
                if st is not None:
                    table[int(name)] = st
        found = {proc.pid}
        grew = True
        while grew:
            grew = False
            for pid, st in table.items():
                if pid not in found and st[1] in found:
                    found.add(pid)
                    grew = True
        return {pid: table[pid] for pid in found if pid in table}
    out = {}
    for pid in pids:
        st = _stat(pid)
        if st is not None:
            out[pid] = st
    return out


def _host_chain(proc: subprocess.Popen, members: dict[int, tuple[str, int, int]]) -> list[int]:
    """The kept host's own processes: ``proc`` and, under bubblewrap, the PID namespace's init
    (bwrap's only child) and the host program (init's oldest child: anything the bot started
    is younger). The program is the last."""
    chain = [proc.pid]
    if getattr(proc, "wrapped", False):
        for _ in range(2):
            kids = [(st[2], pid) for pid, st in members.items() if st[1] == chain[-1]]
            if not kids:
                break
            chain.append(min(kids)[1])
    return chain


def sweep(proc: subprocess.Popen, settle_s: float = 3.0, wait_s: float = 2.0) -> int:
    """Kill every process in a kept host's sandbox but the host itself (issue 25 item 5): what
    the bot started in the match that ended (a daemon, a fork bomb's children) dies with the
    match, while the host (:func:`_host_chain`) is kept for the next one.

    Waits up to ``settle_s`` seconds for the host to have no child left (the match's own child
    exits after confirming the end of its match), then kills (SIGKILL) every other live process
    of the sandbox (:func:`_members`: its cgroup, else its process tree), again and again until
    none is left or ``wait_s`` seconds have passed (a process forking meanwhile is caught in the
    next round; a pids cgroup bounds how many there can be). Returns how many processes it
    killed: a host that left anything behind is not to be kept. Never raises."""
    if os.name != "posix":
        return 0
    try:
        members = _members(proc)
        chain = _host_chain(proc, members)
        host = chain[-1]
        end = time.monotonic() + settle_s
        while time.monotonic() < end and any(st[1] == host and st[0] != "Z" and pid not in chain
                                             for pid, st in members.items()):
            time.sleep(0.01)
            members = _members(proc)
        killed: set[int] = set()
        end = time.monotonic() + wait_s
        while True:
            others = [pid for pid, st in members.items() if pid not in chain and st[0] != "Z"]
            if not others or time.monotonic() > end:
                break
            for pid in others:
                try:
                    os.kill(pid, signal.SIGKILL)
                    killed.add(pid)
                except OSError:
                    pass
            time.sleep(0.005)
            members = _members(proc)
        return len(killed)
    except Exception:  # never let the clean-up break the match's end
        return 1


_TRAILER = re.compile(r"Node\.js v\d[\w.]*\s*$|\s+at \S")


def exit_failure(returncode: int | None, stderr_tail: str) -> tuple[FailureCode, str]:
    """``(code, detail)`` of :class:`~botwars.agents.AgentFailure` for a bot process that ended.

    ``memory`` when the process ran out of memory (a ``MemoryError`` or ``bad_alloc`` on
    stderr, or killed by SIGKILL/SIGSEGV/SIGABRT while out of memory), else ``crash``;
    the detail names the exit status or signal and the last stderr line that is not a stack
    frame or node's version trailer (for node: the ``SyntaxError: ...`` line).
    """
    last = ""
    for line in reversed(stderr_tail.splitlines()):
        # skip what names no fault: node's trailing "Node.js v20.1.0" and stack frames ("at f (x.js:3:5)")
        if line.strip() and not _TRAILER.match(line):
            last = line.strip()[:300]
            break
    if returncode is None:
        status = "closed its output"
    elif returncode < 0:
        try:
            status = f"killed by {signal.Signals(-returncode).name}"
        except ValueError:
            status = f"killed by signal {-returncode}"
    elif returncode > 128 and returncode - 128 in (signal.SIGKILL, signal.SIGXCPU, signal.SIGSEGV, signal.SIGXFSZ):
        # bubblewrap's init reports a signal death as 128 + signal
        status = f"killed by {signal.Signals(returncode - 128).name}"
    else:
        status = f"exit status {returncode}"
    lowered = stderr_tail.lower()
    code = FailureCode.MEMORY if ("memoryerror" in lowered or "bad_alloc" in lowered or "out of memory" in lowered
                                  or "cannot allocate memory" in lowered) else FailureCode.CRASH
    return code, f"{status}: {last}" if last else status


class RunResult:
    """What :func:`run_once` saw: ``returncode`` (``None`` if killed at the deadline),
    ``stdout`` (at most ``max_stdout`` bytes), ``overflow`` (stdout was longer),
    ``stderr_tail`` (the last 8 KiB of stderr, decoded leniently) and ``timed_out``."""

    def __init__(self, returncode: int | None, stdout: bytes, overflow: bool, stderr_tail: str, timed_out: bool):
        self.returncode = returncode
        self.stdout = stdout
        self.overflow = overflow
        self.stderr_tail = stderr_tail
        self.timed_out = timed_out


def run_once(argv: list[str], data: bytes, deadline_s: float | None, *, max_stdout: int = 1 << 20,
             memory_limit_mib: int | None = None, network: bool | None = None,
             env: dict[str, str] | None = None, limits: Limits | None = None) -> RunResult:
    """Start ``argv`` sandboxed (:func:`spawn`), write ``data`` to its stdin, close it, wait for it to exit.

    The bot and everything it started are killed when it is still running ``deadline_s``
    seconds after the start (``timed_out``), and in any case when it has exited. stdout beyond
    ``max_stdout`` bytes is read and dropped, so a program printing without end cannot exhaust
    the engine's memory. Raises :class:`OSError` when the program cannot be started.
    """
    import selectors

    t0 = time.monotonic()
    end = None if deadline_s is None else t0 + deadline_s
    proc = spawn(argv, memory_limit_mib=memory_limit_mib, network=network, env=env, limits=limits)
    out = bytearray()
    err = bytearray()
    overflow = False
    pending = memoryview(data)
    sel = selectors.DefaultSelector()
    try:
        os.set_blocking(proc.stdin.fileno(), False)
        if pending:
            sel.register(proc.stdin, selectors.EVENT_WRITE, "in")
        else:
            proc.stdin.close()
        sel.register(proc.stdout, selectors.EVENT_READ, "out")
        sel.register(proc.stderr, selectors.EVENT_READ, "err")
        while True:
            left = None if end is None else end - time.monotonic()
            if left is not None and left <= 0:
                kill(proc)
                return RunResult(None, bytes(out), overflow, err.decode("utf-8", "replace"), True)
            if not sel.get_map():
                # both outputs closed: wait for the exit itself, within the deadline
                try:
                    rc = proc.wait(timeout=left)
                except subprocess.TimeoutExpired:
                    continue
                break
            for key, _ in sel.select(left):
                f = key.fileobj
                if key.data == "in":
                    try:
                        n = os.write(f.fileno(), pending)
                    except BlockingIOError:
                        n = 0
                    except OSError:
                        n = -1
                    if n < 0 or n == len(pending):
                        sel.unregister(f)
                        try:
                            f.close()
                        except OSError:
                            pass
                    else:
                        pending = pending[n:]
                    continue
                try:
                    chunk = os.read(f.fileno(), 65536)
                except OSError:
                    chunk = b""
                if not chunk:
                    sel.unregister(f)
                    continue
                if key.data == "out":
                    room = max_stdout - len(out)
                    if len(chunk) > room:
                        overflow = True
                    out += chunk[:max(0, room)]
                else:
                    err += chunk
                    if len(err) > 8192:
                        del err[:len(err) - 8192]
        kill(proc)  # everything it started dies with it
        return RunResult(rc, bytes(out), overflow, err.decode("utf-8", "replace"), False)
    finally:
        sel.close()
        if proc.poll() is None or getattr(proc, "cgroup", None):
            kill(proc)
