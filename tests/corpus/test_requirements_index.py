"""The requirement index loads, is sane, quotes the spec, and misses no normative statement."""

from __future__ import annotations

import json
import re

import pytest

from conformance import SPEC_VERSIONS
from conformance.corpus.requirements import (
    KEYWORDS,
    LEVELS,
    Requirement,
    index_problems,
    load_index,
    normalize_space,
)


def test_every_entry_is_well_formed(requirements):
    ids = [r.id for r in requirements]
    assert len(ids) == len(set(ids))
    assert len(requirements) >= 100
    for requirement in requirements:
        assert requirement.keyword in KEYWORDS
        assert requirement.level in LEVELS
        assert requirement.since in SPEC_VERSIONS
        assert requirement.id.startswith(f"S{requirement.section}-")
        assert requirement.testable or requirement.untestable_reason


def test_every_text_is_quoted_verbatim_from_the_spec(requirements, spec_text):
    assert index_problems(requirements, spec_text=spec_text) == []


def _keyword_positions(text: str) -> list[tuple[int, str]]:
    return [(m.start(), m.group(0)) for m in re.finditer(r"\b(?:MUST NOT|MUST|SHOULD NOT|SHOULD|REQUIRED)\b", text)]


def test_every_normative_keyword_of_the_spec_is_in_some_requirement(requirements, spec_text):
    """Each MUST/SHOULD/REQUIRED occurrence of the spec lies inside the quoted text of some requirement."""
    spec = normalize_space(spec_text)
    covered: list[tuple[int, int]] = []
    for requirement in requirements:
        quoted = normalize_space(requirement.text)
        covered.extend((m.start(), m.end()) for m in re.finditer(re.escape(quoted), spec))
    # The RFC 2119 sentence names the keywords without using them.
    preamble = spec.index("Normative words (MUST, SHOULD, MAY)")
    missing = [
        spec[max(0, at - 60): at + 40]
        for at, _ in _keyword_positions(spec)
        if not (preamble <= at < preamble + 40) and not any(start <= at < end for start, end in covered)
    ]
    assert missing == []


@pytest.mark.parametrize("rid, since", [
    ("S4.1-parked-rendered", "0.1.2"),
    ("S5.2-next-actions-pool-live-and-parked", "0.1.2"),
    ("S5.3.2-goals-completed-goals", "0.1.2"),
    ("S4.1-history-session-id-dedupe", "0.1.2"),
    ("S5.4-unknown-current-keys-pass-through", "0.1.2"),
    ("S5.3.1-purged-wins-merge", "0.1.1"),
    ("S3.2-aliases-retrieval-weight", "0.1.1"),
    ("S5.3.1-hidden-sticky", "0.1"),
])
def test_since_follows_appendix_c(requirements, rid, since):
    assert {r.id: r for r in requirements}[rid].since == since


def test_untestable_requirements_say_why(requirements):
    untestable = [r for r in requirements if not r.testable]
    assert untestable
    assert all(len(r.untestable_reason.split()) >= 6 for r in untestable)


def _write(tmp_path, rows) -> object:
    path = tmp_path / "requirements.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    return path


GOOD = {"id": "S5.2-newest-wins", "section": "5.2", "text": "the copy with the newer value wins MUST",
        "keyword": "MUST", "level": "full", "since": "0.1", "testable": True}


@pytest.mark.parametrize("change, words", [
    ({"keyword": "MAY"}, "keyword 'MAY'"),
    ({"level": "everyone"}, "level 'everyone'"),
    ({"since": "0.2"}, "since '0.2'"),
    ({"testable": False}, "untestable without an untestable_reason"),
    ({"id": "S5.3-newest-wins"}, "does not start with its section"),
    ({"id": "newest wins"}, "id must look like"),
    ({"text": "no keyword here"}, "text has no MUST"),
])
def test_a_bad_entry_is_reported(tmp_path, change, words):
    _, problems = load_index(_write(tmp_path, [{**GOOD, **change}]))
    assert any(words in problem.message for problem in problems), problems


def test_duplicates_missing_fields_and_bad_files_are_problems_not_exceptions(tmp_path):
    _, problems = load_index(_write(tmp_path, [GOOD, GOOD, {"id": "S1-x"}, "text"]))
    messages = " | ".join(p.message for p in problems)
    assert "duplicate id 'S5.2-newest-wins'" in messages
    assert "missing field(s)" in messages and "an entry must be an object" in messages
    (tmp_path / "bad.json").write_text("{", encoding="utf-8")
    loaded, problems = load_index(tmp_path / "bad.json")
    assert loaded == [] and "not JSON" in problems[0].message
    loaded, problems = load_index(tmp_path / "absent.json")
    assert loaded == [] and "not found" in problems[0].message


def test_a_text_not_in_the_spec_is_reported():
    requirement = Requirement(**{**GOOD, "text": "Writers MUST invent things."})
    problems = index_problems([requirement], spec_text="Readers MUST ignore fields.")
    assert [p.message for p in problems] == ["text is not quoted verbatim from the spec"]


def test_quoting_ignores_line_wrapping():
    requirement = Requirement(**{**GOOD, "text": "Readers MUST ignore fields they do not recognize."})
    assert index_problems([requirement], spec_text="Readers MUST ignore\n  fields they do not\nrecognize.") == []
