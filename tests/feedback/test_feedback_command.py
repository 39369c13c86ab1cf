"""`memoir-conform spec-feedback`: its output for several reports, its determinism, and bad input."""

from __future__ import annotations

import copy
import re
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance import resources
from conformance.cli import main
from conformance.corpus.ambiguities import ambiguity_titles
from conformance.feedback import markdown
from conformance.feedback.causes import group
from conformance.feedback.sizes import Sizer
from conformance.feedback.text_checks import sections_from_index

from feedback_helpers import INDEX, cached_corpus


@pytest.fixture(scope="module")
def context():
    corpus = cached_corpus((resources.vectors_dir(),))
    return markdown.Context(INDEX, sections_from_index(INDEX), ambiguity_titles(), corpus.digest), corpus


def rendered(report: dict, context) -> str:
    known, corpus = context
    sizer = Sizer(corpus.vectors, report["implementation"]["describe"]["caps"])
    return markdown.render([markdown.Section("label", report, group(report), sizer)], known)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(order=st.randoms(use_true_random=False), duration=st.floats(min_value=0, max_value=1e6))
def test_the_order_of_the_vectors_and_the_timings_change_nothing(reports, context, order, duration):
    report = reports["hidden-not-sticky"]
    shuffled = copy.deepcopy(report)
    order.shuffle(shuffled["vectors"])
    shuffled["duration_s"] = duration
    for vector in shuffled["vectors"]:
        vector["duration_s"] = duration
    assert rendered(shuffled, context) == rendered(report, context)


def test_several_reports_make_one_section_each_after_an_overview(report_files, tmp_path, capsys):
    written = tmp_path / "feedback.md"
    assert main(["spec-feedback", str(report_files["purged-loses"]), str(report_files["lowercasing"]),
                 "-o", str(written)]) == 0
    assert "2 run report(s)" in capsys.readouterr().out
    text = written.read_text(encoding="utf-8")
    assert "| report | graded at spec | verdict | disagreements |" in text
    assert "| 1 MUST broken |" in text and "| 1 left open |" in text
    assert text.count("\n## 1. ") == 1 and text.count("\n## 2. ") == 1


def test_standard_output_with_a_dash(report_files, capsys):
    assert main(["spec-feedback", str(report_files["lowercasing"]), "-o", "-"]) == 0
    assert capsys.readouterr().out.startswith("# Spec feedback: ")


def charged_to(requirement: str, report: dict, tmp_path) -> str:
    """A copy of `report` whose every failure checks `requirement` only, written to a file."""
    report = copy.deepcopy(report)
    for vector in report["vectors"]:
        for failure in vector["failures"]:
            failure["requirements"] = [requirement]
    path = tmp_path / "run.json"
    path.write_text(json.dumps(report), encoding="utf-8")
    return str(path)


def test_a_requirement_the_index_lacks_points_nowhere(reports, tmp_path, capsys):
    path = charged_to("S5.4-no-such-rule", reports["unknown-current-keys-dropped"], tmp_path)
    assert main(["spec-feedback", path, "-o", "-"]) == 0
    text = capsys.readouterr().out
    assert "| 1 | the text: points nowhere | `S5.4-no-such-rule` |" in text
    assert "which the requirement index does not have" in text


def test_a_cross_reference_to_a_missing_section_is_shown_with_the_disagreement(reports, tmp_path, capsys):
    # S4.1-items-carry-date-field cites "(the identity key, 4.2)": the spec has no section 4.2.
    path = charged_to("S4.1-items-carry-date-field", reports["unknown-current-keys-dropped"], tmp_path)
    spec = tmp_path / "spec.md"
    spec.write_text("# The memoir format\n## 4. Session state file\n### 4.1 Shape\n", encoding="utf-8")
    assert main(["spec-feedback", path, "-o", "-", "--spec-text", str(spec)]) == 0
    text = capsys.readouterr().out
    assert "cites section 4.2, which points nowhere (the spec has no heading for it)" in text


def _not_a_report(path):
    path.write_text("[]", encoding="utf-8")


def _not_json(path):
    path.write_text("{ nope", encoding="utf-8")


def _older_report(path, report):
    path.write_text(json.dumps({**report, "report_version": 1}), encoding="utf-8")


def _broken_report(path, report):
    path.write_text(json.dumps({key: value for key, value in report.items() if key != "grade"}), encoding="utf-8")


@pytest.mark.parametrize("make, said", [
    (None, "cannot read"),
    (_not_json, "not JSON"),
    (_not_a_report, "not a memoir-conform run report"),
    (_older_report, "report_version 1, this kit reads 2"),
    (_broken_report, "'grade' is a required property"),
])
def test_bad_input_is_a_clear_error_with_exit_2(reports, tmp_path, capsys, make, said):
    path = tmp_path / "run.json"
    if make is _older_report or make is _broken_report:
        make(path, reports["reference"])
    elif make:
        make(path)
    written = tmp_path / "feedback.md"
    assert main(["spec-feedback", str(path), "-o", str(written)]) == 2
    error = capsys.readouterr().err
    assert error.startswith("memoir-conform spec-feedback: ") and said in error
    assert "Traceback" not in error
    assert not written.exists()


def test_an_unreadable_spec_text_or_unwritable_output_is_exit_2(report_files, tmp_path, capsys):
    report = str(report_files["reference"])
    assert main(["spec-feedback", report, "-o", "-", "--spec-text", str(tmp_path / "missing.md")]) == 2
    assert "cannot read the spec text" in capsys.readouterr().err
    headless = tmp_path / "notes.md"
    headless.write_text("no headings here\n", encoding="utf-8")
    assert main(["spec-feedback", report, "-o", "-", "--spec-text", str(headless)]) == 2
    assert "no numbered section headings" in capsys.readouterr().err
    assert main(["spec-feedback", report, "-o", str(tmp_path)]) == 2
    assert "cannot write" in capsys.readouterr().err


def test_no_report_is_a_usage_error(capsys):
    assert main(["spec-feedback", "-o", "-"]) == 2
    assert "RUN.json" in capsys.readouterr().err


def test_text_from_the_report_cannot_break_the_markdown(reports, context):
    report = copy.deepcopy(reports["unknown-current-keys-dropped"])
    for vector in report["vectors"]:
        vector["title"] = "<script>alert(1)</script> **bold** \x1b[31m\nnew line"
        for failure in vector["failures"]:
            failure["check"] = "con|tains`"
            failure["message"] = "```\n# not a heading"
    text = rendered(report, context)
    assert "<script>" not in text and "\x1b" not in text and "\n# not a heading" not in text
    rows = [line for line in text.splitlines() if line.startswith("| ") and "con" in line]
    assert rows and all(re.sub(r"\\\|", "", row).count("|") == 4 for row in rows)


def test_an_advisory_failure_that_names_no_interpretation_is_still_shown(reports, context):
    report = copy.deepcopy(reports["lowercasing"])
    [advisory] = [vector for vector in report["vectors"] if vector["result"] == "fail"]
    unnamed = {**copy.deepcopy(advisory), "id": advisory["id"] + "-unnamed"}
    for failure in unnamed["failures"]:
        del failure["ambiguity"]
    report["vectors"].append(unnamed)
    text = rendered(report, context)
    assert "the text: left open (AMB-CASEFOLD)" in text
    assert "the text: left open (no interpretation named)" in text
