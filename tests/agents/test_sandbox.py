"""The bot sandbox (issue 12): layers, the isolation level, the environment allow-list, seccomp,
the PID namespace, rlimits, and ``botwars sandbox check`` through the real command line."""

import json
import os
import subprocess
import sys

import pytest

from botwars.agents import sandbox

from agent_helpers import ROOT

PY = sys.executable


def run_py(code, **kw):
    res = sandbox.run_once([PY, "-c", code], b"", 20, **kw)
    assert res.returncode == 0, res.stderr_tail
    return res.stdout.decode()


def botwars(*args, env_extra=None):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.join(ROOT, "src")
    env.update(env_extra or {})
    return subprocess.run([PY, "-m", "botwars.cli", *args], capture_output=True, text=True, env=env, timeout=120)


def test_bot_gets_only_the_allow_listed_environment(monkeypatch):
    monkeypatch.setenv("DATABASE_URL", "postgresql://u:hunter2@db/x")
    monkeypatch.setenv("SMTP_PASSWORD", "hunter2")
    out = run_py("import json, os; print(json.dumps(dict(os.environ)))",
                 env={"BOTWARS_SEAT": "p1", "SMTP_PASSWORD": "passed on purpose?"})
    env = json.loads(out)
    assert "hunter2" not in out and "passed on purpose" not in out
    assert env["BOTWARS_SEAT"] == "p1" and env["HOME"] == "/tmp"
    assert set(env) <= set(sandbox.BASE_ENV) | set(sandbox.ENV_NAMES) | {"PWD", "LC_CTYPE"}


def test_bot_has_its_own_pid_namespace_and_cannot_see_the_engine():
    out = run_py(f"import os; print(os.getpid(), os.path.exists('/proc/{os.getpid()}/environ'), "
                 "sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))")
    pid, engine_visible, pids = out.split(" ", 2)
    assert int(pid) < 10 and engine_visible == "False"
    assert all(p < 10 for p in json.loads(pids))


def test_seccomp_denies_ptrace_unshare_and_mount():
    code = ("import ctypes, os\n"
            "libc = ctypes.CDLL(None, use_errno=True)\n"
            "r = [libc.ptrace(0, 0, 0, 0), ctypes.get_errno(), libc.unshare(0x20000000), ctypes.get_errno(),\n"
            "     libc.mount(b'none', b'/tmp', b'tmpfs', 0, None), ctypes.get_errno()]\n"
            "print(r)")
    assert json.loads(run_py(code)) == [-1, 1, -1, 1, -1, 1]  # each -1 with EPERM


def test_rlimits_are_set_in_the_bot():
    limits = sandbox.Limits(memory_mib=300, cpu_s=7, file_mib=3, open_files=99)
    out = run_py("import resource as r; print([r.getrlimit(x)[0] for x in (r.RLIMIT_AS, r.RLIMIT_CPU, "
                 "r.RLIMIT_FSIZE, r.RLIMIT_NOFILE, r.RLIMIT_CORE)])", limits=limits)
    assert json.loads(out) == [300 << 20, 7, 3 << 20, 99, 0]


