"""The JSON-lines protocol (P1c) through :class:`JsonLinesAgent`: ``cmd:`` programs and
Python-file bots (``pyhost``). A failing bot's robots defend that turn (P10), the error is in
``MatchResult.errors`` and in the record (P14), and the match goes on."""

import pytest

from botwars.agents import AgentFailure
from botwars.agents.sandbox import network_isolation_available
from botwars.agents.subprocess_agent import JsonLinesAgent

from agent_helpers import PY, accepted, all_defend, bot, errors_of, example, play


def test_P1c_cmd_example_bot_plays_a_match(tmp_path):
    res, rec = play(tmp_path, f"cmd:{PY} {example('jsonl_bot.py')}", "builtin:hunter", max_turns=12)
    assert res.turns == 12
    assert errors_of(res, "p1") == []
    assert rec.decisions[0]["orders"]["p1"]["orders"]  # the program's own P12 object is recorded


def test_P13_python_class_example_bot_plays_a_match(tmp_path):
    res, rec = play(tmp_path, example("class_bot.py"), "builtin:swarm", max_turns=12)
    assert res.turns == 12
    assert errors_of(res, "p1") == []
    assert accepted(rec, 1, "p1") == "5:5-M-E,5:12-M-E"


@pytest.mark.parametrize("mode,code,detail", [
    ("garbage", "malformed", "not JSON"),
    ("badutf8", "malformed", "UTF-8"),
    ("exit", "crash", "boom: giving up on turn 2"),
    ("double", "malformed", "not JSON"),
    ("long", "malformed", "longer than"),
])
def test_P10_cmd_bad_reply_defends_that_turn_and_match_goes_on(tmp_path, mode, code, detail):
    res, rec = play(tmp_path, f"cmd:{PY} {bot('jl_faulty.py')} {mode}", "builtin:defender")
    assert errors_of(res, "p1") == [(2, code)]
    err = [e for e in res.errors if e["seat"] == "p1"][0]
    assert detail in err["detail"]
    assert rec.decisions[1]["errors"]["p1"][0]["code"] == code  # P14: kept in the record
    assert all_defend(accepted(rec, 2, "p1"))                   # R11/P10: all robots defend
    assert "-M-E" in accepted(rec, 3, "p1")                     # and the bot plays on
    assert res.turns == 4


def test_P12_reply_line_longer_than_max_output_chars_is_malformed(tmp_path):
    script = tmp_path / "wide.py"
    script.write_text("import sys\nfor line in sys.stdin:\n"
                      "    print('{\"orders\": []' + ' ' * 300 + '}', flush=True)\n")
    res, rec = play(tmp_path, f"cmd:{PY} {script}", "builtin:defender", max_turns=1, max_output_chars=200)
    assert errors_of(res, "p1") == [(1, "malformed")]
    assert "longer than 200 characters" in res.errors[0]["detail"]


def test_P3_cmd_exit_status_is_named_in_the_error(tmp_path):
    res, _ = play(tmp_path, f"cmd:{PY} {bot('jl_faulty.py')} exit", "builtin:defender")
    err = [e for e in res.errors if e["seat"] == "p1"][0]
    assert "exit status 3" in err["detail"]


def test_P3_cmd_hang_is_a_timeout_killed_and_restarted(tmp_path):
    res, rec = play(tmp_path, f"cmd:{PY} {bot('jl_faulty.py')} hang", "builtin:defender", turn_time_limit_s=1.5)
    assert errors_of(res, "p1") == [(2, "timeout")]
    assert all_defend(accepted(rec, 2, "p1"))
    assert "-M-E" in accepted(rec, 3, "p1")


def test_P13_python_bot_exception_is_a_crash_with_the_exception(tmp_path):
    res, rec = play(tmp_path, bot("raise_bot.py"), "builtin:defender")
    assert errors_of(res, "p1") == [(2, "crash")]
    err = [e for e in res.errors if e["seat"] == "p1"][0]
    assert "ValueError: no plan for turn 2 (raise_bot.py:4)" == err["detail"]
    assert all_defend(accepted(rec, 2, "p1"))
    assert "-M-E" in accepted(rec, 3, "p1")


def test_P13_python_bot_hang_is_a_timeout_and_the_match_goes_on(tmp_path):
    res, rec = play(tmp_path, bot("hang_bot.py"), "builtin:defender", turn_time_limit_s=1.5)
    assert errors_of(res, "p1") == [(2, "timeout")]
    assert all_defend(accepted(rec, 2, "p1"))
    assert "-M-E" in accepted(rec, 3, "p1")


def test_python_bot_failing_to_start_fails_every_turn_without_stopping_the_match(tmp_path):
    res, _ = play(tmp_path, bot("bad_start_bot.py"), "builtin:defender", max_turns=2)
    assert errors_of(res, "p1") == [(1, "crash"), (2, "crash")]
    assert "RuntimeError: cannot start" in res.errors[0]["detail"]
    assert res.turns == 2


