"""Failures of real runs grouped by cause: one disagreement per broken rule, with the right vectors.

The reports come from feedback_helpers.VARIANTS: the corpus run in-process against the
reference model, mutants of runners/mutants, and small model variants.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.cli import main
from conformance.feedback.causes import group
from conformance.feedback.text_checks import classify
from feedback_helpers import INDEX


def failing(report: dict) -> set[str]:
    return {vector["id"] for vector in report["vectors"] if vector["result"] == "fail"}


def derived_of_failing(report: dict) -> set[str]:
    """Failing derived vectors whose base failed too."""
    ids = failing(report)
    return {vector["id"] for vector in report["vectors"]
            if vector["id"] in ids and vector["derived"] and vector["derived"]["from"] in ids}


def feedback(report_file, tmp_path, capsys) -> str:
    written = tmp_path / "feedback.md"
    assert main(["spec-feedback", str(report_file), "-o", str(written)]) == 0
    capsys.readouterr()
    return written.read_text(encoding="utf-8")


def test_a_clean_run_shows_no_disagreement(reports, report_files, tmp_path, capsys):
    assert reports["reference"]["summary"]["counts"]["fail"] == 0
    text = feedback(report_files["reference"], tmp_path, capsys)
    assert "No disagreements: no vector failed." in text
    assert "#### " not in text


@pytest.mark.parametrize("variant, mutant", [
    ("purged-loses", "04_purged_loses_to_newer"),
    ("unknown-current-keys-dropped", "09_unknown_current_keys_dropped"),
])
def test_a_mutant_is_one_disagreement_charged_to_the_rule_it_breaks(reports, mutant_requirements, variant, mutant):
    report = reports[variant]
    [found] = group(report).disagreements
    assert found.requirement in mutant_requirements[mutant]
    assert classify(found.key, INDEX) == "must"
    assert set(found.vectors) == failing(report) - derived_of_failing(report)
    assert set(found.folded) == derived_of_failing(report)


def test_derived_vectors_are_folded_with_their_base_not_counted(reports, report_files, tmp_path, capsys):
    report = reports["purged-loses"]
    folded = derived_of_failing(report)
    assert folded, "the selection must hold a failing derived vector of a failing base"
    text = feedback(report_files["purged-loses"], tmp_path, capsys)
    units = len(failing(report) - folded)
    assert f"{len(failing(report))} failing vectors show 1 disagreement" in text
    assert f"**Vectors ({units}):**" in text
    assert f"**Derived vectors folded in with their base ({len(folded)}):**" in text


def test_one_rule_seen_through_several_checks_is_one_disagreement(reports, report_files, tmp_path, capsys):
    report = reports["hidden-not-sticky"]
    broken = [found for found in group(report).disagreements if classify(found.key, INDEX) == "must"]
    [sticky] = [found for found in broken if found.requirement == "S5.3.1-hidden-sticky"]
    assert len(sticky.causes) > 1
    assert sum(len(cause.evidence) for cause in sticky.causes) > len(sticky.vectors)
    # Every failing vector is in a disagreement or folded into one.
    shown = {vector_id for found in group(report).disagreements for vector_id in found.vectors + found.folded}
    assert shown == failing(report)
    text = feedback(report_files["hidden-not-sticky"], tmp_path, capsys)
    assert "`S5.3.1-hidden-sticky` also fails under every reading of the text (entry 1)" in text


def test_an_advisory_only_failure_is_a_rule_the_text_leaves_open(reports, report_files, tmp_path, capsys):
    report = reports["lowercasing"]
    assert report["grade"]["must"]["passed"] == report["grade"]["must"]["total"]
    [found] = group(report).disagreements
    assert (classify(found.key, INDEX), found.ambiguity) == ("open", "AMB-CASEFOLD")
    text = feedback(report_files["lowercasing"], tmp_path, capsys)
    assert "the text: left open (AMB-CASEFOLD)" in text
    assert 'AMB-CASEFOLD (what "case-folded" means (5.1)' in text
    assert "the implementation (MUST)" not in text


def test_adapter_faults_and_unsupported_ops_are_set_apart(reports, report_files, tmp_path, capsys):
    report = reports["without-store-merges"]
    grouping = group(report)
    assert grouping.disagreements == []
    assert {(found.kind, found.subject) for found in grouping.errors} == {("crashed", "update_entry"),
                                                                          ("not_sent", "update_entry")}
    assert sum(len(found.details) + len(found.folded) for found in grouping.errors) == \
        report["summary"]["counts"]["error"]
    [unsupported] = grouping.not_applicable
    assert (unsupported.kind, unsupported.subject) == ("op", "merge_stores")
    assert len(unsupported.details) + len(unsupported.folded) == report["summary"]["counts"]["not_applicable"]
    text = feedback(report_files["without-store-merges"], tmp_path, capsys)
    assert "No disagreements: no vector failed." in text
    assert "| `crashed` | `update_entry` |" in text
    assert "| the implementation does not do the op | `merge_stores` |" in text


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_every_failing_vector_is_in_a_disagreement_or_folded_once(reports, data):
    """Whatever part of a run a report holds (a shard, a filter), no failing vector is lost or counted twice."""
    report = data.draw(st.sampled_from(["purged-loses", "hidden-not-sticky", "lowercasing"]))
    vectors = reports[report]["vectors"]
    kept = data.draw(st.lists(st.sampled_from(vectors), unique_by=lambda vector: vector["id"]))
    part = {**reports[report], "vectors": kept}
    grouping = group(part)
    folded = [vector_id for found in grouping.disagreements for vector_id in found.folded]
    shown = {vector_id for found in grouping.disagreements for vector_id in found.vectors}
    assert len(folded) == len(set(folded)) and not shown & set(folded)
    assert shown | set(folded) == failing(part)
    assert grouping.failing_vectors == len(failing(part))
