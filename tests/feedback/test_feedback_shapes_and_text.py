"""The parts of a cause taken from the path and the text: path shapes, cited sections, dangling references."""

from __future__ import annotations

import pytest

from conformance.corpus.requirements import Requirement
from conformance.feedback.causes import CauseKey, fault_kind, path_shape
from conformance.feedback.text_checks import (
    cited_sections, classify, dangling, read_sections, sections_from_index, sections_from_spec,
)
from feedback_helpers import INDEX


@pytest.mark.parametrize("path, check, shape", [
    ("", "response", ""),
    ("/steps/0", "response", "/steps/*"),
    ("/session/current/decisions/3/hidden", "contains", "/session/current/decisions/*/hidden"),
    ("/entries/fact_kept/fields/x_colon", "matches", "/entries/<link>/fields/<field>"),
    ("/entries/fields/fields/fields", "matches", "/entries/<link>/fields/<field>"),
    ("/entries/fact_kept/legacy/0", "equals", "/entries/<link>/legacy/*"),
    ("/session/machines/0b6f7c1e-4a57/label", "equals", "/session/machines/<machine>/label"),
    ("/files/memory/fact_a.md", "preserved", "/files/memory/<file>"),
    ("/files/session.json", "preserved", "/files/session.json"),
    ("/session/current/x_focus", "contains", "/session/current/<x_key>"),
    ("/session/x_theme/colour", "equals", "/session/<x_key>/colour"),
    ("/ba/session/current/goals/1", "commutative", "/<merge>/session/current/goals/*"),
    ("/with_local/session/current/goals/1", "idempotent", "/<merge>/session/current/goals/*"),
])
def test_path_shapes_keep_the_place_and_drop_the_vector_data(path, check, shape):
    assert path_shape(path, check) == shape


@pytest.mark.parametrize("detail, kind", [
    ("adapter fault (timeout): no answer within 10s", "timeout"),
    ("adapter fault (crashed): exited with code 1", "crashed"),
    ("not sent: the adapter timed out or crashed on write_entry 5 times in a row", "not_sent"),
    ("something else", "other"),
    (None, "other"),
])
def test_fault_kinds(detail, kind):
    assert fault_kind(detail) == kind


@pytest.mark.parametrize("text, cited", [
    ("every item carries `text` (the identity key, 4.2) and the list's date field", ["4.2"]),
    ("Implementations claiming Full conformance (section 8) MUST implement this section exactly.", ["8"]),
    ("as the legacy fallback in Appendix A", ["A"]),
    ("Rotation out of `next_actions` MUST go to `parked_actions`, not to nowhere (v0.1.2)", []),
    ("the tombstones (5.3.2) and the invariants of 5.4 and 3.3", ["3.3", "5.3.2", "5.4"]),
])
def test_cited_sections(text, cited):
    assert cited_sections(text) == cited


def _requirement(section: str, text: str) -> Requirement:
    return Requirement(id=f"S{section}-made-up", section=section, text=text, keyword="MUST", level="full",
                       since="0.1", testable=True)


def test_the_index_finds_a_reference_to_a_section_nothing_is_filed_under():
    sections = sections_from_index(INDEX)
    assert dangling(INDEX.get("S4.1-items-carry-date-field"), sections) == [
        "the sentence of S4.1-items-carry-date-field cites section 4.2, which points nowhere "
        "(no requirement of the index is in it or under it)"]
    # 3.3 holds no requirement of its own, but 3.3.3 is under it: it exists.
    assert dangling(INDEX.get("S3.2-type-required"), sections) == []


def test_the_spec_headings_say_which_sections_exist():
    sections = sections_from_spec("# The memoir format\n## 5. Merge\n### 5.3 Tombstones\n#### 5.3.1 Hidden\n"
                                  "## Appendix A: Legacy dialects\n")
    assert sections.known == {"5", "5.3", "5.3.1", "A"}
    assert dangling(_requirement("5.3.1", "see 5.3 and Appendix A"), sections) == []
    assert dangling(_requirement("5.9", "see 5.2"), sections) == [
        "S5.9-made-up is filed under section 5.9, which points nowhere (the spec has no heading for it)",
        "the sentence of S5.9-made-up cites section 5.2, which points nowhere (the spec has no heading for it)"]


def test_without_spec_text_the_sections_come_from_the_index(tmp_path):
    assert read_sections(None, INDEX) == sections_from_index(INDEX)
    assert "cannot read" in read_sections(tmp_path / "missing.md", INDEX)


@pytest.mark.parametrize("strength, ambiguity, requirement, kind", [
    ("must", "", "S5.2-newest-wins", "must"),
    ("should", "", "S3.4-readers-resolve-wikilinks", "should"),
    ("advisory", "AMB-TIE", "S5.2-newest-wins", "open"),
    ("must", "", "S5.2-no-such-rule", "nowhere"),
])
def test_classification_follows_the_strength_of_the_check(strength, ambiguity, requirement, kind):
    assert classify(CauseKey(requirement, "equals", "/x", strength, ambiguity), INDEX) == kind
