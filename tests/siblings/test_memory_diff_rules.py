"""Memory diff rules: the interpretations behind each one (docs/sibling-formats.md)."""

from __future__ import annotations

import re

import pytest

from conformance.validator import memory_diff
from sibling_helpers import MEMORY_DIFF_FIXTURES

VALID = (MEMORY_DIFF_FIXTURES / "spec.format-example.yaml").read_text(encoding="utf-8")


def rules_of(text: str) -> set[str]:
    return {finding.rule for finding in memory_diff.validate_text(text)}


def with_trigger(kind: str, state: str | None) -> str:
    state_line = f"  state: {state}\n" if state is not None else ""
    return VALID.replace("  kind: pull_request\n  uri: github:example/docs/pull/42\n  state: merged\n",
                         f"  kind: {kind}\n  uri: github:example/docs/pull/42\n{state_line}")


# -- the rule catalogue ----------------------------------------------------------

def test_rule_ids_are_unique_and_say_their_severity():
    ids = [rule.id for rule in memory_diff.RULES]
    assert len(ids) == len(set(ids))
    for rule in memory_diff.RULES:
        match = re.fullmatch(r"MDIFF-([EWI])-[A-Z0-9-]+", rule.id)
        assert match, rule.id
        assert {"E": "error", "W": "warning", "I": "info"}[match.group(1)] == rule.severity
        assert rule.format == "memory-diff"
        assert rule.section.startswith("memory-diff: ")


# -- trigger strength (Source events) -----------------------------------------------

@pytest.mark.parametrize(
    ("kind", "state"),
    [("pull_request", "merged"), ("PR", "Merged"), ("merge-request", "merged"), ("ticket", "accepted"),
     ("issue", "transitioned"), ("incident", "resolved"), ("incident", "postmortem reviewed"),
     ("decision", "approved"), ("ADR", "accepted")],
)
def test_states_that_prove_a_claim(kind, state):
    assert "MDIFF-E-WEAK-TRIGGER" not in rules_of(with_trigger(kind, state))


@pytest.mark.parametrize(
    ("kind", "state"),
    [("pull_request", "open"), ("pull_request", "draft"), ("pull_request", "closed"), ("pull_request", None),
     ("ticket", "proposed"), ("incident", "hypothesis"), ("incident", "investigating"),
     ("decision", "proposed"), ("chat", "posted"), ("message", None)],
)
def test_states_too_weak_for_a_claim(kind, state):
    assert "MDIFF-E-WEAK-TRIGGER" in rules_of(with_trigger(kind, state))


def test_a_weak_trigger_is_fine_when_nothing_is_proposed():
    empty = with_trigger("chat", "posted")
    empty = empty[: empty.index("changes:")] + "changes: []\n" + empty[empty.index("ignored_candidates:"):]
    empty = empty.replace("  decisions:\n    change_01: pending\n", "")
    assert rules_of(empty) == set()


def test_flag_conflict_alone_needs_no_proof():
    text = with_trigger("chat", "posted")
    text = text[: text.index("changes:")] + """changes:
  - id: change_01
    operation: flag_conflict
    reason: The thread contradicts the stored rule.
    target_ids: [mem_route_rule]
    source:
      uri: github:example/docs/pull/42
    conflict_notes: Someone said source paths still work.

""" + text[text.index("ignored_candidates:"):]
    assert rules_of(text) == set()


def test_an_unknown_trigger_kind_is_a_warning_not_an_error():
    findings = memory_diff.validate_text(with_trigger("release", "published"))
    assert [(f.rule, f.severity) for f in findings] == [("MDIFF-W-TRIGGER-KIND-UNKNOWN", "warning")]


# -- positions ------------------------------------------------------------------------

def test_findings_point_at_the_offending_key():
    text = VALID.replace("operation: add", "operation: update")
    [finding] = memory_diff.validate_text(text, "diff.yaml")
    line = next(number for number, content in enumerate(text.splitlines(), 1) if "operation: update" in content)
    assert (finding.path, finding.line, finding.column) == ("diff.yaml", line, 5)
    assert "supersede" in finding.message


def test_a_missing_item_field_points_at_the_item():
    text = VALID.replace("      type: project_fact\n", "")
    [finding] = memory_diff.validate_text(text)
    assert finding.rule == "MDIFF-E-INCOMPLETE-ITEM"
    assert "has no type" in finding.message
    assert text.splitlines()[finding.line - 1].strip() == "item:"


# -- visibility ------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("source", "item", "broader"),
    [("private", "private", False), ("private", "internal", True), ("internal", "public", True),
     ("public", "internal", False), ("internal", "private", False), ("Public", "public", False)],
)
def test_visibility_order_is_private_internal_public(source, item, broader):
    text = VALID.replace("  observed_at: 2026-07-10T11:55:00Z\n\nbasis",
                         f"  observed_at: 2026-07-10T11:55:00Z\n  visibility: {source}\n\nbasis")
    text = text.replace("level: public", f"level: {item}")
    assert ("MDIFF-E-VISIBILITY-BROADER" in rules_of(text)) is broader


