"""Landlock launcher: run inside the bubblewrap sandbox, restrict itself, then ``exec`` the bot.

Usage (built by :mod:`botwars.agents.sandbox`, never by hand)::

    python -I -S landlock_exec.py LANDLOCK_DIR POLICY_JSON -- PROGRAM ARG...

``LANDLOCK_DIR`` is the folder holding the ``landlock`` package (PyPI ``landlock``; its rule
set and ``landlock_add_rule`` plumbing are used), ``POLICY_JSON`` an object with ``list``
(folders whose tree may be listed, not read: ``/``, bubblewrap's skeleton), ``ro``
(paths the bot may read and execute: the same read-only binds bubblewrap gives it), ``rw`` (its
private writable folders: ``/tmp``), ``dev`` (device folders: read and write device files),
``proc`` (read only) and ``net`` (``true``: deny every TCP bind and connect, kernel ABI >= 4).
On ABI >= 6 the domain is also scoped: no signals to, and no abstract Unix sockets of, processes
outside it. Paths that do not exist inside the sandbox are skipped.

The rules bind this process and everything it starts; the program is then run with
``os.execvp``. Any failure to apply them is fatal (exit status 126 and one line on stderr):
the engine only uses this launcher after :func:`botwars.agents.sandbox.probe` saw it work, so a
bot never runs with less than was reported. Only the standard library and ``landlock`` are
imported (the ``botwars`` package is not needed inside the sandbox).
"""

import ctypes
import json
import os
import sys

#: ``struct landlock_ruleset_attr`` fields (bytes): handled_access_fs, handled_access_net, scoped
_NET_BIND_TCP = 1 << 0
_NET_CONNECT_TCP = 1 << 1
_SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0
_SCOPE_SIGNAL = 1 << 1


class _RulesetAttr(ctypes.Structure):
    """``struct landlock_ruleset_attr`` up to ABI 6 (the ``landlock`` package knows only ``fs``)."""

    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


def apply(policy: dict) -> int:
    """Restrict this process with Landlock according to ``policy`` (see the module docstring).

    Returns the kernel's ABI version. Raises :class:`OSError` (``landlock.SyscallError``) when
    a Landlock system call fails, :class:`RuntimeError` when the kernel has no Landlock.
    """
    from landlock.plumbing import (
        PR_SET_NO_NEW_PRIVS,
        FSAccess,
        PathBeneathAttr,
        RulesetAttr,
        get_add_rule,
        get_create_ruleset,
        get_prctl,
        get_restrict_self,
        landlock_abi_version,
    )
    abi = int(landlock_abi_version())
    if abi < 1:
        raise RuntimeError("the kernel has no Landlock")
    file_rights = FSAccess.all_file()
    handled = FSAccess.all()
    read_exec = FSAccess.EXECUTE | FSAccess.READ_FILE | FSAccess.READ_DIR
    device = FSAccess.READ_FILE | FSAccess.WRITE_FILE | FSAccess.READ_DIR
    if abi >= 3:
        device |= FSAccess.TRUNCATE  # "> /dev/null" opens with O_TRUNC
    if abi >= 5:
        device |= FSAccess.IOCTL_DEV
    attr = _RulesetAttr(int(handled), 0, 0)
    size = 8
    if abi >= 4 and policy.get("net"):
        attr.handled_access_net = _NET_BIND_TCP | _NET_CONNECT_TCP  # no rule: every port denied
        size = 16
    if abi >= 6:
        attr.scoped = _SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL
        size = 24
    ctypes.set_errno(0)
    # the package's prototype takes its fs-only struct; the kernel reads ``size`` bytes
    ruleset = get_create_ruleset()(ctypes.cast(ctypes.pointer(attr), ctypes.POINTER(RulesetAttr)), size, 0)
    try:
        rules = [(p, FSAccess.READ_DIR) for p in policy.get("list", ())]
        rules += [(p, read_exec) for p in policy.get("ro", ())]
        rules += [(p, FSAccess.READ_FILE | FSAccess.READ_DIR) for p in policy.get("proc", ())]
        rules += [(p, device) for p in policy.get("dev", ())]
        rules += [(p, handled) for p in policy.get("rw", ())]
        for path, rights in rules:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue  # not bound in this sandbox (e.g. no /lib32 here)
            try:
                if not os.path.isdir(path):
                    rights &= file_rights  # a file takes file rights only
                ctypes.set_errno(0)
                get_add_rule()(ruleset, 1, ctypes.byref(PathBeneathAttr(int(rights), fd)), 0)
            finally:
                os.close(fd)
        ctypes.set_errno(0)
        get_prctl()(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
        ctypes.set_errno(0)
        get_restrict_self()(ruleset, 0)
    finally:
        os.close(ruleset)
    return abi


def main(argv: list[str]) -> int:
    """Apply the policy in ``argv`` and exec the program after ``--``; 126 on any failure."""
    try:
        sep = argv.index("--")
        landlock_dir, policy_json = argv[1], argv[2]
        program = argv[sep + 1:]
        if not program:
            raise ValueError("no program after '--'")
        sys.path.insert(0, landlock_dir)
        apply(json.loads(policy_json))
    except Exception as exc:  # noqa: BLE001  (any failure: fail closed, in one line)
        sys.stderr.write(f"botwars sandbox: cannot apply Landlock: {type(exc).__name__}: {exc}\n".replace("\n", " ")
                         .rstrip() + "\n")
        return 126
    try:
        os.execvp(program[0], program)
    except OSError as exc:
        sys.stderr.write(f"botwars sandbox: cannot run {program[0]}: {exc.strerror or exc}\n")
        return 127 if exc.errno == 2 else 126
    return 126  # not reached


if __name__ == "__main__":
    sys.exit(main(sys.argv))
