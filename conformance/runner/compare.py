"""The semantic comparison every check keyword and every derived invariant uses.

A check compares what the spec gives meaning to, never the reference
model's bytes (docs/running.md, "Comparison rules"). The rules are written
once, here:

- dates compare as instants (spec 5.2): two spellings of one instant are equal;
- list items align by identity (spec 5.1), never by position: a difference is
  a missing, an extra or a changed item, each shown with its value; objects
  without an identity (history rows) keep their position, as the spec orders
  history, except between two runs, where each pairs with an equal one;
- an entry's links (`/entries/<link>/links`) compare as a set: spec 3.4
  gives the `[[wikilinks]]` of a body no order;
- entry bodies compare up to line-ending style and leading and trailing
  blank lines; an entry file's text compares as its frontmatter fields and
  that body (byte-exactness is `unchanged`'s, for files an op was not asked
  to touch, spec 8);
- a key that says what its absence says is absent: an empty list (4.1: an
  absent list is empty) and `hidden: false` (3.3.3, 5.3.1: only `true` marks
  a tombstone);
- a date an implementation wrote in ISO 8601's basic format (`stamped`,
  `$after`) fails only as advisory where the reading that takes that format
  would pass it (AMB-DATES);
- a frontmatter key the spec does not define, as a reader reports it, is
  advisory (spec 3.2: readers MUST ignore fields they do not recognise);
- a stamp an implementation takes from its own clock (`created_at` and
  `updated_at` filled by migration, `parked_at`) is advisory when two runs
  are compared (derived invariants): a clock never decides across runs.

A `Difference` whose `advisory` is set is reported and never costs a level;
`advisory` says which rule made it so.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, replace

from conformance import patterns
from conformance.model import dates
from conformance.model.frontmatter import parse_entry_text
from conformance.model.identity import item_key

# Fields compared as ISO 8601 dates (spec 3.2, 3.3, 4.1).
DATE_FIELDS = frozenset({
    "added", "set_on", "date", "asked", "done_at", "hidden_at", "parked_at",
    "created_at", "updated_at", "last_seen", "created", "updated", "last_fired",
})
# Frontmatter keys the spec defines: the common fields (3.2) and the type fields (3.3).
SPEC_ENTRY_FIELDS = frozenset({
    "type", "name", "description", "created", "updated", "schema_version", "project", "tags", "aliases",
    "origin", "added", "date", "done_at", "fired_count", "hidden", "hidden_at", "how_to_apply",
    "last_fired", "machine_id", "rejected", "scope", "session_id", "set_on", "source", "superseded_by",
    "tool", "trigger", "why",
})
# Stamps an implementation may take from its clock or defaults, not from its inputs.
CLOCK_STAMPS = frozenset({"created_at", "updated_at", "parked_at"})
# Result-document keys that hold entries (a derived document nests them one level down).
ENTRY_HOLDERS = frozenset({"entries"})
FILE_HOLDERS = frozenset({"files", "local_files", "remote_files"})

# Values that say what the key's absence says. `hidden` MAY be written, and only `true` marks a tombstone
# (3.3.3, 5.3.1): a typed writer's `hidden: false` is no tombstone, spelled out. An absent list is empty (4.1).
MEANS_ABSENT = {"hidden": False}

BASIC_FORMAT = ("AMB-DATES: an ISO 8601 date in the basic format (20261207T231234Z), which the kit reads as the "
                "epoch and other parsers as the instant it spells")
_BASIC_DATE = patterns.compile(
    r"([0-9]{4})([0-9]{2})([0-9]{2})(?:T([0-9]{2})([0-9]{2})(?:([0-9]{2})([.,][0-9]+)?)?)?"
    r"(Z|[+-][0-9]{2}(?:[0-9]{2})?)?")

UNKNOWN_FIELD = "a frontmatter key the spec does not define, as the reader reported it (3.2: readers ignore it)"
CLOCK_STAMP = "a stamp from the implementation's clock, compared between two runs"


class _Missing:
    """Nothing at a JSON Pointer (distinct from JSON null)."""

    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "<absent>"

    def __bool__(self) -> bool:
        return False


MISSING = _Missing()


@dataclass(frozen=True)
class Rules:
    """Where the compared values came from, which decides what is advisory."""

    reader_reported: bool = False   # entries as the implementation's reader reported them (read_store)
    across_runs: bool = False       # two runs of the implementation compared (derived invariants)


STRICT = Rules()


@dataclass(frozen=True)
class Difference:
    path: str
    expected: object
    actual: object
    message: str
    advisory: str | None = None    # why this difference never decides; None: it decides


# --- JSON Pointer ------------------------------------------------------------

def parse_pointer(pointer: str) -> list[str]:
    if pointer == "":
        return []
    if not pointer.startswith("/"):
        raise ValueError(f"{pointer!r} is not a JSON Pointer (it must start with '/')")
    return [token.replace("~1", "/").replace("~0", "~") for token in pointer[1:].split("/")]


def join_pointer(pointer: str, *tokens: object) -> str:
    for token in tokens:
        pointer += "/" + str(token).replace("~", "~0").replace("/", "~1")
    return pointer


def advisory_for(path: str, rules: Rules) -> str | None:
    """Why a difference at `path` never decides under `rules`, or None."""
    try:
        tokens = parse_pointer(path)
    except ValueError:
        return None
    if rules.reader_reported:
        for index in range(len(tokens) - 3):
            if (tokens[index] in ENTRY_HOLDERS and tokens[index + 2] == "fields"
                    and tokens[index + 3] not in SPEC_ENTRY_FIELDS):
                return UNKNOWN_FIELD
    if rules.across_runs and tokens and tokens[-1] in CLOCK_STAMPS:
        return CLOCK_STAMP
    return None


# --- identity ------------------------------------------------------------------

def label(element: object) -> object:
    """How an element is shown in a failure: its text, or its hash when purged."""
    if isinstance(element, dict):
        key = item_key(element)
        if element.get("hidden") is True and isinstance(element.get("text_hash"), str):
            return f"sha256:{key}"
        return element.get("text", element)
    return element


def _key(element: object) -> str | None:
    return item_key(element) if isinstance(element, dict) else None


def _aligned(expected: list, actual: list, rows_unordered: bool) -> bool:
    """Session items align by identity, never by position. Rows without an
    identity (history) keep their position, since the spec orders history
    (newest first, 4.1), except between two runs, where rows of equal date
    may come in either order."""
    if any(_key(element) is not None for element in (*expected, *actual)):
        return True
    return rows_unordered and any(isinstance(element, dict) for element in (*expected, *actual))


def canonical(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


# --- scalars: dates, bodies, entry texts ----------------------------------------

def same_instant(expected: object, actual: object) -> bool:
    """Two spellings of one ISO 8601 instant (spec 5.2 compares dates as instants)."""
    first, second = dates.parse_date(expected), dates.parse_date(actual)
    return first is not None and first == second


def extended_spelling(value: object) -> str | None:
    """The extended spelling of a valid ISO 8601 date or date-time in the basic format (`20261207T231234Z`
    -> `2026-12-07T23:12:34Z`), else None. ISO 8601 has both formats; the kit's reading (AMB-DATES) takes
    only the extended one, so a basic-format date in what an implementation wrote never decides alone."""
    found = _BASIC_DATE.fullmatch(value) if isinstance(value, str) else None
    if found is None:
        return None
    year, month, day, hour, minute, second, fraction, offset = found.groups()
    extended = f"{year}-{month}-{day}"
    if hour is not None:
        extended += f"T{hour}:{minute}" + (f":{second}{fraction or ''}" if second else "")
    extended += offset or ""
    return extended if dates.is_iso8601(extended) else None


def normalized_body(text: str) -> str:
    """A body up to line-ending style and leading and trailing blank lines."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return "\n".join(line.rstrip("\n") for line in lines)


