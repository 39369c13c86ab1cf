"""How a YAML engine would read a frontmatter that the line-based reader reads.

The kit reads frontmatter line by line (AMB-FRONTMATTER-LINES), as the spec's
subset allows. Many real readers hand the same text to a YAML engine, which
reads some lines differently: an unquoted `` #`` starts a comment, an
unquoted date becomes a date object, ``: `` inside a plain value or a
leading backtick makes the whole document unparseable. This module says so,
value by value, so that a writer can quote what needs quoting.

A different type matters where it changes what a reader gets: in a field the
spec makes text (`TEXT_FIELDS`), or where the value does not read back as
written (``1.10`` becomes 1.1, ``yes`` a boolean, ``0x1F`` 31). A date or
timestamp outside the text fields is the same day or instant either way
(``metadata.modified: 2026-07-28T12:09:45.729Z``, written by tools), so it is
not reported.

The value-level readings come from the YAML 1.2 core schema (and YAML 1.1's
yes/no booleans, which PyYAML still applies). An unquoted value that no
YAML engine accepts (``: `` inside it, a leading backtick or ``@``) is
recognised on its own; for other lines outside the subset, whether a YAML
engine rejects the document is asked of ruamel.yaml, at the event level
only: its parser never composes nodes, so an alias is never expanded.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import islice

from conformance.model.frontmatter import ParsedEntry

MAX_YAML_CHARS = 64 * 1024  # frontmatters beyond this are not handed to the engine
MAX_VALUES = 10_000  # values past this many (a hostile frontmatter) are not examined

# The YAML core schema's forms, read by plain parsers (the patterns they
# replace are in each docstring). Each reads the value up to a final newline,
# as `$` does. Every character of every form is ASCII, so each parser first
# asks `isascii`, after which `isdigit` means [0-9].
_HEX = "0123456789abcdefABCDEF"
_OCTAL = "01234567"


def _to_end(value: str) -> str:
    return value[:-1] if value[-1:] == "\n" else value


def _date_end(text: str) -> int:
    """The end of ``[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}`` at the start of ASCII `text`, or -1."""
    if text[4:5] != "-" or not text[:4].isdigit():
        return -1
    if text[6:7] == "-":
        month = 6
    elif text[7:8] == "-" and text[6:7] != "-":
        month = 7
    else:
        return -1
    if not text[5:month].isdigit():
        return -1
    day = month + 1
    if len(text) >= day + 2 and text[day:day + 2].isdigit():
        return day + 2
    return day + 1 if text[day:day + 1].isdigit() else -1


def _is_date(value: str) -> bool:
    """``[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}$``"""
    text = _to_end(value)
    return text.isascii() and _date_end(text) == len(text)


def _is_zone(text: str) -> bool:
    """``Z|[-+][0-9]{1,2}(?::?[0-9]{2})?`` is all of ASCII `text`."""
    if text == "Z":
        return True
    if text[:1] not in ("-", "+") or len(text) < 2:
        return False
    hours, colon, minutes = text[1:].partition(":")
    if colon:
        return len(hours) <= 2 and len(minutes) == 2 and hours.isdigit() and minutes.isdigit()
    return len(hours) <= 4 and hours.isdigit()


def _is_timestamp(value: str) -> bool:
    """``[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \\t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\\.[0-9]*)?``
    ``(?:[ \\t]*(?:Z|[-+][0-9]{1,2}(?::?[0-9]{2})?))?$``"""
    text = _to_end(value)
    if not text.isascii():
        return False
    at = _date_end(text)
    if at < 0 or at == len(text):
        return False
    if text[at] in "Tt":
        at += 1
    else:
        spaced = len(text) - at - len(text[at:].lstrip(" \t"))
        if not spaced:
            return False
        at += spaced
    if len(text) >= at + 2 and text[at:at + 2].isdigit():
        hour = at + 2
    else:
        hour = at + 1 if text[at:at + 1].isdigit() else -1
    if hour < 0 or text[hour:hour + 1] != ":" or text[hour + 3:hour + 4] != ":":
        return False
    if len(text) < hour + 6 or not (text[hour + 1:hour + 3].isdigit() and text[hour + 4:hour + 6].isdigit()):
        return False
    at = hour + 6
    if text[at:at + 1] == ".":
        at += 1
        at += len(text) - at - len(text[at:].lstrip("0123456789"))
    if at == len(text):
        return True
    return _is_zone(text[at:].lstrip(" \t"))


def _is_integer(value: str) -> bool:
    """``[-+]?[0-9]+$|0x[0-9a-fA-F]+$|0o[0-7]+$``"""
    text = _to_end(value)
    if not text.isascii():
        return False
    if text[:1] in ("-", "+"):
        return text[1:].isdigit()
    if text.isdigit():
        return True
    start = text[:2]
    return len(text) > 2 and (start == "0x" and not text[2:].strip(_HEX) or start == "0o" and not text[2:].strip(_OCTAL))


_INFINITIES = frozenset({".inf", ".Inf", ".INF"})
_NANS = frozenset({".nan", ".NaN", ".NAN"})


def _is_float(value: str) -> bool:
    """``[-+]?(?:\\.[0-9]+|[0-9]+(?:\\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$|[-+]?\\.(?:inf|Inf|INF)$|\\.(?:nan|NaN|NAN)$``"""
    text = _to_end(value)
    if not text.isascii():
        return False
    if text in _NANS:
        return True
    unsigned = text[1:] if text[:1] in ("-", "+") else text
    if unsigned in _INFINITIES:
        return True
    mantissa, mark, exponent = unsigned.partition("e")
    if not mark:
        mantissa, mark, exponent = unsigned.partition("E")
    if mark and not (exponent[1:] if exponent[:1] in ("-", "+") else exponent).isdigit():
        return False
    whole, point, fraction = mantissa.partition(".")
    if not point:
        return whole.isdigit()
    if not whole:
        return fraction.isdigit()
    return whole.isdigit() and (not fraction or fraction.isdigit())


_BOOLEANS = {"true", "True", "TRUE", "false", "False", "FALSE"}
_CAPITALISED_BOOLEANS = _BOOLEANS - {"true", "false"}
_NULLS = {"null", "Null", "NULL", "~"}
# PyYAML's YAML 1.1 booleans (it leaves the spec's y/n alone).
_YAML11_BOOLEANS = {"yes", "Yes", "YES", "no", "No", "NO", "on", "On", "ON", "off", "Off", "OFF"}
_LINE_READS = {"true": True, "false": False, "null": None, "~": None}
_QUOTE_OR_INDICATOR = set("\"'&*!|>[{")
_REJECT_START = set("`@%")
_SUBSET_CODES_YAML_REJECTS = {"bad-line", "quoted-trailing-text", "unterminated-quote", "tab-indent", "bad-escape"}
# The fields the spec makes text (3.2, 3.3, Appendix A), by key path; a YAML
# reader that gets a date or a number there gets something else than the writer meant.
TEXT_FIELDS = frozenset({
    "type", "name", "description", "project", "source", "scope", "why", "rejected", "superseded_by", "trigger",
    "how_to_apply", "machine_id", "tags[]", "aliases[]", "origin.tool", "origin.session_id", "origin.machine_id",
    "metadata.type", "originSessionId", "metadata.originSessionId",
})
_DATE_READINGS = ("a date", "a timestamp")


@dataclass(frozen=True)
class Hazard:
    kind: str      # "comment", "retyped" or "rejected"
    line: int
    column: int
    message: str


_TYPED_STARTS = frozenset("0123456789+-.~nNtTfFyYoO")
_NUMBER_STARTS = frozenset("0123456789+-.")  # what an integer or a number starts with
# A value starting with none of these, without '#', ': ' or a final ':', is
# read alike by a YAML engine (see _plain_rejection, _comment_start, yaml_type).
_SUSPICIOUS_STARTS = _TYPED_STARTS | _REJECT_START


def yaml_type(plain: str) -> str | None:
    """What a YAML engine reads an unquoted value as, when not a string."""
    if not plain or plain[0] not in _TYPED_STARTS:
        return None  # every typed form starts with one of these
    if plain[4:5] == "-" and plain[:4].isdigit():
        # Four digits and a '-': a date or a timestamp, or no form at all (the
        # forms do not overlap, so which is asked first changes nothing).
        if len(plain) == 10 and plain[7] == "-" and plain.isascii() and plain[5:7].isdigit() and plain[8:].isdigit():
            return "a date"  # YYYY-MM-DD, the commonest
        if _is_date(plain):
            return "a date"
        return "a timestamp" if _is_timestamp(plain) else None
    if plain in _BOOLEANS:
        return "a boolean"
    if plain in _NULLS:
        return "null"
    if plain[0] in _NUMBER_STARTS:
        if _is_integer(plain):
            return "an integer"
        if _is_float(plain):
            return "a number"
    if plain in _YAML11_BOOLEANS:
        return "a boolean (YAML 1.1 readers such as PyYAML)"
    return None




def _reads_back_as_written(plain: str, reading: str) -> bool:
    """Whether the value a YAML engine makes of `plain` is written the same
    way again (dates and timestamps: the same day or instant)."""
    if reading in _DATE_READINGS:
        return True
    try:
        if reading == "an integer":
            return str(int(plain, 0)) == plain
        if reading == "a number":
            return repr(float(plain)) == plain
    except ValueError:
        return False
    return False  # a boolean or null written otherwise than this reader reads it


def _line_based_reads_text(plain: str) -> bool:
    if plain in _LINE_READS:
        return False
    digits = plain[1:] if plain[:1] == "-" else plain
    return not (digits.isascii() and digits.isdigit())  # what `-?[0-9]+` fullmatches


def _preview(text: str, width: int = 24) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def explain(parsed: ParsedEntry, date_fields: frozenset[str] = frozenset()) -> list[Hazard]:
    """Every place where a YAML engine reads this frontmatter differently."""
    if not parsed.has_frontmatter:
        return []
    readings: list[tuple[str, int, int, str, str]] = []  # (kind, line, column, key, what YAML readers make of it)
    rejected: Hazard | None = None
    for key, line, column, value in islice(parsed.places, MAX_VALUES):
        if not value or value[0] in _QUOTE_OR_INDICATOR:
            continue
        if value[0] not in _SUSPICIOUS_STARTS and "#" not in value and ": " not in value and value[-1] != ":":
            continue  # most values: no rejection, comment or typed reading can start here
        if rejected is None:
            rejected = _plain_rejection(key, line, column, value)
        comment = _comment_start(value)
        if comment >= 0:
            kept = value[:comment].rstrip(" \t")
            kept_type = yaml_type(kept) if kept else "null"
            reading = f"only {kept!r}" + (f" (as {kept_type})" if kept_type else "") if kept else "nothing (null)"
            readings.append(("comment", line, column + comment, key,
                             f"{_preview(value[comment:].lstrip())!r} for a comment and keep {reading}, losing the "
                             "rest; quote the value"))
            continue
        found = yaml_type(value)
        if not found:
            continue
        # List items read as text here; an integer in a text field (`name: 2026`) is no text in either reading.
        if not (key.endswith("[]") or _line_based_reads_text(value) or key in TEXT_FIELDS and found == "an integer"):
            continue
        if key in date_fields and found in _DATE_READINGS:
            continue
        if key not in TEXT_FIELDS and value in _CAPITALISED_BOOLEANS:
            # `hidden: False`: a boolean to YAML, and to the field rules (lenient.py); quoting it would make it text.
            readings.append(("retyped", line, column, key,
                             f"{value!r} as the boolean {value.lower()}, but a reader of the frontmatter subset "
                             f"takes it as the text {value!r}; write {value.lower()}"))
        elif key in TEXT_FIELDS or not _reads_back_as_written(value, found):
            readings.append(("retyped", line, column, key,
                             f"{_preview(value)!r} as {found}, not as the text written; quote it"))
    if rejected is None and not _refers_to_anchors(parsed) and any(
            problem.code in _SUBSET_CODES_YAML_REJECTS for problem in parsed.problems):
        rejected = _yaml_rejection(parsed)
    # A frontmatter a YAML engine rejects gives YAML readers no value at all: what
    # they would make of one matters only once it parses, and quoting the value
    # that is rejected settles whatever else its line holds.
    readers = "once the frontmatter parses, YAML readers (PyYAML, js-yaml) would take" if rejected else \
        "YAML readers (PyYAML, js-yaml) take"
    hazards = [Hazard(kind, line, column, f"{key}: {readers} {reading}")
               for kind, line, column, key, reading in readings if rejected is None or line != rejected.line]
    if rejected is not None and rejected.line not in {problem.line for problem in parsed.problems}:
        hazards.append(rejected)
    return hazards


_REJECTION_NOTE = "so readers that use one (PyYAML, js-yaml) see no fields at all; quote the value"


def _plain_rejection(key: str, line: int, column: int, value: str) -> Hazard | None:
    """The error a YAML engine stops at in an unquoted value, when the value
    alone decides it (block-context plain scalars cannot hold these)."""
    if value[0] in _REJECT_START:
        problem, offset = f"found character {value[0]!r} that cannot start any token", 0
    elif value.startswith("- "):
        problem, offset = "sequence entries are not allowed here", 0
    else:
        offset = value.find(": ")
        if offset < 0 and value.endswith(":"):
            offset = len(value) - 1
        if offset < 0:
            return None
        problem = "mapping values are not allowed here"
    return Hazard("rejected", line, column + offset,
                  f"{key}: a YAML engine rejects the whole frontmatter here ({problem}), {_REJECTION_NOTE}")


def _comment_start(value: str) -> int:
    """Offset of the '#' that starts a YAML comment in a plain value (after a
    space or tab), or -1."""
    if "#" not in value:
        return -1
    found = [place for place in (value.find(" #"), value.find("\t#")) if place >= 0]  # what `[ \t]#` finds
    return min(found) + 1 if found else -1


def _refers_to_anchors(parsed: ParsedEntry) -> bool:
    return any(problem.code in ("anchor", "alias") for problem in parsed.problems)


def _yaml_rejection(parsed: ParsedEntry) -> Hazard | None:
    """Ask a YAML engine to parse the frontmatter (events only: nothing is
    composed, no alias is ever expanded). None when it parses."""
    text = "\n".join(parsed.frontmatter_lines)
    if len(text) > MAX_YAML_CHARS:
        return None
    try:
        from ruamel.yaml import YAML
    except ImportError:  # pragma: no cover - a dependency of the kit
        return None
    engine = YAML(typ="safe", pure=True)
    try:
        for _event in engine.parse(text):
            pass
    except Exception as error:  # any engine failure is the finding itself
        problem = getattr(error, "problem", None) or str(error).splitlines()[0]
        mark = getattr(error, "problem_mark", None)
        line = parsed.frontmatter_start + 1 + (mark.line if mark is not None else 0)
        column = (mark.column + 1) if mark is not None else 1
        return Hazard("rejected", line, column,
                      f"a YAML engine rejects the whole frontmatter here ({problem}), {_REJECTION_NOTE}")
    return None
