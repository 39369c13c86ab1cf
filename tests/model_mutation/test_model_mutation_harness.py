"""The harness mutmut runs: the mutant is on only inside the model's calls.

The runner reads the results of a vector with the model too; if the mutant
were on there, a mutated oracle could hide a mutated implementation. These
tests check the switch without mutmut: the environment variable it reads is
set exactly while the implementation side runs.
"""

from __future__ import annotations

import os

from conformance import reference
from conformance.model_mutation import harness
from conformance.runner.implementations import ModelImplementation


def test_the_mutant_is_on_during_a_model_call_and_off_around_it(monkeypatch):
    seen = []
    monkeypatch.setattr(reference, "handle", lambda op, args, context: seen.append(
        os.environ.get(harness.MUTANT_VARIABLE)) or {})
    monkeypatch.setenv(harness.MUTANT_VARIABLE, "")
    model = harness.MutatedModel(harness.MutantSwitch("conformance.model.merge.x_f__mutmut_1"))
    model.fork().call("read_store", {"store": "/nowhere"})
    assert seen == ["conformance.model.merge.x_f__mutmut_1"]
    assert os.environ[harness.MUTANT_VARIABLE] == ""


def test_without_mutmut_the_switch_changes_nothing(monkeypatch):
    monkeypatch.delenv(harness.MUTANT_VARIABLE, raising=False)
    with harness.MutantSwitch(None).on():
        assert harness.MUTANT_VARIABLE not in os.environ
    assert harness.MUTANT_VARIABLE not in os.environ


def test_while_recording_the_worker_calls_are_replayed_on_a_copy(tmp_path, monkeypatch):
    store = tmp_path / "store"
    store.mkdir()
    (store / "session.json").write_text('{"version": 1}', encoding="utf-8")
    replayed = []
    monkeypatch.setattr(ModelImplementation, "call", lambda self, op, args: replayed.append((op, args["store"])))
    model = harness.MutatedModel(harness.MutantSwitch(harness.RECORDING))
    jobs = [[("add_next_action", {"store": str(store), "text": f"p{p} a{a}"}) for a in range(2)] for p in range(2)]
    model._replay_in_process(jobs)
    assert len(replayed) == 4 and {op for op, _ in replayed} == {"add_next_action"}
    assert len({where for _, where in replayed}) == 1 and str(store) not in {where for _, where in replayed}
    assert (store / "session.json").read_text(encoding="utf-8") == '{"version": 1}'