def _same_entry_text(expected: str, actual: str) -> bool:
    """Two entry files with the same frontmatter fields (dates as instants)
    and the same body up to line endings and edge blank lines."""
    first = parse_entry_text(expected.replace("\r\n", "\n"))
    second = parse_entry_text(actual.replace("\r\n", "\n"))
    if not (first.has_frontmatter and second.has_frontmatter) or first.problems or second.problems:
        return False
    if normalized_body(first.body) != normalized_body(second.body):
        return False
    return not any(True for _ in differences(first.fields, second.fields, ""))


def _kind(path: str) -> str | None:
    """What a string at `path` is: "date", "body", "entry_text" or None."""
    try:
        tokens = parse_pointer(path)
    except ValueError:
        return None
    if not tokens:
        return None
    if tokens[-1] in DATE_FIELDS:
        return "date"
    if tokens[-1] == "body" and len(tokens) >= 3 and tokens[-3] in ENTRY_HOLDERS:
        return "body"
    if len(tokens) >= 2 and tokens[-2] in FILE_HOLDERS and tokens[-1].endswith(".md"):
        return "entry_text"
    return None


def _same_scalar(expected: object, actual: object, path: str) -> bool:
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is type(actual) and expected == actual
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        return expected == actual
    if type(expected) is not type(actual):
        return False
    if expected == actual:
        return True
    if not isinstance(expected, str):
        return False
    kind = _kind(path)
    if kind == "date":
        return same_instant(expected, actual)
    if kind == "body":
        return normalized_body(expected) == normalized_body(actual)
    if kind == "entry_text":
        return _same_entry_text(expected, actual)
    return False


