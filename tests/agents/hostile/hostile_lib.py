"""The attacks of the hostile-bot suite. This file's text is copied into every generated bot.

A generated bot defines ``P`` (a dict of parameters: the attack name, the engine's PID, the
paths and ports to try, the fake secret) before this text, then calls :func:`attack` from
its decision code. An attack that finds it has broken out raises ``RuntimeError("ESCAPED:
...")``; otherwise it misbehaves (loops, allocates, floods, ...) or raises ``RuntimeError(
"contained: ...")``, so that every decision is a recorded bot error. What the bot cannot see
itself (leftover processes, files written on the host, datagrams received) the test checks
from outside.
"""

import os
import signal
import socket
import stat
import sys
import time


def _escaped(what):
    raise RuntimeError("ESCAPED: " + what)


def _contained(what):
    raise RuntimeError("contained: " + what)


def _out_fds():
    """fd 1 and every other pipe this process may write to (a Python host keeps the protocol
    pipe on a duplicate descriptor)."""
    fds = [1]
    try:
        names = os.listdir("/proc/self/fd")
    except OSError:
        names = [str(i) for i in range(3, 64)]
    for name in names:
        fd = int(name)
        if fd in (0, 1, 2):
            continue
        try:
            if stat.S_ISFIFO(os.fstat(fd).st_mode):
                fds.append(fd)
        except OSError:
            pass
    return fds


def a_infinite_loop():
    while True:
        pass


def a_sleep_past_limit():
    time.sleep(60)
    _escaped("slept 60 s and was not stopped")


def a_memory_bomb():
    hoard = []
    while True:
        hoard.append(bytearray(32 << 20))
        if len(hoard) * 32 > 4096:
            _escaped(f"allocated {len(hoard) * 32} MiB")


def a_fork_bomb():
    made = 0
    for _ in range(P["fork_tries"]):
        try:
            pid = os.fork()
        except OSError:
            break
        if pid == 0:
            time.sleep(300)
            os._exit(0)
        made += 1
    if made >= P["fork_tries"]:
        _escaped(f"forked {made} processes")
    _contained(f"fork refused after {made} processes")


def a_daemon():
    pid = os.fork()
    if pid == 0:
        os.setsid()
        if os.fork() == 0:
            for fd in range(0, 256):
                try:
                    os.close(fd)
                except OSError:
                    pass
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            signal.signal(signal.SIGHUP, signal.SIG_IGN)
            time.sleep(300)
            os._exit(0)
        os._exit(0)
    os.waitpid(pid, 0)
    _contained("started a setsid daemon (the test checks it is gone after the match)")


def a_signals():
    engine = P["engine_pid"]
    sent = []
    targets = {}
    ppid = os.getppid()
    targets[ppid] = "parent"
    targets[engine] = "engine"
    try:  # the engine's other children: the opponent's bot (only visible without a PID namespace)
        with open(f"/proc/{engine}/task/{engine}/children") as f:
            for k in f.read().split():
                if int(k) != os.getpid():
                    targets[int(k)] = "engine child"
    except OSError:
        pass
    for pid, who in sorted(targets.items()):
        if pid == os.getpid() or pid <= 0:
            continue
        sigs = [signal.SIGTERM]
        if who != "engine" and pid != engine:
            sigs = [signal.SIGSTOP, signal.SIGTERM]  # never freeze the test runner itself
        for sig in sigs:
            try:
                os.kill(pid, sig)
                sent.append(f"{sig.name}->{who}:{pid}")
            except OSError:
                pass
    _contained("signals sent: " + (", ".join(sent) or "none"))


def _read(path, n=1 << 20):
    with open(path, "rb") as f:
        return f.read(n)


def a_read_host_files():
    leaks = []
    for path in P["hidden_files"]:
        try:
            _read(path, 4096)
            leaks.append(path)
        except OSError:
            pass
    secret = P["secret"].encode()
    paths = ["/proc/self/environ", "/proc/1/environ", "/proc/1/cmdline", f"/proc/{P['engine_pid']}/environ"]
    try:
        paths += [f"/proc/{p}/environ" for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        pass
    for path in paths:
        try:
            if secret in _read(path):
                leaks.append(path)
        except OSError:
            pass
    try:
        with open(f"/proc/{P['engine_pid']}/mem", "rb") as f:
            f.seek(0x400000)
            f.read(16)
            leaks.append("engine memory")
    except (OSError, ValueError, OverflowError):
        pass
    if leaks:
        _escaped("read " + ", ".join(sorted(set(leaks))))
    _contained(f"{len(P['hidden_files'])} host files and the engine's /proc hidden")


def a_read_environment():
    bad = sorted(k for k, v in os.environ.items() if P["secret"] in v or k in P["secret_names"])
    if bad:
        _escaped("environment has " + ", ".join(bad))
    _contained("environment: " + ", ".join(sorted(os.environ)))


def a_write_outside_tmp():
    wrote = []
    for path in P["write_targets"]:
        try:
            with open(path, "a") as f:
                f.write("pwned\n")
            wrote.append(path)
        except OSError:
            pass
    # what lands in its own /tmp is fine; the test checks the host's files
    _contained(f"write attempts done ({len(wrote)} opened inside the sandbox)")


def a_sockets():
    got = []
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(0.5)
    try:
        s.connect(("127.0.0.1", P["tcp_port"]))
        s.sendall(b"pwned")
        got.append("tcp")
    except OSError:
        pass
    finally:
        s.close()
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        u.sendto(b"pwned", ("127.0.0.1", P["udp_port"]))
    except OSError:
        pass
    finally:
        u.close()
    for addr in (P["unix_path"], "\0" + P["abstract_name"]):
        x = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        x.settimeout(0.5)
        try:
            x.connect(addr)
            x.sendall(b"pwned")
            got.append("unix " + addr.replace("\0", "@"))
        except OSError:
            pass
        finally:
            x.close()
    if got:
        _escaped("connected: " + ", ".join(got))
    _contained("no connection")


def a_huge_output():
    chunk = b"x" * (1 << 20)
    for fd in _out_fds():
        for _ in range(P["huge_mib"]):
            try:
                os.write(fd, chunk)
            except OSError:
                break
    return "flooded its outputs"  # a normal end: the flood itself must be the recorded error


def a_invalid_utf8():
    for fd in _out_fds():
        try:
            os.write(fd, b"\xff\xfe\xc3\x28 not utf-8\n")
        except OSError:
            pass
    return "garbage sent"


def a_close_stdout():
    for fd in _out_fds():
        try:
            os.close(fd)
        except OSError:
            pass
    sys.stdout = open(os.devnull, "w")
    time.sleep(0.2)
    _contained("closed its outputs")


def a_mutate_settings():
    changed = []
    try:
        import rg
        rg.settings.max_turns = 1
        rg.settings.attack_range = (100, 100)
        rg.settings["spawn_every"] = 1
        changed.append("rg.settings")
    except Exception:
        pass
    try:
        import botwars.games.arena.rules as rules
        rules.PARAMS = ()
        changed.append("botwars.games.arena.rules.PARAMS")
    except Exception:
        pass
    for path in P["package_files"]:
        try:
            with open(path, "a") as f:
                f.write("\nraise SystemExit('pwned')\n")
            _escaped("modified " + path)
        except OSError:
            pass
    os.environ["BOTWARS_CONFIG"] = '{"max_turns": 1}'
    _contained("changed only its own copies: " + ", ".join(changed))


ATTACKS = {name[2:]: fn for name, fn in dict(globals()).items() if name.startswith("a_")}


def attack():
    """Run the attack named ``P["attack"]``."""
    return ATTACKS[P["attack"]]()
