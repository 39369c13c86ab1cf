"""Grading: cumulative levels, SHOULD and advisory checks, n/a, --spec, expected failures and waivers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from runner_helpers import vector

from conformance.runner.execute import VectorResult
from conformance.runner.grading import (
    ExpectedFailure,
    claimed_level,
    grade,
    grade_vectors,
    load_expected_failures,
    parse_expected_failures,
)
from conformance.runner.requirements import Requirement, RequirementIndex, load_requirements
from conformance.runner.selection import Filters, select
from conformance.runner.vectors import Vector, vector_digest

INDEX = RequirementIndex({
    "R-must": Requirement("R-must", "5.2", "a merge MUST NOT drop an item", "MUST", "full", "0.1", True),
    "R-should": Requirement("R-should", "6", "SHOULD tell the user once", "SHOULD", "full", "0.1", True),
    "R-should-not": Requirement("R-should-not", "3.4", "SHOULD NOT contain secrets", "SHOULD NOT", "full", "0.1", True),
    "R-new": Requirement("R-new", "5.4", "unknown fields pass through", "MUST", "full", "0.1.2", True),
    "R-mid": Requirement("R-mid", "5.3.1", "purged form wins", "MUST", "full", "0.1.1", True),
})


def make(id: str, level: str = "full", requirements=("R-must",), **extra) -> Vector:
    raw = vector(id, level=level, requirements=list(requirements), **extra)
    return Vector(id=id, title=raw["title"], sections=("5.2",), requirements=tuple(requirements), level=level,
                  tags=tuple(raw.get("tags", ())), ambiguity=raw.get("ambiguity"), op=raw["op"], input=raw["input"],
                  expect=tuple(raw["expect"]), digest=vector_digest(raw), file="t.json", root=Path("."))


def outcomes(pairs, expected=(), filtered=False, claimed="full"):
    vectors = [v for v, _ in pairs]
    results = [VectorResult(v.id, outcome) for v, outcome in pairs]
    graded = grade_vectors(vectors, results, INDEX, list(expected))
    return graded, grade(graded, "0.1.2", claimed, filtered=filtered)


def test_all_levels_pass_earns_full():
    _, result = outcomes([(make("r", "reader"), "pass"), (make("w", "writer"), "pass"), (make("f", "full"), "pass")])
    assert result.earned == "full" and result.exit_code == 0
    assert result.verdict == "memoir Full (v0.1.2) earned; SHOULD 0/0"


def test_levels_are_cumulative():
    _, result = outcomes([(make("r", "reader"), "fail"), (make("w", "writer"), "pass"), (make("f", "full"), "pass")])
    assert result.earned is None
    assert not result.levels["writer"].earned and not result.levels["full"].earned
    assert result.levels["full"].blocking == {"fail": ["r"]}
    assert result.exit_code == 1
    assert result.verdict.startswith("no memoir level (v0.1.2) earned; Full claimed, not earned: 1 MUST vector failed")


def test_a_failure_at_full_keeps_writer():
    _, result = outcomes([(make("r", "reader"), "pass"), (make("w", "writer"), "pass"),
                          (make("f1", "full"), "fail"), (make("f2", "full"), "error"), (make("f3", "full"), "fail")])
    assert result.earned == "writer"
    assert result.verdict == ("memoir Writer (v0.1.2) earned; Full claimed, not earned: "
                              "2 MUST vectors failed, 1 adapter error; SHOULD 0/0")
    _, lower_claim = outcomes([(make("r", "reader"), "pass"), (make("w", "writer"), "pass"),
                               (make("f1", "full"), "fail")], claimed="writer")
    assert lower_claim.exit_code == 0 and lower_claim.verdict == "memoir Writer (v0.1.2) earned; SHOULD 0/0"


def test_a_level_no_vector_tests_is_not_earned():
    _, result = outcomes([(make("r", "reader"), "pass"), (make("f", "full"), "pass")])
    assert result.earned == "reader" and result.levels["writer"].untested
    assert "no vector tests Writer" in result.verdict and result.exit_code == 1


def test_ambiguous_vectors_are_advisory_and_never_decide():
    advisory = make("amb", "reader", tags=["ambiguous"], ambiguity="AMB-CASEFOLD")
    graded, result = outcomes([(make("r", "reader"), "pass"), (make("w", "writer"), "pass"),
                               (make("f", "full"), "pass"), (advisory, "fail")])
    assert graded[-1].strengths == ("advisory",) and not graded[-1].decides
    assert result.earned == "full" and result.exit_code == 0
    assert result.verdict.endswith("SHOULD 0/0; advisory 0/1")


def test_should_vectors_are_reported_and_never_decide():
    should_fail = make("s1", "reader", requirements=("R-should",))
    should_pass = make("s2", "writer", requirements=("R-should", "R-should-not"))
    mixed = make("s3", "writer", requirements=("R-should", "R-must"))
    graded, result = outcomes([(make("r", "reader"), "pass"), (make("w", "writer"), "pass"),
                               (make("f", "full"), "pass"), (should_fail, "fail"), (should_pass, "pass"),
                               (mixed, "pass")])
    assert [g.decides for g in graded[3:]] == [False, False, True], "a check that names no requirement checks all"
    assert result.earned == "full"
    assert (result.tallies["should"].passed, result.tallies["should"].total) == (1, 2)
    assert result.verdict == "memoir Full (v0.1.2) earned; SHOULD 1/2"


def test_unknown_requirements_count_as_must():
    graded, _ = outcomes([(make("u", "reader", requirements=("R-unknown",)), "fail")])
    assert graded[0].strengths == ("must",) and graded[0].decides


def test_not_applicable_vectors_keep_the_claim_from_being_earned():
    graded, result = outcomes([(make("r", "reader"), "pass"), (make("w", "writer"), "not_applicable"),
                               (make("f", "full"), "not_applicable")])
    assert result.earned == "reader"
    assert result.levels["writer"].blocking == {"not_applicable": ["w"]}
    assert "Full claimed, not earned: 2 vectors need unsupported ops" in result.verdict
    _, reader_claim = outcomes([(make("r", "reader"), "pass"), (make("w", "writer"), "not_applicable")],
                               claimed="reader")
    assert reader_claim.exit_code == 0


def test_spec_version_leaves_out_vectors_with_newer_requirements():
    vectors = [make("old"), make("mid", requirements=("R-must", "R-mid")), make("new", requirements=("R-new",)),
               make("unknown", requirements=("R-unknown",))]
    chosen, newer = select(vectors, Filters(), INDEX, "0.1")
    assert [v.id for v in chosen] == ["old", "unknown"] and newer == 2
    chosen, newer = select(vectors, Filters(), INDEX, "0.1.1")
    assert [v.id for v in chosen] == ["old", "mid", "unknown"] and newer == 1
    assert len(select(vectors, Filters(), INDEX, "0.1.2")[0]) == 4


def test_spec_version_grades_no_check_citing_a_newer_requirement():
    mixed = make("mixed", requirements=("R-must", "R-new"), expect=[
        {"path": "/live/next_actions", "requirements": ["R-must"], "identities": ["local", "remote"]},
        {"path": "/session/x_kept", "requirements": ["R-new"], "equals": 1},
    ])
    only_new = make("only-new", requirements=("R-must", "R-new"), expect=[
        {"path": "/session/x_kept", "requirements": ["R-new"], "equals": 1}])
    chosen, newer = select([mixed, only_new], Filters(), INDEX, "0.1.1")
    assert [v.id for v in chosen] == ["mixed"] and newer == 1
    kept, = chosen
    assert kept.expect == (mixed.expect[0],) and kept.requirements == ("R-must",) and kept.digest == mixed.digest
    assert select([mixed], Filters(), INDEX, "0.1.2")[0] == [mixed]


def test_spec_version_grades_no_check_of_a_list_it_did_not_have():
    parked = make("parked", expect=[{"path": "/live/next_actions", "identities": ["local", "remote"]},
                                    {"path": "/live/parked_actions", "count": 0},
                                    {"path": "/session/current/completed_goals", "count": 0}])
    kept, = select([parked], Filters(), INDEX, "0.1.1")[0]
    assert [check["path"] for check in kept.expect] == ["/live/next_actions"]


def test_filters_select_by_level_section_tag_and_pattern():
    vectors = [make("merge.a", "full", tags=["tombstone"]), make("read.b", "reader"), make("write.c", "writer")]
    ids = lambda filters: [v.id for v in select(vectors, filters, INDEX, "0.1.2")[0]]
    assert ids(Filters(level="writer")) == ["read.b", "write.c"]
    assert ids(Filters(sections=("5",))) == ["merge.a", "read.b", "write.c"]
    assert ids(Filters(sections=("5.3",))) == []
    assert ids(Filters(tags=("tombstone",))) == ["merge.a"]
    assert ids(Filters(pattern="read")) == ["read.b"]
    assert ids(Filters(pattern="*.c")) == ["write.c"]


def test_filtered_runs_grade_no_level_but_fail_on_failures():
    _, result = outcomes([(make("f", "full"), "pass")], filtered=True)
    assert result.exit_code == 0 and result.verdict.startswith("filtered run, no level graded: 1 of 1")
    _, result = outcomes([(make("f", "full"), "fail"), (make("g", "full"), "pass")], filtered=True)
    assert result.exit_code == 1 and "1 of 2 selected vectors passed (1 MUST failed)" in result.verdict


def _entry(v: Vector, digest: str | None = None) -> ExpectedFailure:
    return ExpectedFailure(v.id, "known bug", digest or v.digest, "https://example.invalid/1")


def test_expected_failures_xfail_xpass_and_stale():
    r, w = make("r", "reader"), make("w", "writer")
    f_fail, f_pass, f_stale = make("f1"), make("f2"), make("f3")
    graded, result = outcomes(
        [(r, "pass"), (w, "pass"), (f_fail, "fail"), (f_pass, "pass"), (f_stale, "fail")],
        expected=[_entry(f_fail), _entry(f_pass), _entry(f_stale, "0" * 64)],
    )
    assert [g.outcome for g in graded] == ["pass", "pass", "xfail", "xpass", "stale"]
    assert result.counts["xfail"] == 1 and result.counts["xpass"] == 1 and result.counts["stale"] == 1
    assert result.levels["full"].blocking == {"fail": ["f3"]}, "a stale entry no longer excuses its failure"
    assert result.exit_code == 1
    assert "1 expected failure; 1 unexpected pass (xpass); 1 stale expect-fail entry" in result.verdict


def test_an_expected_failure_alone_does_not_fail_the_run():
    r, w, f = make("r", "reader"), make("w", "writer"), make("f")
    graded, result = outcomes([(r, "pass"), (w, "pass"), (f, "error")], expected=[_entry(f)])
    assert graded[2].outcome == "xfail" and graded[2].waived
    assert result.earned == "writer" and result.reached_if_waived_fixed == "full" and result.exit_code == 0
    assert result.levels["full"].waived == ["f"] and not result.levels["full"].earned
    assert result.verdict == ("memoir Writer (v0.1.2) earned; Full: not earned, 1 MUST vector waived by the "
                              "expect-fail file; memoir Full only if the waived failures were fixed; SHOULD 0/0; "
                              "1 expected failure")


def test_expect_fail_files_in_json_and_yaml(tmp_path):
    digest = "a" * 64
    (tmp_path / "x.json").write_text(f'[{{"id": "v1", "reason": "bug", "digest": "sha256:{digest}"}}]')
    (tmp_path / "x.yaml").write_text(f"- id: v1\n  reason: bug\n  issue: 42\n  digest: {digest}\n")
    from_json, from_yaml = load_expected_failures(tmp_path / "x.json"), load_expected_failures(tmp_path / "x.yaml")
    assert from_json == [ExpectedFailure("v1", "bug", digest)]
    assert from_yaml == [ExpectedFailure("v1", "bug", digest, "42")]
    (tmp_path / "bad.yaml").write_text("- id: [unclosed\n")
    assert "neither JSON nor YAML" in load_expected_failures(tmp_path / "bad.yaml")


@pytest.mark.parametrize("data, words", [
    ({"id": "v"}, "expected a list"),
    ([{"id": "v", "reason": "r"}], "entry 1: 'digest' must be a non-empty string"),
    ([{"id": "v", "reason": "r", "digest": "abc"}], "64 hex digits"),
    ([{"id": "v", "reason": "r", "digest": "a" * 64, "why": "x"}], "unknown key why"),
    ([{"id": "v", "reason": "r", "digest": "a" * 64}] * 2, "entry 2: 'v' is listed twice"),
])
def test_bad_expect_fail_entries_get_a_clear_message(data, words):
    message = parse_expected_failures(data, "ef.yaml")
    assert isinstance(message, str) and message.startswith("ef.yaml") and words in message


def test_claimed_level():
    assert claimed_level(("reader", "full", "writer"), None) == "full"
    assert claimed_level(("reader", "full"), "writer") == "writer"
    assert claimed_level((), None) is None


def test_requirement_index_tolerates_absence_and_junk(tmp_path):
    assert load_requirements(tmp_path / "nope.json").by_id == {}
    (tmp_path / "bad.json").write_text("{")
    assert "not JSON" in load_requirements(tmp_path / "bad.json").problem
    good = {"id": "S1-a", "section": "1", "text": "x SHOULD y", "keyword": "SHOULD", "level": "reader",
            "since": "0.1", "testable": True}
    (tmp_path / "r.json").write_text(json.dumps([good, {"id": "S1-b", "keyword": "SHOULD"}, 5]))
    index = load_requirements(tmp_path / "r.json")
    assert index.is_should_level(["S1-a"]) and not index.is_should_level([])
    # A broken entry is left out, so a vector naming it counts as MUST (the strict reading).
    assert index.get("S1-b") is None and not index.is_should_level(["S1-b"])
    assert "missing field" in index.problem
