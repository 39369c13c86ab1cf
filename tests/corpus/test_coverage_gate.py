"""Coverage: every testable MUST (and SHOULD) requirement has a vector that does not depend on an ambiguity."""

from __future__ import annotations

from pathlib import Path

from conformance.corpus.boundaries import BoundaryIndex, BoundaryKind, index_problems, load_boundaries
from conformance.corpus.coverage import compute
from conformance.corpus.requirements import Requirement
from conformance.runner.vectors import Vector


def test_every_testable_must_has_a_non_ambiguous_vector(requirements, corpus):
    report = compute(requirements, corpus.vectors)
    assert [row.requirement.id for row in report.gaps("MUST")] == []


def test_every_testable_should_has_a_vector(requirements, corpus):
    report = compute(requirements, corpus.vectors)
    assert [row.requirement.id for row in report.gaps("SHOULD")] == []


def test_every_vector_cites_known_requirements(requirements, corpus):
    assert compute(requirements, corpus.vectors).unknown_references == {}


def test_boundary_index_classifies_every_testable_must(requirements):
    index, problems = load_boundaries()
    assert problems == [] and index is not None
    assert index_problems(index, requirements) == []


def test_every_applicable_boundary_case_has_a_deciding_vector(requirements, corpus):
    index, _ = load_boundaries()
    report = compute(requirements, corpus.vectors, boundaries=index)
    assert report.boundary_gaps() == []
    assert len(report.boundary_cases()) >= 90


def test_every_member_of_a_boundary_subject_has_its_kinds(requirements, corpus):
    index, _ = load_boundaries()
    report = compute(requirements, corpus.vectors, boundaries=index)
    assert [(case.member, case.kind) for case in report.subject_gaps()] == []
    assert len(report.subject_cases) >= 40


def test_corpus_size_and_areas(corpus):
    assert len(corpus.vectors) >= 150
    areas = {vector.id.split(".")[0] for vector in corpus.vectors}
    assert {"merge", "read", "write"} <= areas
    ops = {vector.op for vector in corpus.vectors}
    assert ops == {"merge_sessions", "read_store", "write", "merge_stores", "concurrent_writes", "atomic_writes",
                   "atomic_merges"}


def test_every_ambiguity_of_the_brief_is_exercised(corpus):
    used = {vector.ambiguity for vector in corpus.vectors if vector.ambiguity}
    assert {"AMB-CASEFOLD", "AMB-DATES", "AMB-TIE", "AMB-HIDDEN-AT", "AMB-HISTORY-KEY", "AMB-PARKED-AT",
            "AMB-READD-PARKED", "AMB-CREATED-AT", "AMB-TOMBSTONE-CAPS", "AMB-FRONTMATTER-LINES",
            "AMB-PREAMBLE", "AMB-GOAL-OVERFLOW", "AMB-HIDE-MISSING", "AMB-PURGE-UNHIDDEN"} <= used


# --- the computation itself, on a synthetic index -----------------------------------

def _req(rid, keyword="MUST", level="full", since="0.1", testable=True):
    return Requirement(rid, rid[1:].split("-")[0], "text", keyword, level, since, testable,
                       None if testable else "cannot be observed by the kit at all")


def _vec(vid, requirements, ambiguous=False, tags=(), level="full"):
    return Vector(vid, "t", ("5.2",), tuple(requirements), level, (*tags, *(("ambiguous",) if ambiguous else ())),
                  "AMB-TIE" if ambiguous else None, "merge_sessions", {}, ({"path": "/live", "count": 0},), "d",
                  "f.json", Path("."))


