"""Every regular expression of the package runs in time linear in its input (issue 24, item 4).

Each compiled pattern of `conformance` (and each literal pattern passed to
`re.search` and friends, and each `pattern` of the JSON schemas that
validate adapter output) is applied, the way the package applies it, to
hostile texts derived from the pattern at two sizes, 256 and 1024
characters. Time growing faster than the size (more than 8 times for 4
times the text: a linear pattern takes 4, a quadratic one 16), confirmed by
measuring again, above 0.2 ms for the larger text, and again from 1024 to
4096 characters (one slow measurement on a shared machine is not a
quadratic pattern; a quadratic one grows 16 times at each step), fails the
test. A pattern that needs 20 ms for 256 characters fails at once (the
larger size would take seconds to minutes).

The kit's own patterns all run on RE2 (tests/patterns/test_one_engine.py),
whose one search is linear in the text whatever the pattern. What the probe
can still catch there is the binding's cost per call and per match (the
text encoded again at each call: conformance/patterns.py), which grows with
the number of matches, not with the pattern's structure: those patterns are
probed on an even sample of RE2_SHAPES of their shapes, not on all of them
(over 8,000 for the secret scanners, most of the time of this module). A
pattern on Python's `re`, where a shape can be exponential, is probed on
every shape.
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from linear_probe import (applying, cost, hostile_shapes, hostile_text,  # noqa: E402
                          inline_pattern_calls, package_patterns)

from conformance import linear_schema, patterns  # noqa: E402
from conformance.model.entry import first_heading, wikilink_spans  # noqa: E402
from conformance.resources import schema_dir  # noqa: E402
from conformance.validator.memoir.entry import looks_like_index  # noqa: E402
from conformance.validator.reme_vault.links import wikilinks  # noqa: E402

SMALL, LARGE, FACTOR = 256, 1024, 8.0
CONFIRM = 4 * LARGE
RE2_SHAPES = 64
SLOW_AT_ONCE = 0.02  # seconds for the smaller text: no linear pattern comes near (80 µs a character)
FLOOR = 2e-4  # under 0.2 ms for the larger text (200 ns a character) is linear enough, whatever the noise
# Patterns applied on the spot from text that is not a literal: each with why it is safe
# (a pattern compiled from such text is found, and probed, as a compiled pattern).
EXEMPT_INLINE = {
    "conformance.corpus.requirements": "a requirement's keyword (MUST, SHOULD, ...) searched in the spec's own text",
}


def _once(apply, text: str) -> float:
    start = time.process_time()
    apply(text)
    return time.process_time() - start


def _too_slow(apply, shapes) -> str | None:
    for prefix, piece in shapes:
        first = _once(apply, hostile_text(prefix, piece, SMALL))
        if first < 2e-5:
            continue  # under 80 ns a character: nothing to measure
        if first > SLOW_AT_ONCE:
            first = min(first, _once(apply, hostile_text(prefix, piece, SMALL)))  # not a garbage collection
            if first > SLOW_AT_ONCE:
                return f"{prefix!r} + {piece!r} x {SMALL // len(piece)}: {first:.2f} s"
        small = cost(apply, hostile_text(prefix, piece, SMALL))
        large = cost(apply, hostile_text(prefix, piece, LARGE))
        for _again in range(3):  # a shared machine is noisy: the best of several measurements decides
            if large <= FACTOR * max(small, 1e-6) or large < FLOOR:
                break
            small = min(small, cost(apply, hostile_text(prefix, piece, SMALL)))
            large = min(large, cost(apply, hostile_text(prefix, piece, LARGE)))
        if large > FACTOR * max(small, 1e-6) and large >= FLOOR:
            larger = cost(apply, hostile_text(prefix, piece, CONFIRM))
            if larger <= FACTOR * large:
                continue  # linear from 1024 on: the step before was noise
            return (f"{prefix!r} + {piece!r}: {small * 1e3:.2f} ms at {SMALL}, {large * 1e3:.2f} ms at {LARGE}, "
                    f"{larger * 1e3:.2f} ms at {CONFIRM}")
    return None


def _shapes(pattern) -> list[tuple[str, str]]:
    shapes = hostile_shapes(pattern)
    if isinstance(pattern, patterns.Pattern) and len(shapes) > RE2_SHAPES:
        return [shapes[index * len(shapes) // RE2_SHAPES] for index in range(RE2_SHAPES)]
    return shapes


def _schema_patterns() -> list[str]:
    found: set[str] = set()
    for name in ("entry", "session", "memory-diff", "report", "vector", "adapter-protocol"):
        found.update(linear_schema.schema_patterns(
            json.loads((schema_dir() / f"{name}.schema.json").read_text(encoding="utf-8"))))
    return sorted(found)


def test_every_compiled_pattern_is_linear():
    found = package_patterns()
    assert len(found) > 40  # the walk sees the package
    slow = []
    for entry in found:
        for method in sorted(entry.modes):
            why = _too_slow(applying(entry.pattern, method), _shapes(entry.pattern))
            if why:
                slow.append(f"{entry.name}.{method}: {why}")
    assert not slow, "\n".join(slow)


def test_every_inline_pattern_is_linear_or_exempt():
    slow = []
    for call in inline_pattern_calls():
        if call.pattern is None and call.method != "compile":
            assert call.where.split(":")[0] in EXEMPT_INLINE, f"{call.where}: a pattern that is not a literal"
            continue
        if call.method == "compile":
            continue  # a compiled pattern is probed, the way it is applied, by the test above
        pattern = re.compile(call.pattern)
        why = _too_slow(applying(pattern, call.method), hostile_shapes(pattern))
        if why:
            slow.append(f"{call.where} {call.pattern!r}: {why}")
    assert not slow, "\n".join(slow)


def test_schema_patterns_are_linear():
    # As the kit's validators apply them: searched on RE2 (conformance.linear_schema).
    slow = []
    for source in _schema_patterns():
        pattern = patterns.compile(source)
        why = _too_slow(applying(pattern, "search"), _shapes(pattern))
        if why:
            slow.append(f"{source!r}: {why}")
    assert len(_schema_patterns()) > 10 and not slow, "\n".join(slow)


@pytest.mark.parametrize("source, method", [
    (r" {0,3}#[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$", "match"),
    (r"[ \t]*[-*+][ \t]+\[[^\]\r\n]+\]\([^)\r\n]+\.md(?:#[^)]*)?\)", "match"),
    (r"(`+)(?:(?!\1).)+?\1", "sub"),
], ids=["model-heading", "validator-index-line", "reme-code-span"])
def test_the_probe_catches_the_patterns_of_issue_24(source, method):
    # The three patterns this test was written after: the probe must see each.
    former = re.compile(source)
    assert _too_slow(applying(former, method), hostile_shapes(former))


def _grows_linearly(function, make, small=20_000) -> bool:
    # Judged as `_too_slow` judges a pattern: the best of several runs at each size, and a step that
    # grew too much confirmed by the next one (a quadratic function grows 16 times at every step).
    def took(size):
        return max(cost(function, make(size)), 1e-5)
    before, after = took(small), took(4 * small)
    for _again in range(3):
        if after <= FACTOR * before:
            return True
        before, after = min(before, took(small)), min(after, took(4 * small))
    return took(16 * small) <= FACTOR * after


@pytest.mark.parametrize("function, make", [
    (first_heading, lambda n: "# a" + " \t" * (n // 2) + "x"),
    (looks_like_index, lambda n: "- [a](" + ".md#" * (n // 4) + ")\n- [a](a.md)\n- [b](b.md)\n"),
    (wikilinks, lambda n: "`" * n),
    (wikilink_spans, lambda n: "[[" * (n // 2)),
    (wikilink_spans, lambda n: "[[a]" * (n // 4) + "]]"),
], ids=["model-heading", "validator-index-line", "reme-code-span", "model-link-openings", "model-link-near-misses"])
def test_the_inputs_of_issue_24_take_linear_time(function, make):
    assert _grows_linearly(function, make)