def test_a_primary_basis_entry_bounds_visibility():
    text = VALID.replace("  - uri: github:example/docs/pull/42\n    role: primary\n",
                         "  - uri: github:example/docs/pull/42\n    role: primary\n    visibility:\n      level: internal\n")
    assert "MDIFF-E-VISIBILITY-BROADER" in rules_of(text)


def test_a_supporting_source_does_not_bound_visibility():
    text = VALID.replace("  - uri: github:example/docs/commit/abc123\n    role: supporting\n",
                         "  - uri: github:example/docs/commit/abc123\n    role: supporting\n    visibility: private\n")
    assert rules_of(text) == set()


# -- primary source --------------------------------------------------------------------

def test_without_a_basis_the_trigger_is_the_primary_source():
    text = VALID[: VALID.index("basis:")] + VALID[VALID.index("summary:"):]
    assert rules_of(text) == set()


def test_an_empty_basis_has_no_primary_source():
    text = VALID[: VALID.index("basis:")] + "basis: []\n\n" + VALID[VALID.index("summary:"):]
    assert rules_of(text) == {"MDIFF-E-NO-PRIMARY-SOURCE"}


# -- generated summaries ------------------------------------------------------------

def test_an_item_sourced_from_a_summary_passes_with_a_real_primary_source():
    text = VALID.replace("      source:\n        kind: pull_request\n", "      source:\n        kind: generated_summary\n")
    assert rules_of(text) == set()


def test_a_summary_whose_underlying_source_is_uncited_is_rejected():
    text = VALID.replace("      source:\n        kind: pull_request\n",
                         "      source:\n        kind: summary\n        derived_from: [github:example/docs/issues/7]\n")
    assert rules_of(text) == {"MDIFF-E-GENERATED-SUMMARY"}


def test_a_generated_trigger_is_rejected():
    text = VALID.replace("  kind: pull_request\n  uri: github:example/docs/pull/42\n  state: merged\n",
                         "  kind: pull_request\n  uri: github:example/docs/pull/42\n  state: merged\n  generated: true\n")
    assert "MDIFF-E-GENERATED-SUMMARY" in rules_of(text)


# -- conflicts and application ---------------------------------------------------------

def test_a_supersede_that_resolves_a_conflict_needs_evidence_or_review():
    text = VALID.replace("    operation: add\n", "    operation: supersede\n    target_id: mem_old\n    resolves: [change_00]\n")
    assert rules_of(text) == {"MDIFF-E-CONFLICT-RESOLUTION"}
    assert rules_of(text.replace("    resolves: [change_00]\n", "    resolves: [change_00]\n    evidence: [github:example/docs/commit/abc123]\n")) == set()


def test_an_applied_diff_naming_an_unknown_change_is_rejected():
    text = VALID.replace("change_01: pending", "change_01: accepted").replace("reviewed_by: null", "reviewed_by: alice")
    text = text.replace("application:\n  status: not_applied\n  applied_at: null\n",
                        "application:\n  status: applied\n  applied_at: 2026-07-11T09:00:00Z\n"
                        "  accepted_change_ids: [change_01, change_07]\n  resulting_item_ids: [mem_1]\n")
    findings = memory_diff.validate_text(text)
    assert [(f.rule, "change_07" in f.message) for f in findings] == [("MDIFF-E-APPLICATION-RECORD", True)]


# -- reading --------------------------------------------------------------------------

def test_a_missing_file_is_a_diagnostic(tmp_path):
    [finding] = memory_diff.validate_paths([str(tmp_path / "absent.yaml")])
    assert finding.rule == "MDIFF-E-READ" and "no such file" in finding.message


def test_a_file_over_the_size_limit_is_not_parsed(tmp_path):
    path = tmp_path / "big.yaml"
    path.write_text(VALID, encoding="utf-8")
    [finding] = memory_diff.validate_paths([str(path)], max_bytes=100)
    assert finding.rule == "MDIFF-E-READ" and "100-byte limit" in finding.message


def test_a_directory_stands_for_its_yaml_files(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.yaml").write_text(VALID, encoding="utf-8")
    (tmp_path / "sub" / "b.yml").write_text(VALID.replace("operation: add", "operation: delete"), encoding="utf-8")
    (tmp_path / "notes.txt").write_text("not: a diff", encoding="utf-8")
    findings = memory_diff.validate_paths([str(tmp_path)])
    assert [(f.path, f.rule) for f in findings] == [(str(tmp_path / "sub" / "b.yml"), "MDIFF-E-UPDATE-DELETE")]


def test_options_for_other_formats_are_ignored(tmp_path):
    path = tmp_path / "d.yaml"
    path.write_text(VALID, encoding="utf-8")
    assert memory_diff.validate_paths([str(path)], since=str(tmp_path)) == []


@pytest.mark.parametrize("text", ["", "just a string\n", "- a\n- list\n", "null\n"])
def test_documents_that_are_not_mappings_are_schema_findings(text):
    assert rules_of(text) == {"MDIFF-E-SCHEMA"}
