"""Per-check strength, allowed refusals, MAY features, choices, caps, the concurrency control run,
the derived merge invariants, and JUnit that fails exactly when the run fails."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from runner_helpers import vector, write_vector_file

from conformance.cli import main
from conformance.model import merge as model_merge
from conformance.protocol.messages import Describe, ErrorResponse
from conformance.report import junit as report_junit
from conformance.runner.execute import run_vector
from conformance.runner.grading import grade, grade_vectors
from conformance.runner.implementations import ModelImplementation
from conformance.runner.requirements import Requirement, RequirementIndex
from conformance.runner.run import RunRecord
from conformance.runner.vectors import load_corpus

INDEX = RequirementIndex({
    "S5.2-union-by-identity": Requirement("S5.2-union-by-identity", "5.2", "MUST NOT drop", "MUST", "full", "0.1", True),
    "S3.4-readers-resolve-wikilinks": Requirement("S3.4-readers-resolve-wikilinks", "3.4", "SHOULD resolve",
                                                  "SHOULD", "reader", "0.1", True),
    "S5.3.1-hidden-retained": Requirement("S5.3.1-hidden-retained", "5.3.1", "MUST retain", "MUST", "writer", "0.1",
                                          True),
})
UNION = "S5.2-union-by-identity"
LINKS = "S3.4-readers-resolve-wikilinks"
DECISION = {"version": 1, "current": {"decisions": [{"text": "Keep it", "date": "2026-01-01T00:00:00Z"}]}}


def loaded(root: Path, *raws: dict) -> list:
    write_vector_file(root, "t.json", list(raws))
    corpus = load_corpus([root])
    assert corpus.problems == [], corpus.problems
    return corpus.vectors


def run_all(vectors, implementation, tmp_path, claimed="full"):
    described = implementation.describe()
    results = [run_vector(v, implementation, described, tmp_path / "work") for v in vectors]
    graded = grade_vectors(vectors, results, INDEX)
    return graded, grade(graded, "0.1.2", claimed)


def by_id(graded):
    return {item.vector.id: item for item in graded}


# --- strength per check ----------------------------------------------------------------------

def test_a_failed_should_check_next_to_a_passing_must_check_costs_no_level(vectors_root, tmp_path):
    raw = vector("t.mixed", requirements=[UNION, LINKS], expect=[
        {"path": "/live/next_actions", "requirements": [UNION], "identities": ["local", "remote"]},
        {"path": "/live/next_actions", "requirements": [LINKS], "count": 5},
    ])
    graded, result = run_all([v for v in loaded(vectors_root, raw) if not v.derived], ModelImplementation(),
                             tmp_path)
    item = graded[0]
    assert item.result.outcome == "fail" and item.strengths == ("must", "should")
    assert item.failed_strengths == ("should",) and item.blocks is None
    assert item.result.failures[0].requirements == (LINKS,)
    assert result.levels["full"].blocking == {} and result.tallies["should"].passed == 0


def test_a_check_that_holds_under_every_reading_decides_inside_an_ambiguous_vector(vectors_root, tmp_path):
    raw = vector("t.amb", tags=["ambiguous"], ambiguity="AMB-TIE", expect=[
        {"path": "/live/next_actions", "ambiguity": None, "identities": ["nothing like it"]},
        {"path": "/live/next_actions", "count": 9},
    ])
    graded, _ = run_all([v for v in loaded(vectors_root, raw) if not v.derived], ModelImplementation(), tmp_path)
    item = graded[0]
    assert item.strengths == ("must", "advisory") and item.failed_strengths == ("must", "advisory")
    assert item.blocks == "fail"
    assert [f.ambiguity for f in item.result.failures] == [None, "AMB-TIE"]


def test_vectors_check_refuses_mixed_strengths_unless_each_check_names_its_requirements(tmp_path, capsys):
    root = tmp_path / "vectors"
    mixed = vector("t.mixed", requirements=["S8-reader-ignore-unknown-fields", LINKS], op="read_store",
                   level="reader", input={"store": {"files": {}}},
                   expect=[{"path": "/session/status", "equals": "absent"}])
    write_vector_file(root, "read/x.json", [mixed])
    assert main(["vectors", "check", str(root)]) == 1
    out = capsys.readouterr().out
    assert "mix MUST (S8-reader-ignore-unknown-fields) and SHOULD (S3.4-readers-resolve-wikilinks)" in out
    mixed["expect"][0]["requirements"] = ["S8-reader-ignore-unknown-fields"]
    write_vector_file(root, "read/x.json", [mixed])
    assert main(["vectors", "check", str(root)]) == 0


# --- refusals the spec allows, MAY features, choices, caps ----------------------------------

class Refusing(ModelImplementation):
    """Answers `answer` to one op, the model to the rest."""

    def __init__(self, op, answer, **kwargs):
        super().__init__(**kwargs)
        self.refused, self.answer = op, answer

    def fork(self):
        return type(self)(self.refused, self.answer, caps=self.context.caps)

    def call(self, op, args):
        return self.answer if op == self.refused else super().call(op, args)


def _write(steps, expect, **extra):
    return vector("t.write", op="write", level="writer", requirements=["S5.3.1-hidden-retained"],
                  input={"store": {"files": {"session.json": DECISION}}, "steps": steps}, expect=expect, **extra)


def test_a_step_may_be_refused_when_the_vector_allows_it_and_the_state_is_judged(vectors_root, tmp_path):
    steps = [{"op": "hide_decision", "args": {"text": "Keep it", "purge": False}},
             {"op": "add_decision", "args": {"text": "Keep it"}, "may_refuse": ["invalid_input"]},
             {"op": "add_question", "args": {"text": "Still running?"}}]
    raw = _write(steps, [{"path": "/live/decisions", "count": 0}, {"path": "/live/open_questions", "count": 1}])
    refusing = Refusing("add_decision", ErrorResponse(1, "invalid_input", "hidden stays hidden"))
    graded, _ = run_all(loaded(vectors_root, raw), refusing, tmp_path, claimed="writer")
    item = graded[0]
    assert item.result.outcome == "pass" and item.result.sent[-1]["op"] == "add_question"
    internal = Refusing("add_decision", ErrorResponse(1, "internal", "boom"))
    graded, _ = run_all(loaded(vectors_root, raw), internal, tmp_path, claimed="writer")
    assert graded[0].result.failures[0].check == "response" and graded[0].blocks == "fail"


def test_an_unsupported_may_feature_is_not_applicable_and_blocks_nothing(vectors_root, tmp_path):
    feature = _write([{"op": "hide_decision", "args": {"text": "Keep it", "purge": True}, "feature": "purge"}],
                     [{"path": "/live/decisions", "count": 0}])
    plain = dict(feature, id="t.plain", input={**feature["input"], "steps": [
        {"op": "hide_decision", "args": {"text": "Keep it", "purge": True}}]})
    refusing = Refusing("hide_decision", ErrorResponse(1, "unsupported", "no purging"))
    graded = by_id(run_all(loaded(vectors_root, feature, plain), refusing, tmp_path, claimed="writer")[0])
    assert graded["t.write"].result.na_kind == "feature" and graded["t.write"].blocks is None
    assert "MAY feature purge (spec 5.3.1)" in graded["t.write"].result.detail
    assert graded["t.plain"].result.na_kind == "op" and graded["t.plain"].blocks == "not_applicable"


class ChoosesVcs(ModelImplementation):
    def describe(self) -> Describe:
        described = super().describe()
        return Describe(**{**described.__dict__, "choices": {"entry_file_merge": "vcs"}})


def test_a_vector_for_another_choice_is_not_applicable_with_its_derived_invariants(vectors_root, tmp_path):
    store = {"files": {"memory/fact_a.md": "---\ntype: fact\nname: A\nupdated: 2026-01-01\n---\nx\n"}}
    raw = vector("t.newest", op="merge_stores", choices={"entry_file_merge": "newest"},
                 input={"local": store, "remote": store}, expect=[{"path": "/entries", "identities": ["fact_a"]}])
    graded, result = run_all(loaded(vectors_root, raw), ChoosesVcs(), tmp_path)
    assert {item.vector.id: item.result.na_kind for item in graded} == {
        "t.newest": "choice", "t.newest~idempotent": "choice", "t.newest~swapped": "choice"}
    assert all(item.blocks is None for item in graded)
    assert "entry_file_merge 'vcs' (this vector needs 'newest')" in graded[0].result.detail


def test_declared_caps_below_min_caps_make_a_vector_not_applicable(vectors_root, tmp_path):
    raw = vector("t.caps", min_caps={"goals": 2})
    graded, _ = run_all(loaded(vectors_root, raw), ModelImplementation(caps={"goals": 1}), tmp_path)
    assert {item.result.na_kind for item in graded} == {"caps"} and all(item.blocks is None for item in graded)
    graded, _ = run_all(loaded(vectors_root, raw), ModelImplementation(caps={"goals": 2}), tmp_path)
    assert {item.result.outcome for item in graded} == {"pass"}


class ShortParking(ModelImplementation):
    """Declares a parked cap of 20 but keeps 2: sequential adds lose actions too (rotation, not locking)."""

    def __init__(self, **kwargs):
        super().__init__(caps={"next_actions": 2, "parked_actions": 2})

    def describe(self) -> Describe:
        described = super().describe()
        return Describe(**{**described.__dict__, "caps": {**described.caps, "parked_actions": 20}})


def test_rotation_losses_are_reported_by_the_control_run_not_as_lost_updates(vectors_root, tmp_path):
    raw = vector("t.conc", op="concurrent_writes", level="writer", requirements=["S5.3.1-hidden-retained"],
                 input={"processes": 2, "actions_per_process": 4}, expect=[])
    graded, _ = run_all(loaded(vectors_root, raw), ShortParking(), tmp_path, claimed="writer")
    failure, = graded[0].result.failures
    assert failure.check == "sequential_control" and len(failure.actual) == 4
    assert "not counted as lost updates" in failure.message
    assert failure.requirements == ("S4.1-next-actions-rotate-to-parked",)


# --- derived merge invariants ------------------------------------------------------------------

def test_every_merge_vector_brings_two_derived_must_vectors_with_their_own_digests(vectors_root, tmp_path,
                                                                                   capsys):
    vectors = loaded(vectors_root, vector("t.union"))
    derived = {v.id: v for v in vectors if v.derived}
    assert sorted(derived) == ["t.union~idempotent", "t.union~swapped"]
    assert {v.requirements for v in derived.values()} == {("S5.4-idempotent",), ("S5.4-convergence-commutative",)}
    assert len({v.digest for v in vectors}) == 3
    assert main(["run", "--no-bundled", "--vectors", str(vectors_root), "--list"]) == 0
    listing = capsys.readouterr().out
    assert "t.union~swapped" in listing and derived["t.union~swapped"].digest in listing
    changed = loaded(vectors_root, vector("t.union", title="changed"))
    assert {v.id: v.digest for v in changed if v.derived} != {v.id: v.digest for v in derived.values()}


def _tie_run(vectors_root, tmp_path, monkeypatch, list_name: str, local_item: dict, remote_item: dict):
    """A tie (equal dates) merged first-seen-wins: argument order picks the copy."""
    tie = {"version": 1, "current": {list_name: [local_item]}}
    other = {"version": 1, "current": {list_name: [remote_item]}}
    raw = vector("t.tie", input={"local": tie, "remote": other}, expect=[{"path": f"/live/{list_name}", "count": 1}])
    monkeypatch.setattr(model_merge, "by_date", lambda field: lambda item: (model_merge.dates.sort_key(item.get(field)),))
    return by_id(run_all(loaded(vectors_root, raw), ModelImplementation(), tmp_path)[0])


def test_a_tie_kept_first_seen_that_renders_the_same_passes_swapped_with_an_advisory_note(
        vectors_root, tmp_path, monkeypatch):
    # 5.4: merge(A, B) and merge(B, A) "render identically"; machine_id is not rendered.
    graded = _tie_run(vectors_root, tmp_path, monkeypatch, "goals",
                      {"text": "Ship", "set_on": "2026-01-01T00:00:00Z", "machine_id": "a"},
                      {"text": "Ship", "set_on": "2026-01-01T00:00:00Z", "machine_id": "b"})
    assert graded["t.tie"].result.outcome == "pass"
    failure, = graded["t.tie~swapped"].result.failures
    assert failure.check == "commutative" and failure.path == "/ba/session/current/goals/0/machine_id"
    assert failure.advisory and graded["t.tie~swapped"].failure_strengths == ("advisory",)
    assert graded["t.tie~swapped"].blocks is None
    assert graded["t.tie~idempotent"].result.outcome == "pass"


def test_a_merge_whose_render_depends_on_argument_order_fails_the_swapped_invariant(
        vectors_root, tmp_path, monkeypatch):
    # One identity (5.1), spelled two ways: the rendered text depends on the order.
    graded = _tie_run(vectors_root, tmp_path, monkeypatch, "goals",
                      {"text": "Ship it", "set_on": "2026-01-01T00:00:00Z"},
                      {"text": "ship IT", "set_on": "2026-01-01T00:00:00Z"})
    failures = graded["t.tie~swapped"].result.failures
    deciding = [f for f in failures if not f.advisory]
    assert [f.path for f in deciding] == ["/ba/view/live/goals/0/text"]
    assert "render differently" in deciding[0].message
    assert graded["t.tie~swapped"].blocks == "fail"


# --- JUnit fails exactly when the run fails ----------------------------------------------------

def test_junit_marks_only_what_fails_the_run(vectors_root, tmp_path):
    raws = [
        vector("w.pass", op="write", level="writer", requirements=["S5.3.1-hidden-retained"],
               input={"steps": [{"op": "add_goal", "args": {"text": "g"}}]}, expect=[{"path": "/live/goals", "count": 1}]),
        vector("r.should", op="read_store", level="reader", requirements=[LINKS], input={"store": {"files": {}}},
               expect=[{"path": "/session/status", "equals": "ok"}]),
        vector("f.above", expect=[{"path": "/live/next_actions", "count": 7}]),
        vector("r.pass", op="read_store", level="reader", requirements=[UNION], input={"store": {"files": {}}},
               expect=[{"path": "/session/status", "equals": "absent"}]),
    ]
    vectors = [v for v in loaded(vectors_root, *raws) if not v.derived]
    model = ModelImplementation()
    graded, result = run_all(vectors, model, tmp_path, claimed="writer")
    assert result.exit_code == 0
    record = RunRecord(kit_version="0", spec="0.1.2", corpus_digest="0" * 64, implementation="m", mode="in-process",
                       described=model.describe(), protocol=1, options={}, graded=graded, grade=result,
                       requirements=INDEX)
    root = ET.fromstring(ET.tostring(report_junit.build(record)))
    cases = {case.get("name"): case for case in root.iter("testcase")}
    assert root.get("failures") == "0" and root.get("errors") == "0"
    assert cases["r.should"].find("skipped").get("message") == "only SHOULD checks failed: no level cost"
    assert cases["f.above"].find("skipped").get("message") == "above the claimed level (Writer)"
    record.grade = grade(graded, "0.1.2", "full")
    root = ET.fromstring(ET.tostring(report_junit.build(record)))
    cases = {case.get("name"): case for case in root.iter("testcase")}
    assert record.grade.exit_code == 1 and root.get("failures") == "1"
    # The vector carries the run's failure; the verdict does not count it a second time.
    assert cases["f.above"].find("failure") is not None and cases["verdict"].find("failure") is None
