"""Dates as the merge rules compare them (spec 5.2).

Every date field is ISO 8601. A missing or unparseable value compares as
the epoch, so it loses to any real date. Date-only values are midnight UTC
and date-times without an offset are taken as UTC (docs/spec-ambiguities.md,
AMB-DATES).
"""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def parse_date(value: object) -> datetime | None:
    """An aware UTC datetime for an ISO 8601 date or date-time, else None.

    The forms read: `YYYY-MM-DD`, then optionally `T`, `t` or a space,
    `hh:mm`, `:ss` and a fraction after `.` or `,`, whitespace, and `Z`,
    `z`, `+hh`, `+hhmm` or `+hh:mm` (or `-`). A plain parser, in one pass: the
    merge rules sort by these values, so it is called for every item sorted."""
    if not isinstance(value, str):
        return None
    text = value.strip()
    if not (_digits(text, 0, 4) and text[4:5] == "-" and _digits(text, 5, 7) and text[7:8] == "-"
            and _digits(text, 8, 10)):
        return None
    try:
        day = date.fromisoformat(text[:10])
        if len(text) == 10:
            return datetime.combine(day, datetime.min.time(), timezone.utc)
        if text[10] not in "Tt " or not (_digits(text, 11, 13) and text[13:14] == ":" and _digits(text, 14, 16)):
            return None
        second, micros, position = 0, 0, 16
        if text[16:17] == ":" and _digits(text, 17, 19):
            second, position = int(text[17:19]), 19
            if text[19:20] in (".", ","):
                end = _digits_end(text, 20)
                if end == 20:
                    return None
                micros, position = int(text[20:end][:6].ljust(6, "0")), end
        while position < len(text) and text[position].isspace():
            position += 1
        zone = text[position:]
        if not _is_zone(zone):
            return None
        moment = datetime.combine(day, datetime.min.time().replace(
            hour=int(text[11:13]), minute=int(text[14:16]), second=second, microsecond=micros))
        return moment.replace(tzinfo=_offset(zone or None)).astimezone(timezone.utc)
    except (ValueError, OverflowError):  # OverflowError: an offset carries year 1 or 9999 out of range in UTC
        return None


def _digits(text: str, start: int, end: int) -> bool:
    """Whether `text[start:end]` is that many ASCII digits."""
    part = text[start:end]
    return len(part) == end - start and part.isascii() and part.isdigit()


def _digits_end(text: str, position: int) -> int:
    while position < len(text) and "0" <= text[position] <= "9":
        position += 1
    return position


def _is_zone(zone: str) -> bool:
    """'' (no zone), `Z`, `z`, or a sign with `hh`, `hhmm` or `hh:mm`."""
    if zone in ("", "Z", "z"):
        return True
    if zone[0] not in "+-" or not _digits(zone, 1, 3):
        return False
    rest = zone[3:]
    return rest == "" or (len(rest) == 2 and _digits(rest, 0, 2)) or (len(rest) == 3 and rest[0] == ":" and _digits(rest, 1, 3))


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
