"""Each plain parser of the validator reads what the pattern it replaced matched (issue 24, item 4).

The validator's patterns on file text became plain parsers (linear by
construction, and cheaper per call than either engine). Here each one is
held to the Python pattern it replaced, on texts drawn from the pattern's
own characters and those where Unicode and ASCII readings part.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.model.entry import wikilink_spans
from conformance.validator.core import output
from conformance.validator.core.positions import LineIndex
from conformance.validator.memoir import entry, session, yaml_hazards
from conformance.validator.reme_vault import links

PARTING = ["\n", "\r", "\v", "\x85", "\xa0", "\u2003", "é", "٣", "_", "\ud800"]


def _texts(pieces, size=16):
    return st.lists(st.sampled_from(sorted(set(pieces) | set(PARTING))), max_size=size).map("".join)


def _found(match, group=0):
    return match.group(group) if match else None


DIGITS = list("0123456789")
YAML_PIECES = DIGITS + ["-", "+", ".", ":", "T", "t", " ", "\t", "Z", "e", "E", "x", "0x", "0o", "f", "A", "8",
                        "inf", "Inf", ".nan", "NaN", "2026-01-02", "2026-1-2", "12:30:45", "+05:30", "-0530"]


YAML_FORMS = [
    r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}",
    r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?"
    r"(?:[ \t]*(?:Z|[-+][0-9]{1,3}(?::?[0-9]{1,3})?))?",
    r"[-+]?[0-9]+|0x[0-9a-fA-F]+|0o[0-7]+",
    r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)",
]


def _near(form: str):
    """Texts of `form` (ASCII digits), as they are or with one piece added (often at the end) or taken away."""
    def change(parts):
        text, extra, cut, at_end = parts
        cut = len(text) if at_end else cut % (len(text) + 1)
        if extra is None:
            return text
        return text[:cut] + text[cut + 1:] if extra == "" else text[:cut] + extra + text[cut:]
    return st.tuples(st.from_regex(re.compile(form, re.ASCII), fullmatch=True),
                     st.sampled_from([None, "", "\n", "0", " ", ":", "-", "Z", ".", "e", "٣"]),
                     st.integers(0, 40), st.booleans()).map(change)


def _reads_alike(value: str) -> None:
    assert yaml_hazards._is_date(value) == bool(re.match(r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}$", value))
    assert yaml_hazards._is_timestamp(value) == bool(re.match(
        r"[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?"
        r"(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::?[0-9]{2})?))?$", value))
    assert yaml_hazards._is_integer(value) == bool(re.match(r"[-+]?[0-9]+$|0x[0-9a-fA-F]+$|0o[0-7]+$", value))
    assert yaml_hazards._is_float(value) == bool(re.match(
        r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$|[-+]?\.(?:inf|Inf|INF)$|\.(?:nan|NaN|NAN)$",
        value))
    assert yaml_hazards._line_based_reads_text(value) == (
        value not in yaml_hazards._LINE_READS and not re.fullmatch(r"-?[0-9]+", value))
    comment = re.search(r"[ \t]#", value)
    assert yaml_hazards._comment_start(value) == (comment.start() + 1 if comment else -1)


@settings(max_examples=800, deadline=None)
@given(value=_texts(YAML_PIECES))
def test_the_yaml_forms_are_read_as_their_patterns_read_them(value):
    _reads_alike(value)


@pytest.mark.parametrize("form", YAML_FORMS, ids=["date", "timestamp", "integer", "float"])
def test_each_yaml_form_and_its_near_misses_are_read_as_the_patterns_read_them(form):
    @settings(max_examples=600, deadline=None)
    @given(value=_near(form))
    def alike(value):
        _reads_alike(value)

    alike()


def test_the_yaml_forms_of_the_bench_and_their_near_misses():
    for value in ("2026-06-12T09:05:00Z", "2026-06-12 09:05:00 +05:30", "2026-06-12t9:05:00.5-0530", "2026-06-12",
                  "2026-6-1", "2026-06-12\n", "2026-06-123", "2026-06-12T09:05:0", "1.5e3", ".5", "5.", "+.inf",
                  "+.nan", "0x1F", "0o17", "0x", "-", "1e5\n", "12\n\n", "a #b", "\t#x", "2026-01-01T10:00:00+12345"):
        _reads_alike(value)


ENTRY_PIECES = ["[[", "]]", "[", "]", "a", "b|c", "#", "\r", "\n", " ", "'", "-", "_", "__", "A", "0", ".",
                "how to apply", "How To Apply", "##", "#######", "   ", "    ", "\t", "applyx", "\u212a"]


@settings(max_examples=1500, deadline=None)
@given(text=st.lists(st.sampled_from(["[[", "]]", "[", "]", "a", "b|c", "\n", "\r", " "]), max_size=16).map("".join))
def test_wikilinks_are_found_where_their_pattern_finds_them(text):
    spans = [(m.start(), m.group(1)) for m in re.finditer(r"\[\[([^\[\]\r\n]+?)\]\]", text)]
    assert wikilink_spans(text) == spans


@settings(max_examples=1000, deadline=None)
@given(text=_texts(ENTRY_PIECES, size=24))
def test_the_entry_checks_read_as_their_patterns_read(text):
    spans = [(m.start(), m.group(1)) for m in re.finditer(r"\[\[([^\[\]\r\n]+?)\]\]", text)]
    assert list(wikilink_spans(text)) == spans
    assert entry.has_how_to_apply_heading(text) == bool(
        re.search(r"^ {0,3}#{1,6}[ \t]+how to apply\b", text, re.IGNORECASE | re.MULTILINE))
    assert entry._joined(text) == re.sub(r"[-_ ]+", "_", text)
    assert entry._quoted(text) == (_found(re.search(r"'([^']*)'", text), 1) or "")
    slug = text[:1] in entry._SLUG_START and not text.strip(entry._SLUG_CHARS)
    assert slug == bool(re.fullmatch(r"[a-z0-9][a-z0-9._-]*", text))
    message = "'" + text + "' is a required property"
    for written in (message, message + "\n", text):
        assert entry._required_property(written) == _found(re.match(r"^'(.+)' is a required property$", written), 1)


@settings(max_examples=300, deadline=None)
@given(value=_texts(list("0123456789abcdefABCDEF"), size=70))
def test_a_text_hash_is_what_its_pattern_fullmatches(value):
    assert session._is_sha256(value) == bool(re.fullmatch(r"[0-9a-f]{64}", value))
    assert session._is_sha256(("0123456789abcdef" * 4)[:64])


@settings(max_examples=300, deadline=None)
@given(text=_texts(["a", "é", "\udc80", "\ud800", " "]))
def test_a_surrogate_is_found_as_its_pattern_found_it(text):
    expected = text if not re.search(r"[\ud800-\udfff]", text) else output.visible(text)
    assert output._text(text) == expected


LINE_PIECES = [" ", "\t", "\u2003", "\x1f", "`", "```", "~~~", "~", "-", "*", "+", "1", "٣", "12", ".", ")", "a",
               "é", "(", "<", ">", '"', "[", "]", "[a](", "b.md", "/", "_", "x.y"]


@settings(max_examples=1200, deadline=None)
@given(line=_texts(LINE_PIECES, size=20).map(lambda text: "".join(text.splitlines())))
def test_the_vault_lines_read_as_their_patterns_read_them(line):
    fence = re.match(r"^\s{0,3}(`{3,}|~{3,})", line)
    assert links._fence(line) == _found(fence, 1)
    item = re.match(r"^\s*(?:[-*+]|\d+[.)])\s+(.*)$", line)
    assert links._list_item(line) == (item.start(1) if item else -1)
    assert links._code_span(line) == _found(re.search(r"`([^`]+)`", line), 1)
    assert links._is_file_name(line) == bool(re.match(r"^[\w.\-/ ]*\w\.\w+$", line))
    for start in range(len(line) + 1):
        tail = re.compile(r"\(\s*<?([^)>\s]+)>?(?:\s+\"[^\"]*\")?\s*\)").match(line, start)
        reached = re.compile(r"\(\s*<?[^)>\s]*").match(line, start)
        assert links._link_tail(line, start) == (_found(tail, 1), -1 if tail or not reached else reached.end())


def test_the_secret_scan_reads_a_text_with_a_lone_surrogate():
    # RE2 reads UTF-8, which has no surrogates: the scan reads them as U+FFFD, in no class either.
    from conformance.validator.memoir import secrets

    key = "AKIA" + "A" * 16
    found = secrets.scan("\ud800 " + key + "\n\udc80" + key)
    assert [(f.kind, f.line, f.column) for f in found] == [("AWS access key id", 1, 3), ("AWS access key id", 2, 2)]
    assert secrets.scan("\udc80" * 10) == []


def _link_places_by_index(body: str, body_line: int) -> tuple:
    index = LineIndex(body)
    places: dict = {}
    for start, inner in wikilink_spans(body):
        target = inner.split("|", 1)[0].split("#", 1)[0].strip()
        if target and target not in places:
            line, column = index.place(start)
            places[target] = (line + body_line - 1, column)
    return tuple((target, line, column) for target, (line, column) in places.items())


@settings(max_examples=1000, deadline=None)
@given(body=st.lists(st.sampled_from(["[[a]]", "[[b|x]]", "[[a#h]]", "[[ ]]", " ", "\n", "\n\n", "\r\n", "xy", "[[",
                                      "]]", "[[c]]", "é"]), max_size=30).map("".join), body_line=st.integers(1, 9))
def test_link_places_count_lines_as_the_line_index_does(body, body_line):
    assert entry._link_places(body, body_line) == _link_places_by_index(body, body_line)