def short(value: object, limit: int = 80) -> str:
    if value is MISSING:
        return "nothing"
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# --- deep comparison -------------------------------------------------------------

def differences(expected: object, actual: object, path: str, rules: Rules = STRICT) -> Iterator[Difference]:
    """Every place where `actual` differs from `expected` in meaning, each at
    its deepest path, deciding ones first, each marked advisory where a rule
    says so. A missing key and a value that means its absence are the same
    (`means_absent`: an absent session list equals [])."""
    if _identical(expected, actual):
        return
    found = list(_differences(expected, actual, path, rows_unordered=rules.across_runs))
    marked = [replace(item, advisory=advisory_for(item.path, rules)) for item in found]
    yield from sorted(marked, key=lambda item: item.advisory is not None)


def _identical(expected: object, actual: object) -> bool:
    """The same JSON value, to the type of each scalar: then no rule below finds a difference, and
    the walk is skipped (most comparisons are of equal documents; the encoder is C, the walk Python)."""
    def text(value: object) -> str:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)

    try:
        return text(expected) == text(actual)
    except (TypeError, ValueError):  # not JSON (NaN among it): the walk decides
        return False


def deciding(found: Iterator[Difference]) -> list[Difference]:
    return [item for item in found if item.advisory is None]


def means_absent(key: str, value: object) -> bool:
    """Whether `key: value` says what leaving the key out says (`MEANS_ABSENT`, or an empty list)."""
    return value == [] or (key in MEANS_ABSENT and value is MEANS_ABSENT[key])


def _differences(expected: object, actual: object, path: str, rows_unordered: bool = False) -> Iterator[Difference]:
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in expected:
            if key not in actual:
                if not means_absent(key, expected[key]):
                    yield Difference(join_pointer(path, key), expected[key], MISSING, f"missing field {key!r}")
                continue
            yield from _differences(expected[key], actual[key], join_pointer(path, key), rows_unordered)
        for key in actual:
            if key not in expected and not means_absent(key, actual[key]):
                yield Difference(join_pointer(path, key), MISSING, actual[key], f"unexpected field {key!r}")
        return
    if isinstance(expected, list) and isinstance(actual, list):
        if _is_link_list(path) and all(isinstance(link, str) for link in (*expected, *actual)):
            yield from _link_differences(expected, actual, path)
            return
        if _aligned(expected, actual, rows_unordered):
            yield from _aligned_differences(expected, actual, path, rows_unordered)
            return
        for index, (want, got) in enumerate(zip(expected, actual)):
            yield from _differences(want, got, join_pointer(path, index), rows_unordered)
        if len(expected) != len(actual):
            index = min(len(expected), len(actual))
            want = expected[index] if index < len(expected) else MISSING
            got = actual[index] if index < len(actual) else MISSING
            yield Difference(join_pointer(path, index), want, got,
                             f"expected {len(expected)} elements, found {len(actual)}")
        return
    if expected == [] and actual is MISSING:
        return
    if isinstance(expected, (dict, list)) or isinstance(actual, (dict, list)) or not _same_scalar(
            expected, actual, path):
        yield Difference(path, expected, actual, f"expected {short(expected)}, found {short(actual)}")


def _is_link_list(path: str) -> bool:
    if not path.endswith("/links"):
        return False  # most lists: no pointer to parse
    try:
        tokens = parse_pointer(path)
    except ValueError:
        return False
    return len(tokens) >= 3 and tokens[-1] == "links" and tokens[-3] in ENTRY_HOLDERS


