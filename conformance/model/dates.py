"""Dates as the merge rules compare them (spec 5.2).

Every date field is ISO 8601. A missing or unparseable value compares as
the epoch, so it loses to any real date. Date-only values are midnight UTC
and date-times without an offset are taken as UTC (docs/spec-ambiguities.md,
AMB-DATES).
"""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

from conformance import patterns

EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)

# ASCII digits: ISO 8601's, and the only ones `date.fromisoformat` takes.
_DATE_ONLY = patterns.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_DATE_TIME = patterns.compile(
    r"([0-9]{4}-[0-9]{2}-[0-9]{2})[Tt ]([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:[.,]([0-9]+))?)?"
    rf"[{patterns.PY_SPACE}]*(Z|z|[+-][0-9]{{2}}(?::?[0-9]{{2}})?)?"
)


def parse_date(value: object) -> datetime | None:
    """An aware UTC datetime for an ISO 8601 date or date-time, else None."""
    if not isinstance(value, str):
        return None
    text = value.strip()
    try:
        if len(text) == 10 and _DATE_ONLY.fullmatch(text):
            return datetime.combine(date.fromisoformat(text), datetime.min.time(), timezone.utc)
        match = _DATE_TIME.fullmatch(text)
        if not match:
            return None
        day, hour, minute, second, fraction, offset = match.groups()
        micros = int((fraction or "0")[:6].ljust(6, "0"))
        moment = datetime.combine(
            date.fromisoformat(day),
            datetime.min.time().replace(
                hour=int(hour), minute=int(minute), second=int(second or 0), microsecond=micros
            ),
        )
        return moment.replace(tzinfo=_offset(offset)).astimezone(timezone.utc)
    except ValueError:
        return None


def _offset(text: str | None) -> timezone:
    if text is None or text in "Zz":
        return timezone.utc
    sign = -1 if text[0] == "-" else 1
    digits = text[1:].replace(":", "")
    hours, minutes = int(digits[:2]), int(digits[2:4] or 0)
    return timezone(sign * timedelta(hours=hours, minutes=minutes))


def sort_key(value: object) -> datetime:
    """The comparison value of a date field: the epoch when missing or unparseable."""
    return parse_date(value) or EPOCH


def is_iso8601(value: object) -> bool:
    return parse_date(value) is not None


def format_timestamp(moment: datetime) -> str:
    """The writer's stamp format: UTC with milliseconds, as the reference implementation writes."""
    moment = moment.astimezone(timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
