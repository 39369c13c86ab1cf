"""The date parser reads exactly the forms of the pattern it replaced (spec 5.2, AMB-DATES).

`parse_date` is a plain parser, for speed: the merge rules call it for every
item they sort. The oracle here is the regular expression the model used
before, applied with Python's engine: the same forms, the same instants.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta, timezone

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from conformance.model.dates import parse_date

_FORM = re.compile(
    r"([0-9]{4}-[0-9]{2}-[0-9]{2})(?:[Tt ]([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:[.,]([0-9]+))?)?"
    r"\s*(Z|z|[+-][0-9]{2}(?::?[0-9]{2})?)?)?")


def _oracle(value: str) -> datetime | None:
    match = _FORM.fullmatch(value.strip())
    if not match:
        return None
    day, hour, minute, second, fraction, zone = match.groups()
    try:
        if hour is None:
            return datetime.combine(date.fromisoformat(day), datetime.min.time(), timezone.utc)
        offset = timezone.utc
        if zone and zone not in "Zz":
            digits = zone[1:].replace(":", "")
            offset = timezone((-1 if zone[0] == "-" else 1) * timedelta(hours=int(digits[:2]), minutes=int(digits[2:4] or 0)))
        moment = datetime.combine(date.fromisoformat(day), datetime.min.time().replace(
            hour=int(hour), minute=int(minute), second=int(second or 0),
            microsecond=int((fraction or "0")[:6].ljust(6, "0"))))
        return moment.replace(tzinfo=offset).astimezone(timezone.utc)
    except ValueError:
        return None


# Each part of the form: (right, nearly right) spellings.
PARTS = {
    "before": (["", " ", "\n"], ["\ud800", "x"]),
    "day": (["2026-05-02", "1999-12-31"], ["2026-02-30", "2026-5-02", "2026-05-0x", "٢٠٢٦-٠٥-٠٢", "2026/05/02"]),
    "separator": (["T", "t", " "], ["x", "", "\t"]),
    "hour": (["10", "00", "23"], ["24", "1", "1x", "٣٣"]),
    "minute": (["00", "59"], ["60", "5", ":00"]),
    "second": (["00", "59"], ["60", "5", "5x"]),
    "fraction": (["", ".5", ",123", ".1234567"], [".", ",x", ".٣", ";5"]),
    "space": (["", " ", "  ", "\xa0", "\v", "\u3000"], ["\n", "x"]),
    "zone": (["", "Z", "z", "+05", "-0530", "+05:30", "-08:00"],
             ["+5", "+053", "+05:3", "+05::30", "x", "+05:30x", "Zz", "-", "+٣٣"]),
    "after": (["", " ", "\n"], ["\ud800", "x"]),
}
TIME_PARTS = ("separator", "hour", "minute", "second", "fraction", "space", "zone")


def compose(parts: dict[str, str], time: bool, seconds: bool) -> str:
    """The text of a date from its parts, as the form composes them (without time, or seconds, when told)."""
    clock = ""
    if time:
        clock = f"{parts['separator']}{parts['hour']}:{parts['minute']}"
        clock += (f":{parts['second']}{parts['fraction']}" if seconds else "") + parts["space"] + parts["zone"]
    return f"{parts['before']}{parts['day']}{clock}{parts['after']}"


def _part(name: str):
    """A part of the form: right three times in four, else nearly right."""
    right, near = PARTS[name]
    return st.one_of(st.sampled_from(right), st.sampled_from(right), st.sampled_from(right), st.sampled_from(near))


_DATES = st.builds(compose, st.fixed_dictionaries({name: _part(name) for name in PARTS}), st.booleans(),
                   st.booleans())


def _one_part_changed():
    """Every spelling of every part, right or nearly, with each other part right: each boundary class once."""
    base = {name: right[0] for name, (right, _) in PARTS.items()} | {"fraction": ".5", "zone": "+05:30"}
    for time, seconds in ((False, False), (True, False), (True, True)):
        for name, (right, near) in PARTS.items():
            if (name in TIME_PARTS and not time) or (name in ("second", "fraction") and not seconds):
                continue
            for value in right + near:
                yield compose(base | {name: value}, time, seconds)


@pytest.mark.parametrize("text", sorted(set(_one_part_changed())))
def test_each_part_right_or_nearly_is_read_as_the_pattern_read_it(text):
    assert parse_date(text) == _oracle(text)


# The combinations: the parts drawn together (the test above has each on its own).
@settings(max_examples=1000, deadline=None)
@given(_DATES)
@example("2026-05-02T10:00:01.5+02:00")
@example(" 2026-05-02\n")
@example("2026-05-02T10:00 \xa0+0530")
@example("2026-05-02T10:00:00.")
@example("2026-05-02T10:00.5")
@example("2026-05-02T10:00:5Z")
@example("2026-05-02T24:00Z")
@example("٢٠٢٦-٠٥-٠٢")
def test_the_parser_reads_what_the_pattern_read(text):
    assert parse_date(text) == _oracle(text)


def test_an_offset_is_an_instant_in_utc():
    assert parse_date("2026-05-02T10:00+02:00") == datetime(2026, 5, 2, 8, 0, tzinfo=timezone.utc)
    assert parse_date("2026-05-02") == datetime(2026, 5, 2, tzinfo=timezone.utc)
    assert parse_date("2026-05-02T10:00:00.123456789Z").microsecond == 123456
