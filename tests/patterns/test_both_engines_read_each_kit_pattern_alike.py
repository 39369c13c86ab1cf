"""Both engines read each kit pattern alike (issue 24, item 4).

RE2 and Python's `re` differ where a pattern leans on what one of them
means by a shorthand: `\\d`, `\\w`, `\\s` and `\\b` are Unicode in `re` and
ASCII in RE2 (whose `\\s` also lacks `\\v`), and `$` is also before a final
newline in `re`. The kit's RE2 patterns spell out the class they mean, so
each must find the same spans and groups with both engines, on texts made of
the pattern's own characters and of the characters where the engines part:
line breaks other than `\\n`, a no-break space, a letter and a digit past
ASCII. Word boundaries are the one stated exception: RE2 has only ASCII
ones, so a kit pattern's `\\b` means an ASCII boundary, which `re` reads as
`(?a:\\b)`.

The patterns of the JSON schemas are ECMA-262's, searched on RE2
(`conformance.linear_schema`). The kit's schemas keep to what ECMA-262, RE2
and `re` read alike, so each must tell what `re.search` tells of every text
but one that ends with a newline: there `$` parts them, the very end to
ECMA-262 and RE2, also before that newline to `re`.
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).parent))
from linear_probe import _shortest, _walk, package_patterns, python_source  # noqa: E402

from conformance import linear_schema, patterns  # noqa: E402
from conformance.resources import schema_dir  # noqa: E402
from re import _parser  # noqa: E402

PARTING = ["\n", "\r", "\v", "\x85", "\xa0", "é", "٣"]
SCHEMAS = ("entry", "session", "memory-diff", "report", "vector", "adapter-protocol")


def _python_reading(source: str) -> str:
    """How `re` reads an RE2 source: `\\z` is `\\Z`, and `\\b` the ASCII boundary RE2 has."""
    source = python_source(source)
    out, index = [], 0
    while index < len(source):
        step = 2 if source[index] == "\\" else 1
        piece = source[index:index + step]
        out.append("(?a:\\b)" if piece == "\\b" else piece)
        index += step
    return "".join(out)


def _pieces(source: str) -> list[str]:
    chars: set[str] = set()
    runs: list[str] = []
    _walk(_parser.parse(source), chars, runs)
    return sorted(chars | set(runs) | set(PARTING))


def _kit_patterns() -> list[tuple[str, patterns.Pattern, re.Pattern]]:
    found = []
    for entry in package_patterns():
        if not isinstance(entry.pattern, patterns.Pattern):
            continue
        try:
            reference = re.compile(_python_reading(entry.pattern.pattern))
        except re.error:
            continue  # RE2 syntax that `re` lacks: nothing to compare with
        found.append((entry.name, entry.pattern, reference))
    return found


KIT = _kit_patterns()


def _texts(source: str, size: int = 24):
    return st.lists(st.sampled_from(_pieces(source)), max_size=size).map("".join)


def _read(match) -> tuple | None:
    if match is None:
        return None
    spans = tuple(match.span(group) for group in range(len(match.groups()) + 1))
    return spans, match.groups()


def test_the_walk_sees_the_kit_patterns_on_re2():
    names = {name for name, _pattern, _reference in KIT}
    assert "conformance.validator.memoir.secrets._SCANNERS" in names
    assert "conformance.validator.reme_vault.links.WIKILINK" in names


@pytest.mark.parametrize("name, pattern, reference", KIT, ids=[f"{name}:{index}" for index, (name, *_rest)
                                                              in enumerate(KIT)])
def test_both_engines_read_each_kit_pattern_alike(name, pattern, reference):
    @settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
    @given(text=_texts(python_source(pattern.pattern)))
    def alike(text):
        _same(pattern, reference, text)

    alike()
    # A shortest match beside each character where the engines part, which random texts may miss.
    shortest = _shortest(_parser.parse(python_source(pattern.pattern)), {})
    for char in PARTING:
        for cut in range(len(shortest) + 1):
            _same(pattern, reference, shortest[:cut] + char + shortest[cut:])
        for text in (shortest + char + shortest, shortest + char + char, char + char + shortest):
            _same(pattern, reference, text)


def _same(pattern: patterns.Pattern, reference: re.Pattern, text: str) -> None:
    assert _read(pattern.search(text)) == _read(reference.search(text)), text
    assert _read(pattern.match(text)) == _read(reference.match(text)), text
    assert _read(pattern.fullmatch(text)) == _read(reference.fullmatch(text)), text
    assert [_read(m) for m in pattern.finditer(text)] == [_read(m) for m in reference.finditer(text)], text


def _schema_patterns() -> list[str]:
    found: set[str] = set()
    for name in SCHEMAS:
        found.update(linear_schema.schema_patterns(
            json.loads((schema_dir() / f"{name}.schema.json").read_text(encoding="utf-8"))))
    return sorted(found)


@pytest.mark.parametrize("source", _schema_patterns())
def test_each_schema_pattern_finds_on_re2_what_re_finds(source):
    @settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
    @given(text=st.lists(st.sampled_from(_pieces(source) + ["\ud800", "\udfff", "\uffff"]), max_size=30)
           .map("".join).filter(lambda text: not text.endswith("\n")))
    def alike(text):
        assert linear_schema.finds(source, text) == (re.search(source, text) is not None), text

    alike()
    # The shapes the patterns are there for, and their near misses.
    for text in ("2026-01-01", "2026-01-01T09:00:00Z", "x", " ", "\v", "\x85 ", "\xa0", "٣٣٣٣-٣٣-٣٣",
                 "a" * 64, "/a/~0/~2", "stores/a/b", "a/../b", "\ud800", " \ud800 "):
        assert linear_schema.finds(source, text) == (re.search(source, text) is not None), (source, text)


def test_a_final_newline_is_not_the_end_of_a_schema_pattern():
    # ECMA-262's `$` (JSON Schema's dialect), which RE2 shares: `re` alone lets the newline through.
    date = next(source for source in _schema_patterns() if source.startswith("^[0-9]{4}-") and source.endswith("$"))
    assert linear_schema.finds(date, "2026-01-01") and not linear_schema.finds(date, "2026-01-01\n")


def test_the_json_pointer_pattern_that_backtracked_exponentially_is_instant():
    pointer = "^(/([^~]|~[01])*)*$"
    assert pointer in _schema_patterns()
    start = time.process_time()
    assert not linear_schema.finds(pointer, "/" * 100_000 + "~")  # 2^n steps for `re`
    assert time.process_time() - start < 1.0


@pytest.mark.parametrize("source", [r"^(?!/)a", r"(a)\1", r"a{1001}"], ids=["look-ahead", "back-reference", "repeat"])
def test_a_schema_with_a_pattern_re2_refuses_gets_no_validator(source):
    with pytest.raises(patterns.error):
        linear_schema.validator({"type": "string", "pattern": source})
    with pytest.raises(patterns.error):
        linear_schema.validator({"type": "object", "patternProperties": {source: {}}})


def test_schema_errors_keep_jsonschema_s_messages():
    from jsonschema import Draft202012Validator

    schema = {"type": "object", "properties": {"a": {"pattern": "^[0-9]+$"}},
              "patternProperties": {"^x-": {"type": "integer"}}, "additionalProperties": False}
    instance = {"a": "12a", "x-1": "no", "y": 1, "z": 2}
    ours = sorted((e.message, list(e.absolute_path)) for e in linear_schema.validator(schema).iter_errors(instance))
    theirs = sorted((e.message, list(e.absolute_path)) for e in Draft202012Validator(schema).iter_errors(instance))
    assert ours == theirs and len(ours) == 3
