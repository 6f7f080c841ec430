"""The process boundary's own reading and writing (P1c): how :class:`JsonLinesAgent` reads a
reply from the program's stdout (one ``poll`` per wait, a read that is exactly one line taken
as is, a pidfd telling that the program ended), how the Python host reads view lines
(:class:`pyhost.LineReader`) and encodes a bot's reply (one kept ``json`` C encoder), and how a
reply line is decoded (``orjson`` where it gives what ``json.loads`` gives). Expected values are
``json``'s own or written out by hand."""

import json
import os
import subprocess
import threading
import time

import pytest
from agent_helpers import PY

from botwars.agents import AgentFailure, pyhost
from botwars.agents.subprocess_agent import JsonLinesAgent, _Pipes, reply_value


class Rig:
    """A :class:`JsonLinesAgent` whose program is this test: the agent's stdin, stdout and
    stderr are pipes the test holds, so it decides exactly which bytes arrive in which read.
    The process the agent watches (and kills on a failure) is an idle child in its own session."""

    def __init__(self, max_line_bytes=1 << 20, max_chars=None):
        self.child = subprocess.Popen([PY, "-c", "import time; time.sleep(120)"], start_new_session=True,
                                      stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        in_r, in_w = os.pipe()
        out_r, self.out_w = os.pipe()
        err_r, self.err_w = os.pipe()
        self.view_r = in_r
        self.child.stdin = os.fdopen(in_w, "wb", buffering=0)
        self.child.stdout = os.fdopen(out_r, "rb", buffering=0)
        self.child.stderr = os.fdopen(err_r, "rb", buffering=0)
        os.set_blocking(in_w, False)
        agent = JsonLinesAgent(["rig"], "cmd:rig", max_line_bytes=max_line_bytes)
        agent.env = {}
        agent.max_chars = max_chars
        agent.proc = self.child
        agent._sel = _Pipes(self.child)
        self.agent = agent
        self.views = []

    def read_view(self):
        """The next view line the agent wrote (blocks)."""
        buf = b""
        while not buf.endswith(b"\n"):
            chunk = os.read(self.view_r, 65536)
            assert chunk, "the agent closed the program's stdin"
            buf += chunk
        self.views.append(json.loads(buf))
        return buf

    def until_read(self, n):
        """Wait until the agent holds ``n`` bytes of an unfinished reply (so the next piece
        arrives in a read of its own); at most 10 s."""
        end = time.monotonic() + 10
        while len(self.agent._out) != n:
            assert time.monotonic() < end, f"the agent holds {bytes(self.agent._out)!r}"
            time.sleep(0.001)

    def act(self, view, script, deadline_s=10.0):
        """``agent.act(view)`` while a thread plays the program: ``script(rig)`` after reading the view."""
        errors = []

        def program():
            try:
                self.read_view()
                script(self)
            except Exception as exc:  # shown by the test, not lost in the thread
                errors.append(exc)

        t = threading.Thread(target=program, daemon=True)
        t.start()
        try:
            return self.agent.act(view, deadline_s)
        finally:
            t.join(10)
            assert not errors, errors

    def write(self, data):
        os.write(self.out_w, data)

    def close(self):
        self.agent.close() if self.agent.proc is not None else None
        for fd in (self.view_r, self.out_w, self.err_w):
            if fd is not None:
                os.close(fd)
        if self.child.poll() is None:
            self.child.kill()
        self.child.wait()


@pytest.fixture
def rig():
    made = []

    def make(**kw):
        r = Rig(**kw)
        made.append(r)
        return r

    yield make
    for r in made:
        r.close()


def test_P1c_a_reply_split_across_several_reads_is_one_reply(rig):
    r = rig()

    def pieces(rr):
        rr.write(b'{"ord')
        rr.until_read(5)
        rr.write(b'ers": [{"x": 1')
        rr.until_read(19)
        rr.write(b', "y": 2}]}\r\n')

    assert r.act({"turn": 1}, pieces) == {"orders": [{"x": 1, "y": 2}]}
    assert r.views == [{"turn": 1}]
    assert r.act({"turn": 2}, lambda rr: rr.write(b'{"orders": []}\n')) == {"orders": []}
    assert r.agent.extra_lines == 0 and r.agent.proc is not None


def test_P1c_lines_after_the_reply_in_the_same_read_are_never_the_next_reply(rig):
    r = rig()
    assert r.act({"turn": 1}, lambda rr: rr.write(b'{"a": 1}\n{"b": 2}\n{"c"')) == {"a": 1}
    # the late line and the unfinished one are discarded before the next view, not read as its reply
    assert r.act({"turn": 2}, lambda rr: rr.write(b'{"a": 2}\n')) == {"a": 2}
    assert r.agent.extra_lines == 1
    # a late line that arrives on its own between two decisions is discarded too
    r.write(b'{"late": true}\n')
    assert r.act({"turn": 3}, lambda rr: rr.write(b'{"a": 3}\n')) == {"a": 3}
    assert r.agent.extra_lines == 2


def test_P1c_the_reply_of_a_read_that_also_holds_stderr_output_is_read(rig):
    r = rig()

    def both(rr):
        os.write(rr.err_w, b"thinking...\n")
        rr.write(b"[1, 2]\n")

    assert r.act({}, both) == [1, 2]
    assert r.act({}, lambda rr: rr.write(b"3\n")) == 3
    assert "thinking..." in r.agent.stderr_tail


def test_P12_a_line_of_exactly_the_byte_limit_is_read_one_byte_more_without_lf_is_malformed(rig):
    r = rig(max_line_bytes=16)
    line = b'["' + b"x" * 12 + b'"]'
    assert len(line) == 16

    def at_limit(rr):
        rr.write(line)
        rr.until_read(16)
        rr.write(b"\n")

    assert r.act({}, at_limit) == ["x" * 12]

    def over(rr):
        rr.write(line + b" ")  # 17 bytes, no LF yet: the stream cannot be resynchronised

    with pytest.raises(AgentFailure) as info:
        r.act({}, over)
    assert info.value.code == "malformed" and info.value.detail == "reply line longer than 16 bytes"
    assert r.agent.proc is None  # killed


def test_P12_a_longer_line_whose_lf_comes_in_the_same_read_is_judged_by_its_characters(rig):
    r = rig(max_line_bytes=16)
    assert r.act({}, lambda rr: rr.write(b'["' + b"y" * 20 + b'"]\n')) == ["y" * 20]
    assert r.agent.proc is not None


def test_P12_a_reply_of_exactly_max_output_chars_characters_is_read_one_more_is_malformed(rig):
    r = rig(max_chars=10)
    ten = '["' + "é" * 6 + '"]'  # 10 characters, 16 bytes
    assert r.act({}, lambda rr: rr.write(ten.encode() + b"\n")) == ["é" * 6]
    with pytest.raises(AgentFailure) as info:
        r.act({}, lambda rr: rr.write(('["' + "é" * 7 + '"]').encode() + b"\n"))
    assert info.value.code == "malformed" and info.value.detail == "reply line longer than 10 characters"
    assert r.agent.proc is not None  # a whole line: the program keeps running
    assert r.act({}, lambda rr: rr.write(b"{}\n")) == {}


def test_P1c_a_program_that_closes_stdout_mid_reply_ended_without_replying(rig):
    r = rig()

    def close(rr):
        rr.write(b'{"half')
        rr.until_read(6)
        os.close(rr.out_w)
        rr.out_w = None

    with pytest.raises(AgentFailure) as info:
        r.act({}, close)
    assert info.value.code == "crash" and info.value.detail.startswith("ended without replying")
    assert r.agent.proc is None


def test_P3_a_reply_that_never_comes_is_a_timeout(rig):
    r = rig()
    with pytest.raises(AgentFailure) as info:
        r.act({}, lambda rr: rr.write(b'{"never'), deadline_s=0.2)
    assert info.value.code == "timeout" and info.value.detail == "no reply within 0.2 s"
    assert r.agent.proc is None


@pytest.mark.parametrize("pidfds", [True, False], ids=["pidfd", "waitpid"])
def test_P3_a_program_that_ended_after_its_reply_fails_the_next_decision_as_before(monkeypatch, pidfds):
    """With a pidfd (one poll tells it) or without (``waitpid`` per decision): the same failure."""
    if not pidfds:
        def no_pidfd(pid, flags=0):
            raise OSError(38, "Function not implemented")
        monkeypatch.setattr(os, "pidfd_open", no_pidfd)
    elif not hasattr(os, "pidfd_open"):
        pytest.skip("this OS has no pidfds")  # pragma: no cover - Linux >= 5.3 has them
    script = "import sys; print(sys.stdin.readline().strip(), flush=True); sys.exit(0)"
    agent = JsonLinesAgent([PY, "-c", script], "cmd:test")
    agent.start("arena", "p1", {}, 0)
    try:
        assert agent.act({"a": 1}, 5.0) == {"a": 1}
        assert (agent._sel.pidfd is not None) is pidfds
        agent.proc.wait(timeout=10)  # it has ended before the next decision
        with pytest.raises(AgentFailure) as info:
            agent.act({"a": 2}, 5.0)
        assert info.value.code == "crash"
        assert info.value.detail.startswith("exited before this decision") and "exit status 0" in info.value.detail
        assert agent.act({"a": 3}, 5.0) == {"a": 3}  # restarted
    finally:
        agent.close()
    assert agent.proc is None


# ---- decoding a reply line ------------------------------------------------------------------

REPLY_LINES = [
    b'{"orders": [{"x": 1, "y": 2, "action": "M", "dir": "N"}]}', b'{"a": 1, "a": 2, "b": [true, false, null]}',
    b'[1e400, -1e400, 1e-400, -0, -0.0, 0.1e1]', b'{"x": NaN, "y": -Infinity}', b'"\\ud800 lone"',
    b'"\\ud83d\\ude00 \\u00e9 \\/"', b'12345678901234567890123', b'-9223372036854775809', b'18446744073709551615',
    b'  {"sp": [ 1 , 2 ] }  ', '"é ✓"'.encode(), b'[' * 300 + b']' * 300,
    b'{"k": 1.7976931348623157e308, "m": 5e-324, "n": 0.30000000000000004}',
]


@pytest.mark.parametrize("line", REPLY_LINES)
def test_P1c_a_reply_line_is_decoded_as_json_loads_decodes_it(line):
    text = line.decode("utf-8")
    want = json.loads(text)
    got = reply_value(line, text)
    assert json.dumps(got, sort_keys=True) == json.dumps(want, sort_keys=True)
    assert type(got) is type(want)
    if isinstance(want, dict):
        assert list(got) == list(want)  # key order too


@pytest.mark.parametrize("line", [b'{"a":}', b'\xef\xbb\xbf{"bom": 1}', b'{"a": 1} {"b": 2}', b"[1,]", b"", b'"\x01"'])
def test_P1c_a_reply_that_is_not_json_gets_json_s_own_error(line):
    text = line.decode("utf-8")
    with pytest.raises(ValueError) as want:
        json.loads(text)
    with pytest.raises(ValueError) as got:
        reply_value(line, text)
    assert (got.value.msg, got.value.colno) == (want.value.msg, want.value.colno)


def test_P1c_a_reply_nested_too_deep_for_json_raises_as_json_does():
    line = b"[" * 5000 + b"]" * 5000
    with pytest.raises(RecursionError):
        json.loads(line.decode())
    with pytest.raises(RecursionError):
        reply_value(line, line.decode())


# ---- the Python host's encoding of a bot's reply ----------------------------------------------

class _Dict(dict):
    pass


class _Int(int):
    pass


REPLY_VALUES = [{"orders": []}, "a é\n", 1, 1.5, 1e16, 1e-7, -0.0, None, True, [1, "x", {"a": None}],
                {1: 2, 2.5: 3, False: 1, None: 0}, _Dict(a=1), _Int(5), (1, 2), {"\x00\x1f": "\x7f\u2028"},
                [2 ** 70], "\ud800", {"nan": float("nan")}, {"o": object()}, {(1, 2): 3}]


@pytest.mark.parametrize("value", REPLY_VALUES, ids=range(len(REPLY_VALUES)))
def test_P13_a_bots_reply_is_encoded_as_json_encodes_it(value):
    try:
        want = ("ok", pyhost._ENCODE_REPLY(value))
    except (TypeError, ValueError) as exc:
        want = ("error", type(exc), str(exc))
    for _ in range(2):  # the kept encoder is as good the second time
        try:
            got = ("ok", pyhost._encode_reply(value))
        except (TypeError, ValueError) as exc:
            got = ("error", type(exc), str(exc))
        assert got == want


def test_P13_after_a_reply_that_failed_to_encode_the_next_one_is_encoded_afresh():
    inner = [1, object()]
    with pytest.raises(TypeError):
        pyhost._encode_reply({"orders": inner})
    inner[1] = 2  # the same list, now JSON: a stale circular-reference marker would refuse it
    assert pyhost._encode_reply({"orders": inner}) == '{"orders":[1,2]}'
    loop = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular reference"):
        pyhost._encode_reply(loop)
    loop.clear()
    assert pyhost._encode_reply([loop, loop]) == "[[],[]]"


# ---- the Python host's reading of view lines ------------------------------------------------

def test_P1c_the_kept_host_reads_lines_however_they_arrive():
    r, w = os.pipe()
    reader = pyhost.LineReader(r)
    try:
        os.write(w, b'{"a": 1}\n')
        assert reader.readline() == b'{"a": 1}\n'  # one read, exactly one line
        os.write(w, b'{"b": 2}\n{"c": 3}\n{"d"')
        assert reader.readline() == b'{"b": 2}\n'
        assert reader.readline() == b'{"c": 3}\n'
        os.write(w, b': 4}\n')
        assert reader.readline() == b'{"d": 4}\n'  # a line split across two reads
        os.write(w, b'{"e"')
        os.write(w, b': 5}\n')
        assert reader.readline() == b'{"e": 5}\n'
        os.write(w, b"tail without LF")
        os.close(w)
        w = None
        assert reader.readline() == b"tail without LF"
        assert reader.readline() == b""
        assert reader.buf == bytearray()
    finally:
        os.close(r)
        if w is not None:
            os.close(w)
