"""The derived invariants say what spec 5.4 says: merge(M, M) = M decides, absorption is
advisory; ~swapped decides on what renders; clock stamps never decide; two runs agree."""

from __future__ import annotations

import itertools
import json

import pytest
from runner_helpers import vector, write_vector_file

from conformance import resources
from conformance.protocol.messages import OkResponse
from conformance.runner.execute import run_vector
from conformance.runner.invariants import ABSORPTION, MALFORMED_INPUT
from conformance.runner.grading import grade_vectors
from conformance.runner.implementations import ModelImplementation
from conformance.runner.requirements import load_requirements
from conformance.runner.vectors import load_corpus

INDEX = load_requirements(resources.vectors_dir() / "requirements.json")
LOCAL = {"version": 1, "current": {"goals": [{"text": "Ship", "set_on": "2026-01-01T00:00:00Z"}],
                                   "next_actions": [{"text": "Local", "added": "2026-01-01T00:00:00Z"}]}}
REMOTE = {"version": 1, "current": {"next_actions": [{"text": "Remote", "added": "2026-01-02T00:00:00Z"}]}}


def _parsed(text: str) -> dict:
    """A replica text as an object ({} when it is not one: it contributes nothing)."""
    try:
        data = json.loads(text)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


class _Merging(ModelImplementation):
    """The reference model with its merge result changed by `adjust(local, remote, session)`."""

    def adjust(self, local: dict, remote: dict, session: dict) -> None:
        raise NotImplementedError

    def call(self, op, args):
        outcome = super().call(op, args)
        if op == "merge_sessions" and isinstance(outcome, OkResponse):
            session = json.loads(json.dumps(outcome.result["session"]))
            self.adjust(_parsed(args["local"]), _parsed(args["remote"]), session)
            return OkResponse(outcome.id, {**outcome.result, "session": session})
        return outcome


class AbsorbsDifferently(_Merging):
    """merge(M, A) is not M (it marks a re-merge), but merge(M, M) is M: 5.4 does not forbid it."""

    def adjust(self, local, remote, session):
        if "x_merged" in local and local != remote:
            session["x_merged"] = local["x_merged"] + 1
        elif "x_merged" not in local:
            session["x_merged"] = 1


class SelfMergeChanges(_Merging):
    """merge(M, M) drops the goals: merging a replica with itself is not a no-op."""

    def adjust(self, local, remote, session):
        if local == remote:
            session["current"]["goals"] = []


class ClockStamps(_Merging):
    """Fills created_at / updated_at from its own clock (a new instant at every call)
    when the inputs lack them, as a migration that stamps `now` does."""

    clock = itertools.count(1)

    def adjust(self, local, remote, session):
        if "created_at" not in local and "created_at" not in remote:
            stamp = f"2026-12-02T11:{next(self.clock) % 60:02d}:00.000Z"
            session.update(created_at=stamp, updated_at=stamp)


@pytest.fixture
def corpus(tmp_path):
    def load(*raws):
        write_vector_file(tmp_path / "vectors", "t.json", list(raws))
        loaded = load_corpus([tmp_path / "vectors"])
        assert loaded.problems == []
        return loaded.vectors
    return load


def graded_run(vectors, implementation, workdir):
    described = implementation.describe()
    results = [run_vector(v, implementation, described, workdir) for v in vectors]
    return {item.vector.id: item for item in grade_vectors(vectors, results, INDEX)}


def test_a_merge_whose_absorption_differs_passes_with_an_advisory_note(corpus, tmp_path):
    graded = graded_run(corpus(vector("t.m", input={"local": LOCAL, "remote": REMOTE})), AbsorbsDifferently(),
                        tmp_path)
    item = graded["t.m~idempotent"]
    assert item.blocks is None and item.failure_strengths == ("advisory", "advisory")
    assert {(f.check, f.path, f.advisory) for f in item.result.failures} == {
        ("absorption", "/with_local/session/x_merged", ABSORPTION),
        ("absorption", "/with_remote/session/x_merged", ABSORPTION)}
    assert "merge(M, A) differs from M" in item.result.failures[0].message
    assert all(graded[name].blocks is None for name in graded)