def test_P3_memory_limit_is_reported_as_memory(tmp_path):
    res, rec = play(tmp_path, bot("memory_bot.py"), "builtin:defender", memory_limit_mib=256)
    assert errors_of(res, "p1") == [(2, "memory")]
    assert all_defend(accepted(rec, 2, "p1"))


def test_bot_cannot_change_engine_settings_or_the_other_bot(tmp_path):
    res, rec = play(tmp_path, bot("meddle_bot.py"), "builtin:hunter", max_turns=5)
    assert res.turns == 5                           # max_turns=1 in the bot changed nothing
    assert errors_of(res, "p1") == []               # its prints did not corrupt the protocol
    assert rec.header["config"]["max_turns"] == 5
    # the other seat's built-in bot still plays (the bot cleared BUILTIN in its own process)
    assert accepted(rec, 1, "p2")
    assert rec.decisions[4]["orders"]["p1"]["user_data"] == "count=5"  # in-memory state kept
    from botwars.games.arena import bots
    assert "hunter" in bots.BUILTIN


@pytest.mark.skipif(not network_isolation_available(), reason="no network namespaces on this machine")
def test_bot_process_has_no_network_interfaces_but_loopback(tmp_path):
    res, rec = play(tmp_path, bot("net_bot.py"), "builtin:defender", max_turns=1)
    assert rec.decisions[0]["orders"]["p1"]["user_data"] == "lo"


def test_unstartable_program_is_a_crash_every_turn(tmp_path):
    prog = tmp_path / "broken-bot"  # there and executable, but its interpreter is not
    prog.write_text("#!/nonexistent/interpreter\n")
    prog.chmod(0o755)
    res, _ = play(tmp_path, f"cmd:{prog}", "builtin:defender", max_turns=2)
    codes = errors_of(res, "p1")
    assert [c for _, c in codes if _ > 0] == ["crash", "crash"]
    assert str(prog) in res.errors[-1]["detail"] and "No such file or directory" in res.errors[-1]["detail"]


@pytest.mark.parametrize("spec, words", [
    ("cmd:pyhton3 bot.py", "program 'pyhton3' is not found on PATH"),
    ("cmd:/nonexistent/program", "program '/nonexistent/program' is not an executable file"),
    ("botwars-io:no-such-program-xyz run", "program 'no-such-program-xyz' is not found on PATH"),
])
def test_a_missing_program_is_refused_before_the_match(spec, words):
    from botwars.agents.spec import make_agent
    from botwars.engine.errors import ConfigError
    with pytest.raises(ConfigError) as exc:
        make_agent(spec, "arena")
    assert words in str(exc.value) and exc.value.source == spec


def test_agent_reports_a_program_that_exits_between_decisions():
    script = "import sys; print(sys.stdin.readline().strip()); sys.exit(0)"
    agent = JsonLinesAgent([PY, "-c", script], "cmd:test")
    agent.start("arena", "p1", {}, 0)
    try:
        assert agent.act({"a": 1}, 5.0) == {"a": 1}
        with pytest.raises(AgentFailure) as info:
            agent.act({"a": 2}, 5.0)
        assert info.value.code == "crash"
        assert "exit status 0" in info.value.detail
        assert agent.act({"a": 3}, 5.0) == {"a": 3}  # restarted
    finally:
        agent.close()
    assert agent.proc is None


def test_program_gets_game_seat_seed_and_config_in_its_environment():
    script = ("import json,os,sys\n"
              "sys.stdin.readline()\n"
              "print(json.dumps([os.environ['BOTWARS_GAME'], os.environ['BOTWARS_SEAT'],"
              " os.environ['BOTWARS_SEED'], json.loads(os.environ['BOTWARS_CONFIG'])]), flush=True)\n")
    agent = JsonLinesAgent([PY, "-c", script])
    agent.start("arena", "p2", {"max_turns": 7}, 42)
    try:
        assert agent.act({}, 5.0) == ["arena", "p2", "42", {"max_turns": 7}]
    finally:
        agent.close()


def test_same_seed_and_bots_give_the_same_record(tmp_path):
    import json

    def lines(sub):
        d = tmp_path / sub
        d.mkdir()
        _, rec = play(d, example("class_bot.py"), f"rgkit:{example('robot.py')}", seed=5, max_turns=10)
        out = []
        for line in open(rec.path):
            o = json.loads(line)
            o.pop("time_s", None)
            out.append(json.dumps(o, sort_keys=True))
        return out

    assert lines("a") == lines("b")


def test_program_flooding_stderr_between_decisions_does_not_hold_the_engine():
    script = ("import sys, threading\n"
              "def spam():\n"
              "    while True:\n"
              "        sys.stderr.write('x' * 1000 + '\\n')\n"
              "threading.Thread(target=spam, daemon=True).start()\n"
              "for line in sys.stdin:\n"
              "    print('{\"orders\": []}', flush=True)\n")
    agent = JsonLinesAgent([PY, "-c", script])
    agent.start("arena", "p1", {}, 0)
    try:
        for _ in range(3):
            assert agent.act({}, 5.0) == {"orders": []}
    finally:
        agent.close()
    assert "xxxx" in agent.stderr_tail