def test_bot_sees_only_runtime_and_its_own_files(tmp_path):
    own = tmp_path / "mine" / "bot.py"
    other = tmp_path / "theirs" / "bot.py"
    own.parent.mkdir()
    other.parent.mkdir()
    own.write_text("import os, sys\nprint(os.path.exists(sys.argv[1]), os.path.exists(sys.argv[2]))\n")
    other.write_text("SECRET = 1\n")
    res = sandbox.run_once([PY, str(own), str(own), str(other) + ".nope"], b"", 20)
    assert res.stdout.decode().split() == ["True", "False"]
    res = sandbox.run_once([PY, "-c", f"import os; print(os.path.exists({str(other)!r}), "
                                      f"os.path.exists('/etc/shadow'), os.listdir('/'))"], b"", 20)
    visible, shadow, root = res.stdout.decode().split(" ", 2)
    assert (visible, shadow) == ("False", "False")
    allowed = {"usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "etc", "dev", "proc", "tmp"}
    allowed |= {p.split("/")[1] for p in sandbox._runtime_paths()}  # the Python install, botwars
    assert set(json.loads(root.replace("'", '"'))) <= allowed
    res = sandbox.run_once([PY, "-c", f"import json, os; print(json.dumps(os.listdir({ROOT!r})))"], b"", 20)
    assert set(json.loads(res.stdout)) <= {"src", ".venv"}  # of the project: the botwars package (and venv)


def test_missing_program_is_an_oserror_before_start():
    with pytest.raises(OSError):
        sandbox.spawn(["/nonexistent/program"])
    with pytest.raises(OSError):
        sandbox.spawn(["no-such-program-anywhere"])


def _report(level, reasons=()):
    return sandbox.Report([], level, reasons=list(reasons))


def test_require_level_refuses_below_the_minimum_and_says_why(monkeypatch):
    monkeypatch.setattr(sandbox, "_probe_cache", _report("process", ["bubblewrap: bwrap not found"]))
    with pytest.raises(sandbox.SandboxUnavailable) as info:
        sandbox.require_level("namespaces")
    msg = str(info.value)
    assert "'process'" in msg and "'namespaces'" in msg and "bwrap not found" in msg
    assert sandbox.require_level("process").level == "process"
    monkeypatch.setenv("BOTWARS_SANDBOX_MIN", "none")
    assert sandbox.require_level().level == "process"
    monkeypatch.setenv("BOTWARS_SANDBOX_MIN", "full")
    with pytest.raises(sandbox.SandboxUnavailable):
        sandbox.require_level()
    with pytest.raises(ValueError):
        sandbox.require_level("strong")


def test_cli_sandbox_check_reports_layers_and_level():
    p = botwars("sandbox", "check", "--min", "full")
    assert p.returncode == 0, p.stderr
    for layer in ("bubblewrap", "seccomp", "process-limit", "rlimits", "user-namespaces", "landlock"):
        assert layer in p.stdout
    assert "isolation level: full" in p.stdout
    j = json.loads(botwars("sandbox", "check", "--json").stdout)
    assert j["level"] == "full" and j["levels"] == ["none", "process", "namespaces", "full"]


def test_cli_sandbox_check_without_bwrap_refuses_in_one_line():
    p = botwars("sandbox", "check", env_extra={"BOTWARS_BWRAP": "/nonexistent/bwrap"})
    assert p.returncode == 1
    assert "isolation level: process" in p.stdout
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "refusing untrusted bot code" in lines[0] and "bwrap not found" in lines[0]
    assert "Traceback" not in p.stderr


def test_cli_sandbox_check_unknown_level_exit_2():
    p = botwars("sandbox", "check", "--min", "strong")
    assert p.returncode == 2 and "unknown sandbox level 'strong'" in p.stderr and "Traceback" not in p.stderr


def test_fallback_without_bwrap_still_cleans_the_environment(monkeypatch):
    monkeypatch.setattr(sandbox, "_probe_cache", sandbox.Report([], "process"))
    monkeypatch.setenv("SMTP_PASSWORD", "hunter2")
    res = sandbox.run_once([PY, "-c", "import os; print(sorted(os.environ))"], b"", 20)
    assert res.returncode == 0 and "SMTP_PASSWORD" not in res.stdout.decode()


# ---- Landlock (issue 12 item 1): applied inside the sandbox before the bot's own code -----------
LANDLOCK_PROBE = (
    "import json, os, socket\n"
    "def t(f):\n"
    "    try:\n"
    "        f()\n"
    "        return 0\n"
    "    except OSError as e:\n"
    "        return e.errno\n"
    "def bind():\n"
    "    s = socket.socket()\n"
    "    try:\n"
    "        s.bind(('127.0.0.1', 0))\n"
    "    finally:\n"
    "        s.close()\n"
    "print(json.dumps({\n"
    "    'tmp': t(lambda: open('/tmp/x', 'w').write('hi')),\n"
    "    'usr': t(lambda: os.listdir('/usr/bin')),\n"
    "    'devnull': t(lambda: open('/dev/null', 'w').write('x')),\n"
    "    'proc_read': t(lambda: open('/proc/self/status').read()),\n"
    "    'proc_write': t(lambda: open('/proc/self/comm', 'w').write('evil')),\n"
    "    'tcp_bind': t(bind),\n"
    "    'signal_outside': t(lambda: os.kill(1, 0)),\n"
    "}))\n")


def _landlock_works():
    report = sandbox.probe()
    if report.bwrap is None or sandbox.landlock_abi() < 1:
        pytest.skip(f"no Landlock here (kernel ABI {sandbox.landlock_abi()}, bwrap {report.bwrap}): "
                    "botwars sandbox check reports the layer inactive")
    return report


def test_landlock_is_active_where_the_kernel_has_it():
    report = _landlock_works()
    assert report.landlock and report.layer("landlock").active, report.layer("landlock").detail


def test_landlock_denies_inside_the_bot_what_bubblewrap_alone_allows(monkeypatch):
    import dataclasses
    import errno
    report = _landlock_works()
    abi = sandbox.landlock_abi()
    with_ll = json.loads(run_py(LANDLOCK_PROBE))
    # what the bot needs still works
    assert with_ll["tmp"] == 0 and with_ll["usr"] == 0 and with_ll["devnull"] == 0 and with_ll["proc_read"] == 0
    # bubblewrap leaves the private /proc writable: Landlock makes it read-only
    assert with_ll["proc_write"] == errno.EACCES
    # bubblewrap's network namespace has its own loopback; Landlock (ABI 4+) denies TCP bind
    assert with_ll["tcp_bind"] == (errno.EACCES if abi >= 4 else 0)
    # bubblewrap's init (pid 1) is outside the bot's Landlock domain (ABI 6+ scopes signals)
    assert with_ll["signal_outside"] == (errno.EPERM if abi >= 6 else 0)
    # the same bot in the same sandbox without the Landlock layer: each of those succeeds
    monkeypatch.setattr(sandbox, "_probe_cache", dataclasses.replace(report, landlock=False))
    without = json.loads(run_py(LANDLOCK_PROBE))
    assert without == {"tmp": 0, "usr": 0, "devnull": 0, "proc_read": 0, "proc_write": 0, "tcp_bind": 0,
                       "signal_outside": 0}


def test_landlock_launcher_fails_closed_in_one_line(capsys):
    from botwars.agents import landlock_exec
    assert landlock_exec.main(["landlock_exec.py", "/nonexistent", "{not json", "--", "true"]) == 126
    err = capsys.readouterr().err
    assert err.startswith("botwars sandbox: cannot apply Landlock: JSONDecodeError") and err.count("\n") == 1


def test_cli_sandbox_check_reports_landlock_active():
    _landlock_works()
    p = botwars("sandbox", "check")
    line = next(x for x in p.stdout.splitlines() if "landlock" in x and "]" in x)
    assert line.lstrip().startswith("[x]") and f"kernel ABI {sandbox.landlock_abi()}" in line
    layer = next(x for x in json.loads(botwars("sandbox", "check", "--json").stdout)["layers"]
                 if x["name"] == "landlock")
    assert layer["active"] is True and "TCP bind" in layer["blocks"]
