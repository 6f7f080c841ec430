"""Starting untrusted bot programs: limits, isolation and clean shutdown.

Every bot program (``cmd:``, Python-file and ``rgkit:`` bots, ``botwars-io:`` bots) runs as a
separate process, so it never shares memory with the engine or with the other seat's bot and
cannot change engine settings or another bot's state. On top of that, where the operating
system allows it, :func:`spawn` applies:

- a memory limit: ``RLIMIT_AS`` (address space) of ``memory_limit_mib`` MiB, and no core files;
- no network: the process starts in fresh, empty user + network namespaces (Linux
  ``unshare(CLONE_NEWUSER | CLONE_NEWNET)``), so it has only a loopback device that is down.
  Where namespaces are unavailable (not Linux, or disabled by the administrator) the process
  runs with the network of the engine; :func:`network_isolation_available` tells which.
  Set the environment variable ``BOTWARS_BOT_NETWORK=1`` to let bots use the network;
- its own process group (session), so a timeout kills the bot and everything it started;
- on Linux, death with the engine (``PR_SET_PDEATHSIG``), so no bot outlives a killed match.

None of this is a security boundary against a determined attacker on the same machine (the
bot still runs as the engine's user and can read what that user can read); it stops accidents
and casual cheating, which is what a local arena needs. Run untrusted uploads in a container.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
from typing import Any, Callable

CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000

_isolation_cache: bool | None = None


def _unshare_net() -> bool:
    """In a freshly forked child: enter new user + network namespaces; True on success."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        uid, gid = os.getuid(), os.getgid()
        if libc.unshare(CLONE_NEWUSER | CLONE_NEWNET) == 0:
            # keep the same uid/gid inside the namespace (files stay readable as before)
            for path, text in (("/proc/self/setgroups", "deny"), ("/proc/self/uid_map", f"{uid} {uid} 1"),
                               ("/proc/self/gid_map", f"{gid} {gid} 1")):
                try:
                    with open(path, "w") as f:
                        f.write(text)
                except OSError:
                    pass
            return True
        return libc.unshare(CLONE_NEWNET) == 0  # root without user namespaces
    except Exception:
        return False


def make_preexec(memory_limit_mib: int | None, network: bool) -> Callable[[], None]:
    """The ``preexec_fn`` applying the memory limit and network isolation (never raises)."""

    def preexec() -> None:
        try:
            import resource
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            if memory_limit_mib:
                lim = int(memory_limit_mib) * 1024 * 1024
                soft, hard = resource.getrlimit(resource.RLIMIT_AS)
                if hard != resource.RLIM_INFINITY:
                    lim = min(lim, hard)
                resource.setrlimit(resource.RLIMIT_AS, (lim, hard))
        except Exception:
            pass
        try:  # Linux: the bot dies with the engine (PR_SET_PDEATHSIG = 1, SIGKILL)
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)
        except Exception:
            pass
        if not network:
            _unshare_net()

    return preexec


def network_allowed() -> bool:
    """True if ``BOTWARS_BOT_NETWORK=1`` lets bots use the network."""
    return os.environ.get("BOTWARS_BOT_NETWORK", "") == "1"


def network_isolation_available() -> bool:
    """True if bot processes can be started without network access on this machine."""
    global _isolation_cache
    if _isolation_cache is None:
        if not hasattr(os, "fork") or not os.path.exists("/proc/self/ns/net"):
            _isolation_cache = False
        else:
            try:
                p = subprocess.run(["/bin/sh", "-c", "exit 0"], preexec_fn=lambda: os._exit(0 if _unshare_net() else 3),
                                   timeout=10)
                _isolation_cache = p.returncode == 0
            except Exception:
                _isolation_cache = False
    return _isolation_cache


def spawn(argv: list[str], *, memory_limit_mib: int | None = None, network: bool | None = None,
          env: dict[str, str] | None = None, stdin: Any = subprocess.PIPE, stdout: Any = subprocess.PIPE,
          stderr: Any = subprocess.PIPE) -> subprocess.Popen:
    """Start ``argv`` as a bot process in its own session with the limits above.

    ``network=None`` means "as ``BOTWARS_BOT_NETWORK`` says" (default: no network).
    Raises :class:`OSError` when the program cannot be started.
    """
    if network is None:
        network = network_allowed()
    posix = os.name == "posix"
    kwargs: dict[str, Any] = {}
    if posix:
        kwargs["preexec_fn"] = make_preexec(memory_limit_mib, network)
        kwargs["start_new_session"] = True
    return subprocess.Popen(argv, stdin=stdin, stdout=stdout, stderr=stderr, env=env, close_fds=True,
                            bufsize=0, **kwargs)


def kill(proc: subprocess.Popen) -> None:
    """Kill the bot process and its whole process group; reap it. Never raises."""
    if proc.poll() is None or os.name == "posix":
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (OSError, AttributeError):
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


def exit_failure(returncode: int | None, stderr_tail: str) -> tuple[str, str]:
    """``(code, detail)`` of :class:`~botwars.agents.AgentFailure` for a bot process that ended.

    ``memory`` when the process ran out of memory (a ``MemoryError`` or ``bad_alloc`` on
    stderr, or killed by SIGKILL/SIGSEGV/SIGABRT while out of memory), else ``crash``;
    the detail names the exit status or signal and the last stderr line.
    """
    last = ""
    for line in reversed(stderr_tail.splitlines()):
        if line.strip():
            last = line.strip()[:300]
            break
    if returncode is None:
        status = "closed its output"
    elif returncode < 0:
        try:
            status = f"killed by {signal.Signals(-returncode).name}"
        except ValueError:
            status = f"killed by signal {-returncode}"
    else:
        status = f"exit status {returncode}"
    lowered = stderr_tail.lower()
    code = "memory" if ("memoryerror" in lowered or "bad_alloc" in lowered or "out of memory" in lowered
                        or "cannot allocate memory" in lowered) else "crash"
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
             env: dict[str, str] | None = None) -> RunResult:
    """Start ``argv`` sandboxed, write ``data`` to its stdin, close it, and wait for it to exit.

    The process and its process group are killed when it is still running ``deadline_s``
    seconds after the start (``timed_out``). stdout beyond ``max_stdout`` bytes is read and
    dropped, so a program printing without end cannot exhaust the engine's memory.
    Raises :class:`OSError` when the program cannot be started.
    """
    import selectors
    import time

    t0 = time.monotonic()
    end = None if deadline_s is None else t0 + deadline_s
    proc = spawn(argv, memory_limit_mib=memory_limit_mib, network=network, env=env)
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
        kill(proc)  # reap anything left in its process group
        return RunResult(rc, bytes(out), overflow, err.decode("utf-8", "replace"), False)
    finally:
        sel.close()
