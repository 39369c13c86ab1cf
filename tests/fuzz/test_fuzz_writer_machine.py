"""The writer-op state machine, on the in-process reference model and on a broken copy of it."""

from __future__ import annotations

import json
from pathlib import Path

from conformance.fuzz.counterexample import WriteCase
from conformance.fuzz.engine import FAILED, PASSED, Budget, run_properties
from conformance.fuzz.subject import Subject
from conformance.fuzz.writer_machine import tie_explains, writer_view
from conformance.model.session import empty_session
from conformance.runner.implementations import ModelImplementation


class ForgetfulModel(ModelImplementation):
    """The reference model, except that completing an action records no tombstone (spec 5.3.2)."""

    def call(self, op, args):
        outcome = super().call(op, args)
        if op == "complete_next_action" and outcome.ok:
            path = Path(args["store"]) / "session.json"
            session = json.loads(path.read_text(encoding="utf-8"))
            session["current"]["completed_actions"] = []
            path.write_text(json.dumps(session), encoding="utf-8")
        return outcome


def run(implementation, tmp_path, examples=15):
    subject = Subject(implementation, implementation.describe(), tmp_path / "stores")
    return run_properties(subject, ["writer-ops"], Budget(seed=4, examples=examples, shrink_seconds=5)).results[0]


def test_the_reference_model_agrees_with_itself(tmp_path):
    result = run(ModelImplementation(), tmp_path)
    assert result.status == PASSED, result.counterexample and result.counterexample.message
    assert result.examples >= 15


def test_a_completion_without_tombstone_is_found_and_shrunk(tmp_path):
    result = run(ForgetfulModel(), tmp_path, examples=50)
    assert result.status == FAILED
    found = result.counterexample
    assert found.requirement == "S5.3.2-complete-removes-and-records"
    assert found.inputs["steps"][-1]["op"] == "complete_next_action"
    assert isinstance(found.case, WriteCase) and found.case.steps == (found.inputs["steps"][-1],)
    assert found.expected["completed_actions"] and found.actual["completed_actions"] == []


def session_with(next_actions, parked):
    session = empty_session()
    session["current"]["next_actions"] = next_actions
    session["current"]["parked_actions"] = parked
    return session


def test_equal_added_stamps_make_the_parked_choice_a_tie():
    tied = "2026-01-01T00:00:00.000Z"
    model = session_with([{"text": "a", "added": tied}], [{"text": "b", "added": tied}])
    swapped = session_with([{"text": "b", "added": tied}], [{"text": "a", "added": tied}])
    assert tie_explains(writer_view(model), writer_view(swapped), model)
    later = session_with([{"text": "a", "added": "2026-01-02T00:00:00.000Z"}], [{"text": "b", "added": tied}])
    swapped_later = session_with([{"text": "b", "added": tied}], [{"text": "a", "added": "2026-01-02T00:00:00.000Z"}])
    assert not tie_explains(writer_view(later), writer_view(swapped_later), later)