def test_statuses_and_summary():
    index = [_req("S5.2-covered"), _req("S5.2-advisory"), _req("S5.2-missing"), _req("S5.2-gone", testable=False),
             _req("S3.2-shape", level="validator"), _req("S3.4-should", keyword="SHOULD", level="reader")]
    vectors = [_vec("a", ["S5.2-covered", "S3.4-should"]), _vec("b", ["S5.2-advisory", "S5.2-covered"], ambiguous=True),
               _vec("c", ["S9-unknown"])]
    report = compute(index, vectors, rules_by_section={"3.2": ["MEMOIR-E-TYPE"]})
    status = {row.requirement.id: row.status for row in report.rows}
    assert status == {"S5.2-covered": "covered", "S5.2-advisory": "advisory-only", "S5.2-missing": "missing",
                      "S5.2-gone": "untestable", "S3.2-shape": "validator", "S3.4-should": "covered"}
    assert [row.requirement.id for row in report.gaps("MUST")] == ["S5.2-advisory", "S5.2-missing"]
    assert report.unknown_references == {"c": ["S9-unknown"]}
    assert report.summary_line() == (
        "MUST: 1/3 testable covered (1 untestable with a reason, 1 validator rules); "
        "SHOULD: 1/1 testable covered (0 untestable with a reason, 0 validator rules)")
    shape = next(row for row in report.rows if row.requirement.id == "S3.2-shape")
    assert shape.validator_rules == ("MEMOIR-E-TYPE",)
    assert [section for section, _ in report.sections()] == ["3.2", "3.4", "5.2"]


def test_spec_filter_drops_later_requirements_and_vectors_citing_them():
    index = [_req("S5.2-old"), _req("S5.2-new", since="0.1.2")]
    vectors = [_vec("mixed", ["S5.2-old", "S5.2-new"]), _vec("old-only", ["S5.2-old"])]
    report = compute(index, vectors, spec="0.1")
    assert [row.requirement.id for row in report.rows] == ["S5.2-old"]
    assert report.rows[0].vectors == ("old-only",)
    later = compute(index, vectors, spec="0.1.2")
    assert {row.requirement.id: row.vectors for row in later.rows} == {
        "S5.2-old": ("mixed", "old-only"), "S5.2-new": ("mixed",)}


def test_boundary_cases_count_only_deciding_vectors_of_the_kind():
    index = [_req("S5.2-a"), _req("S5.2-b"), _req("S5.2-c", keyword="SHOULD")]
    kinds = BoundaryIndex((BoundaryKind("equal-dates", "d"), BoundaryKind("cap-size", "d")),
                          {"S5.2-a": ("equal-dates", "cap-size"), "S5.2-b": ()})
    vectors = [_vec("w", ["S5.2-a"], tags=("boundary-cap-size",), level="writer"),
               _vec("m", ["S5.2-a"], tags=("boundary-cap-size",)),
               _vec("advisory", ["S5.2-a"], ambiguous=True, tags=("boundary-equal-dates",)),
               _vec("other", ["S5.2-b"], tags=("boundary-equal-dates",))]
    report = compute(index, vectors, boundaries=kinds)
    rows = {row.requirement.id: row for row in report.rows}
    equal, cap = rows["S5.2-a"].boundaries
    assert (equal.kind, equal.vectors, equal.covered) == ("equal-dates", (), False)
    assert (cap.vectors, cap.levels) == (("m", "w"), ("writer", "full"))
    assert rows["S5.2-b"].boundaries == () and rows["S5.2-c"].boundaries == ()
    assert report.boundary_gaps() == [("S5.2-a", "equal-dates")]
    assert report.boundary_line().startswith("boundary cases: 1/2 covered")
    assert report.to_json()["boundary_gaps"] == ["S5.2-a: equal-dates"]
    assert index_problems(kinds, index) == []
    unclassified = index_problems(BoundaryIndex(kinds.kinds, {"S5.2-c": ()}), index)
    assert [str(p) for p in unclassified] == [
        "boundaries.json: S5.2-c is not a testable MUST of the requirement index",
        "boundaries.json: S5.2-a is not classified: list the boundary kinds that apply to it, or []",
        "boundaries.json: S5.2-b is not classified: list the boundary kinds that apply to it, or []"]


def test_a_broken_boundary_index_is_reported_not_raised(tmp_path):
    path = tmp_path / "boundaries.json"
    path.write_text('{"kinds": [{"name": "equal-dates", "description": "d"}], "applies": {"S5.2-a": ["nope"]}}')
    index, problems = load_boundaries(path)
    assert index.applies == {"S5.2-a": ()} and "unknown kind(s): nope" in str(problems[0])
    path.write_text("[1]")
    assert load_boundaries(path)[0] is None
    assert load_boundaries(tmp_path / "absent.json")[1][0].message.startswith("not found")