def _link_differences(expected: list[str], actual: list[str], path: str) -> Iterator[Difference]:
    """Link names missing and extra, in any order and however often each is listed."""
    wanted, found = set(expected), set(actual)
    for link in dict.fromkeys(expected):
        if link not in found:
            yield Difference(path, link, MISSING, f"missing link {short(link)} (links compare as a set, 3.4)")
    reported: set[str] = set()
    for index, link in enumerate(actual):
        if link not in wanted and link not in reported:
            reported.add(link)
            yield Difference(join_pointer(path, index), MISSING, link, f"extra link {short(link)}")


def _aligned_differences(expected: list, actual: list, path: str, rows_unordered: bool) -> Iterator[Difference]:
    """A list of session items, aligned by identity (5.1): every missing,
    extra and changed item. Copies of one identity pair up in a fixed order
    (so a list equals itself even where normalization makes two texts one
    identity); elements without an identity pair with an equal element."""
    wanted: dict[str | None, list[object]] = {}
    for element in expected:
        wanted.setdefault(_key(element), []).append(element)
    found: dict[str | None, list[tuple[int, object]]] = {}
    for index, element in enumerate(actual):
        found.setdefault(_key(element), []).append((index, element))
    for key, copies in wanted.items():
        if key is None:
            continue
        copies = sorted(copies, key=canonical)
        present = sorted(found.get(key, []), key=lambda pair: canonical(pair[1]))
        for position, want in enumerate(copies):
            if position >= len(present):
                yield Difference(path, want, MISSING, f"missing item {short(label(want))} (items align by identity)")
                continue
            index, got = present[position]
            yield from _differences(want, got, join_pointer(path, index), rows_unordered)
        for index, got in present[len(copies):]:
            yield Difference(join_pointer(path, index), MISSING, got, f"extra item {short(label(got))}")
    for key, present in found.items():
        if key is not None and key not in wanted:
            for index, got in present:
                yield Difference(join_pointer(path, index), MISSING, got, f"extra item {short(label(got))}")
    # Elements without an identity: each pairs with an equal one wherever it is.
    unpaired = list(found.get(None, []))
    for want in wanted.get(None, []):
        match = next((pair for pair in unpaired
                      if not any(True for _ in _differences(want, pair[1], "", rows_unordered))), None)
        if match is None:
            yield Difference(path, want, MISSING, f"missing element {short(want)} (it has no identity)")
        else:
            unpaired.remove(match)
    for index, got in unpaired:
        yield Difference(join_pointer(path, index), MISSING, got, f"extra element {short(got)} (it has no identity)")


def subset_differences(expected: dict, actual: object, path: str) -> Iterator[Difference]:
    """Where `actual` lacks a field of `expected` or differs in one (recursively
    for objects); a null field in `expected` must be absent from `actual`."""
    if not isinstance(actual, dict):
        yield Difference(path, expected, actual, f"expected an object, found {type_name(actual)}")
        return
    for key, want in expected.items():
        where = join_pointer(path, key)
        if want is None:
            if key in actual and not means_absent(key, actual[key]):
                yield Difference(where, MISSING, actual[key], f"field {key!r} must be absent")
            continue
        if key not in actual:
            if not means_absent(key, want):
                yield Difference(where, want, MISSING, f"missing field {key!r}")
            continue
        if is_after_matcher(want):
            yield from _after_differences(want["$after"], actual[key], where)
        elif isinstance(want, dict):
            yield from subset_differences(want, actual[key], where)
        else:
            yield from _differences(want, actual[key], where)


def is_after_matcher(value: object) -> bool:
    """`{"$after": DATE}` in a subset match: a date a writer stamps now, which
    a vector cannot know, but which must not be earlier than a date it does
    know (an equal instant passes: 5.3.2 needs only "not later than" on the
    other side)."""
    return isinstance(value, dict) and set(value) == {"$after"}


def _after_differences(bound: str, actual: object, path: str) -> Iterator[Difference]:
    wanted = f"a date not earlier than {bound}"
    if dates.parse_date(actual) is None:
        extended = extended_spelling(actual)
        if extended is None:
            yield Difference(path, wanted, actual, "not an ISO 8601 date")
        elif dates.sort_key(extended) < dates.sort_key(bound):
            yield Difference(path, wanted, actual, f"earlier than {bound}")
        else:  # not earlier in the reading that takes the basic format
            yield Difference(path, wanted, actual, "a basic-format date", advisory=BASIC_FORMAT)
    elif dates.sort_key(actual) < dates.sort_key(bound):
        yield Difference(path, wanted, actual, f"earlier than {bound}")


def type_name(value: object) -> str:
    if value is MISSING:
        return "nothing"
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number")
