"""Standard cron → APScheduler 3: the table of expressions people write, and the edge cases."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import pytest
from apscheduler.triggers.cron import CronTrigger
from hypothesis import given, settings
from hypothesis import strategies as st

from vaultbrain.cron import CronExpr
from vaultbrain.errors import UserError

UTC = dt.UTC
PARIS = ZoneInfo("Europe/Paris")
TUE_EVENING = dt.datetime(2026, 12, 1, 19, 0)  # a Tuesday


def nxt(expr: str, after: dt.datetime, tz: dt.tzinfo = UTC) -> dt.datetime:
    fire = CronExpr.parse(expr).next_after(after, tz)
    assert fire is not None
    return fire.replace(tzinfo=None)


@pytest.mark.parametrize(
    ("expr", "after", "expected"),
    [
        # Sunday as 0, as 7, by name in any case: 2026-12-06 is the next Sunday.
        ("0 9 * * 0", TUE_EVENING, dt.datetime(2026, 12, 6, 9, 0)),
        ("0 9 * * 7", TUE_EVENING, dt.datetime(2026, 12, 6, 9, 0)),
        ("0 9 * * sun", TUE_EVENING, dt.datetime(2026, 12, 6, 9, 0)),
        ("0 9 * * SUN", TUE_EVENING, dt.datetime(2026, 12, 6, 9, 0)),
        # The digest default: later today, or tomorrow once 18:00 has passed.
        ("0 18 * * *", dt.datetime(2026, 12, 1, 17, 0), dt.datetime(2026, 12, 1, 18, 0)),
        ("0 18 * * *", TUE_EVENING, dt.datetime(2026, 12, 2, 18, 0)),
        ("0 18 * * *", dt.datetime(2026, 12, 1, 18, 0), dt.datetime(2026, 12, 2, 18, 0)),
        # 1 is Monday in cron (it is Tuesday in APScheduler's numbering).
        ("0 9 * * 1", TUE_EVENING, dt.datetime(2026, 12, 7, 9, 0)),
        ("0 9 * * mon", TUE_EVENING, dt.datetime(2026, 12, 7, 9, 0)),
        # Ranges, by number and by name; 5-7 is Friday to Sunday.
        ("30 8 * * 1-5", dt.datetime(2026, 12, 4, 9, 0), dt.datetime(2026, 12, 7, 8, 30)),
        ("30 8 * * mon-fri", dt.datetime(2026, 12, 4, 9, 0), dt.datetime(2026, 12, 7, 8, 30)),
        ("0 10 * * 5-7", TUE_EVENING, dt.datetime(2026, 12, 4, 10, 0)),
        ("0 10 * * 6-7", TUE_EVENING, dt.datetime(2026, 12, 5, 10, 0)),
        ("0 10 * * 0-2", dt.datetime(2026, 12, 2, 0, 0), dt.datetime(2026, 12, 6, 10, 0)),
        # Lists and steps.
        ("0 9,17 * * *", dt.datetime(2026, 12, 1, 10, 0), dt.datetime(2026, 12, 1, 17, 0)),
        ("*/15 * * * *", dt.datetime(2026, 12, 1, 19, 1), dt.datetime(2026, 12, 1, 19, 15)),
        ("0 8-18/5 * * *", dt.datetime(2026, 12, 1, 14, 0), dt.datetime(2026, 12, 1, 18, 0)),
        ("5/20 * * * *", dt.datetime(2026, 12, 1, 19, 30), dt.datetime(2026, 12, 1, 19, 45)),
        # Months by name.
        ("0 12 1 jan *", TUE_EVENING, dt.datetime(2027, 1, 1, 12, 0)),
        ("0 12 15 Mar,JUL *", TUE_EVENING, dt.datetime(2027, 3, 15, 12, 0)),
        # Day of month and day of week both restricted: either one matches (crontab(5)).
        ("0 0 13 * 5", dt.datetime(2026, 12, 1, 0, 0), dt.datetime(2026, 12, 4, 0, 0)),
        ("0 0 3 * 5", dt.datetime(2026, 12, 1, 0, 0), dt.datetime(2026, 12, 3, 0, 0)),
        # "*/2" counts as unrestricted for that rule, so it is AND: odd days that are Fridays.
        ("0 0 */2 * 5", dt.datetime(2026, 12, 1, 0, 0), dt.datetime(2026, 12, 11, 0, 0)),
        # A leap day waits for a leap year.
        ("0 0 29 2 *", TUE_EVENING, dt.datetime(2028, 2, 29, 0, 0)),
    ],
)
def test_next_fire_time(expr: str, after: dt.datetime, expected: dt.datetime) -> None:
    assert nxt(expr, after) == expected


def test_sunday_review_fires_on_a_sunday_at_nine_local_time() -> None:
    fire = CronExpr.parse("0 9 * * 0").next_after(TUE_EVENING, PARIS)
    assert fire is not None
    assert fire.weekday() == 6 and (fire.hour, fire.minute) == (9, 0)
    assert fire.utcoffset() == dt.timedelta(hours=1)


def test_apscheduler_numbers_days_from_monday_so_numbers_are_converted() -> None:
    # The reason for the conversion: APScheduler's own day_of_week=0 is a Monday.
    raw = CronTrigger(day_of_week="0", hour=9, minute=0, timezone=UTC)
    fire = raw.get_next_fire_time(None, TUE_EVENING.replace(tzinfo=UTC))
    assert fire.weekday() == 0
    ours = CronExpr.parse("0 9 * * 0").trigger(UTC)
    assert ours.get_next_fire_time(None, TUE_EVENING.replace(tzinfo=UTC)).weekday() == 6
    assert "day_of_week='sun'" in str(ours)


def test_local_time_across_a_dst_change() -> None:
    # Europe/Paris moves to summer time on 2027-03-28: 18:00 stays 18:00 on the wall clock.
    expr = CronExpr.parse("0 18 * * *")
    before = expr.next_after(dt.datetime(2027, 3, 27, 19, 0), PARIS)
    assert before is not None
    assert before.replace(tzinfo=None) == dt.datetime(2027, 3, 28, 18, 0)
    assert before.utcoffset() == dt.timedelta(hours=2)


@pytest.mark.parametrize(
    "expr",
    [
        "0 9 * *",
        "0 9 * * * *",
        "60 * * * *",
        "0 24 * * *",
        "0 9 0 * *",
        "0 9 * 13 *",
        "0 9 * * 8",
        "0 9 * * fri-mon",
        "*/0 * * * *",
        "0 9 L * *",
        "0 9 ? * *",
        "0 9 * * 1#2",
        "0 9 31 2 *",
        "0 9 * * funday",
        "0,,5 9 * * *",
        "",
    ],
)
def test_invalid_expressions_say_what_is_wrong(expr: str) -> None:
    with pytest.raises(UserError) as err:
        CronExpr.parse(expr)
    assert repr(expr) in str(err.value) or "5-field" in str(err.value)


def test_last_between_coalesces_missed_runs_to_the_latest() -> None:
    expr = CronExpr.parse("0 18 * * *")
    # Off from Monday morning to Thursday morning: three 18:00s were missed, one counts.
    fire = expr.last_between(dt.datetime(2026, 11, 30, 8, 0), dt.datetime(2026, 12, 3, 8, 0), UTC)
    assert fire is not None and fire.replace(tzinfo=None) == dt.datetime(2026, 12, 2, 18, 0)
    assert (
        expr.last_between(dt.datetime(2026, 12, 2, 18, 0), dt.datetime(2026, 12, 3, 8, 0), UTC)
        is None
    )  # the bound is exclusive on the left: a run already done is not due again
    assert expr.last_between(
        dt.datetime(2026, 12, 2, 17, 0), dt.datetime(2026, 12, 2, 18, 0), UTC
    ).replace(tzinfo=None) == dt.datetime(2026, 12, 2, 18, 0)  # and inclusive on the right


def test_last_between_is_cheap_for_a_minutely_schedule_over_a_long_gap() -> None:
    expr = CronExpr.parse("* * * * *")
    fire = expr.last_between(dt.datetime(2025, 1, 1), dt.datetime(2026, 12, 1, 19, 0, 30), UTC)
    assert fire is not None and fire.replace(tzinfo=None) == dt.datetime(2026, 12, 1, 19, 0)
    yearly = CronExpr.parse("0 0 1 1 *")
    fire = yearly.last_between(dt.datetime(2020, 6, 1), dt.datetime(2026, 12, 1), UTC)
    assert fire is not None and fire.replace(tzinfo=None) == dt.datetime(2026, 1, 1)


def test_describe_common_shapes() -> None:
    assert CronExpr.parse("0 18 * * *").describe() == "every day at 18:00"
    assert CronExpr.parse("0 9 * * 0").describe() == "Sun at 09:00"
    assert CronExpr.parse("30 8 * * 1-5").describe() == "Mon, Tue, Wed, Thu, Fri at 08:30"
    assert CronExpr.parse("0 18 */2 * *").describe() == "0 18 */2 * *"


# -- property: the trigger fires exactly where a brute-force reading of cron says it should --


def _cron_matches(expr: CronExpr, t: dt.datetime) -> bool:
    if t.minute not in expr.minutes or t.hour not in expr.hours or t.month not in expr.months:
        return False
    dom = t.day in expr.days
    dow = (t.weekday() + 1) % 7 in expr.weekdays
    if expr.day_star or expr.weekday_star:
        return dom and dow
    return dom or dow


def _field(values: list[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.just("*"),
        st.sampled_from(values),
        st.lists(st.sampled_from(values), min_size=1, max_size=3, unique=True).map(",".join),
    )


_EXPR = st.tuples(
    st.one_of(_field(["0", "15", "30", "45"]), st.sampled_from(["*/20", "10-20/5"])),
    _field(["0", "6", "9", "18", "23"]),
    st.one_of(_field(["1", "2", "15", "28", "31"]), st.just("*/3"), st.just("10-12")),
    st.one_of(st.just("*"), _field(["1", "2", "6", "12", "jan", "jun"])),
    st.one_of(
        _field(["0", "1", "5", "6", "7", "sun", "mon", "fri"]),
        st.just("1-5"),
        st.just("5-7"),
        st.just("*/2"),
    ),
).map(" ".join)


@settings(max_examples=120, deadline=None)
@given(_EXPR, st.datetimes(min_value=dt.datetime(2026, 1, 1), max_value=dt.datetime(2027, 12, 31)))
def test_trigger_agrees_with_cron_semantics(text: str, after: dt.datetime) -> None:
    try:
        expr = CronExpr.parse(text)
    except UserError:
        return  # e.g. "31" in February only: refused up front, which is tested above
    after = after.replace(second=0, microsecond=0)
    fire = expr.next_after(after, UTC)
    assert fire is not None
    fire = fire.replace(tzinfo=None)
    assert fire > after
    assert _cron_matches(expr, fire)
    # No earlier minute matches (checked for a bounded stretch to keep the test fast).
    t = after + dt.timedelta(minutes=1)
    end = min(fire, after + dt.timedelta(days=3))
    while t < end:
        assert not _cron_matches(expr, t), (text, t)
        t += dt.timedelta(minutes=1)
