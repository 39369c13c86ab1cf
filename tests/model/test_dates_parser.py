"""The date parser reads exactly the forms of the pattern it replaced (spec 5.2, AMB-DATES).

`parse_date` is a plain parser, for speed: the merge rules call it for every
item they sort. The oracle here is the regular expression the model used
before, applied with Python's engine: the same forms, the same instants.
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta, timezone

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


def _part(right: list[str], near: list[str]):
    """A part of the form: right three times in four, else nearly right."""
    return st.one_of(st.sampled_from(right), st.sampled_from(right), st.sampled_from(right), st.sampled_from(near))


# Each part of the form, composed as the form composes them.
_DAY = _part(["2026-05-02", "1999-12-31"], ["2026-02-30", "2026-5-02", "2026-05-0x", "٢٠٢٦-٠٥-٠٢", "2026/05/02"])
_SEPARATOR = _part(["T", "t", " "], ["x", "", "\t"])
_HOUR = _part(["10", "00", "23"], ["24", "1", "1x", "٣٣"])
_MINUTE = _part(["00", "59"], ["60", "5", ":00"])
_FRACTION = _part(["", ".5", ",123", ".1234567"], [".", ",x", ".٣", ";5"])
_SECONDS = st.one_of(st.just(""), st.builds(lambda ss, fraction: f":{ss}{fraction}",
                                            _part(["00", "59"], ["60", "5", "5x"]), _FRACTION))
_SPACE = _part(["", " ", "  ", "\xa0", "\v", "\u3000"], ["\n", "x"])
_ZONE = _part(["", "Z", "z", "+05", "-0530", "+05:30", "-08:00"],
              ["+5", "+053", "+05:3", "+05::30", "x", "+05:30x", "Zz", "-", "+٣٣"])
_TIME = st.builds(lambda sep, hh, mm, ss, space, zone: f"{sep}{hh}:{mm}{ss}{space}{zone}",
                  _SEPARATOR, _HOUR, _MINUTE, _SECONDS, _SPACE, _ZONE)
_EDGE = _part(["", " ", "\n"], ["\ud800", "x"])
_DATES = st.builds(lambda before, day, time, after: f"{before}{day}{time}{after}",
                   _EDGE, _DAY, st.one_of(st.just(""), _TIME), _EDGE)


@settings(max_examples=3000, deadline=None)
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
