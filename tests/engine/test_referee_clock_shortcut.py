"""The referee's shortcuts on the clock (the per-match loop's speed, issue 11): a submission
within a plain clock's move limit is never late and charges nothing, and times are rounded to
the microsecond by a cheaper route. Checked against :class:`Clock.spend` and ``round(t, 6)``."""

import random

import pytest

from botwars.engine.codes import ClockStatus, OnExpiry, Receipt
from botwars.engine.referee import Referee, _seconds
from botwars.engine.ruleset import get_ruleset
from botwars.engine.timecontrol import Clock, TimeControl

ARENA = type(get_ruleset("arena"))


def _ruleset(control: TimeControl):
    class Timed(ARENA):  # the arena with another time control
        def time_control(self, config):
            return control
    return Timed()


@pytest.mark.parametrize("control", [TimeControl(2.0, 1.0), TimeControl(2.0, 0.0), TimeControl(0.5, 3.0, 0.25),
                                     TimeControl(1.0, 2.0, None, OnExpiry.LOSS)])
def test_banks_expiry_and_clock_marks_are_those_of_clock_spend(control):
    rs = _ruleset(control)
    rng = random.Random(4)
    ref = Referee(rs, rs.validate_config({}), ["p1", "p2"], 1)
    model = Clock.start(control, ["p1", "p2"])
    limit = control.move_limit_s
    while not ref.over:
        times = {s: rng.choice([0.0, 1e-5, limit - 1e-7, limit, limit + 3e-7, limit + 0.3, limit + 1.2,
                                limit + 5.0]) for s in ref.pending()}
        want_status = {}
        for s, t in times.items():
            late = Clock(control, dict(model.bank_left)).spend(s, _seconds(t)) == ClockStatus.EXPIRED
            tk = ref.submit_parsed(s, rs.default_orders(ref.state, s), t)
            assert (tk.receipt == Receipt.TOO_LATE) == late, (s, t)
            if ref.over:
                break
        if ref.over:
            assert control.on_expiry == OnExpiry.LOSS
            break
        for s, t in times.items():
            settled = ref.settled(s)
            if settled.expired:
                model.bank_left[s] = 0.0
                want_status[s] = ClockStatus.EXPIRED.value
                continue
            st = model.spend(s, settled.time_s)
            if st is not ClockStatus.OK:
                want_status[s] = st.value
        ref.resolve_point()
        assert ref.bank == model.bank_left
        assert ref.lines[-1]["clock"] == want_status


def test_seconds_is_round_to_the_microsecond_and_gives_itself_back():
    rng = random.Random(11)
    for _ in range(100_000):
        t = rng.choice([rng.uniform(0, 1e-3), rng.uniform(0, 3), rng.uniform(0, 5000)])
        got = _seconds(t)
        assert got == round(t, 6)
        assert _seconds(got) == got
    assert _seconds(-1.0) == 0.0 and _seconds(0) == 0.0 and isinstance(_seconds(3), float)
    assert _seconds(2e7 + 0.1234567) == round(2e7 + 0.1234567, 6)