def test_a_merge_where_merging_m_with_itself_changes_it_fails(corpus, tmp_path):
    graded = graded_run(corpus(vector("t.m", input={"local": LOCAL, "remote": REMOTE})), SelfMergeChanges(),
                        tmp_path)
    item = graded["t.m~idempotent"]
    assert item.blocks == "fail"
    failure, = [f for f in item.result.failures if f.advisory is None]
    assert failure.check == "idempotent" and failure.path == "/self/session/current/goals"
    assert failure.message.startswith("merge(M, M) changed M = merge(A, B) (self-merge is not a no-op)")
    assert 'missing item "Ship"' in failure.message


def test_derived_checks_on_inputs_that_are_not_replicas_are_advisory(corpus, tmp_path):
    bad = {"version": 1, "current": {"goals": [{"set_on": "2026-01-01"}]}}    # an item without a text
    graded = graded_run(corpus(vector("t.m", input={"local": LOCAL, "remote": bad})), SelfMergeChanges(), tmp_path)
    item = graded["t.m~idempotent"]
    assert item.result.failures and item.blocks is None
    assert {f.advisory for f in item.result.failures} == {MALFORMED_INPUT}


def test_clock_stamps_never_decide_and_two_runs_give_the_same_outcomes(corpus, tmp_path):
    vectors = corpus(vector("t.m", input={"local": LOCAL, "remote": REMOTE}))
    first = graded_run(vectors, ClockStamps(), tmp_path / "one")
    second = graded_run(vectors, ClockStamps(), tmp_path / "two")
    outcomes = lambda graded: {name: (item.result.outcome, item.blocks, item.failed_strengths)
                               for name, item in graded.items()}
    assert outcomes(first) == outcomes(second)
    assert all(item.blocks is None for item in first.values())
    swapped = first["t.m~swapped"].result.failures
    assert swapped and {f.path.rsplit("/", 1)[-1] for f in swapped} == {"created_at", "updated_at"}


def test_the_bundled_forward_merges_give_the_same_outcomes_in_two_runs(tmp_path):
    # merge.forward.both-degraded-empty-valid~swapped passed or failed with the clock (issue 19).
    vectors = [v for v in load_corpus([resources.vectors_dir()]).vectors if v.id.startswith("merge.forward.")]
    assert any(v.id == "merge.forward.both-degraded-empty-valid~swapped" for v in vectors)
    runs = [graded_run(vectors, ClockStamps(), tmp_path / name) for name in ("one", "two")]
    assert [{name: item.result.outcome for name, item in run.items()} for run in runs][0] == \
        {name: item.result.outcome for name, item in runs[1].items()}
    assert [name for name, item in runs[0].items() if item.blocks] == []


def test_keep_scratch_keeps_m_and_every_re_merge_of_a_derived_vector(corpus, tmp_path):
    implementation = SelfMergeChanges()
    idempotent, = [v for v in corpus(vector("t.m", input={"local": LOCAL, "remote": REMOTE}))
                   if v.id == "t.m~idempotent"]
    result = run_vector(idempotent, implementation, implementation.describe(), tmp_path / "work",
                        keep_scratch=tmp_path / "kept")
    assert result.outcome == "fail"
    kept = tmp_path / "kept" / "t.m_idempotent"
    names = sorted(path.name for path in kept.iterdir())
    assert names == ["local.session.json", "merged.session.json", "remote.session.json", "self.session.json",
                     "with_local.session.json", "with_remote.session.json"]
    merged = json.loads((kept / "merged.session.json").read_text(encoding="utf-8"))
    assert [goal["text"] for goal in merged["current"]["goals"]] == ["Ship"]
    assert json.loads((kept / "self.session.json").read_text(encoding="utf-8"))["current"]["goals"] == []
