"""The corpus as pytest tests, one per vector, for mutmut to run against the mutated model.

mutmut (the `model-mutation` command runs it; docs/mutants.md) rewrites the
model's functions into trampolines that call a mutant when the environment
variable `MUTANT_UNDER_TEST` names one, and runs, for each mutant, the
tests of this module that reached the mutated function. A test fails
exactly when its vector blocks a level: the runner's own grading of a
filtered run (`grade(..., filtered=True)`) decides, so what counts as a
deciding failure here is what counts in `memoir-conform run`.

The mutant is active only inside the model's own calls, the implementation
side. The runner reads and renders the results with the model too (the
result documents of docs/architecture.md), and that reading stays the
unmutated reference, as it is for any adapter under test.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from conformance import SPEC_VERSION
from conformance.mutants.evaluate import Selection, load_selection
from conformance.runner.execute import VectorResult, run_vector
from conformance.runner.grading import grade, grade_vectors
from conformance.runner.implementations import Call, ModelImplementation

MUTANT_VARIABLE = "MUTANT_UNDER_TEST"
RECORDING = "stats"  # mutmut's value while it records which test reaches which function


def _selection() -> Selection:
    selection = load_selection()
    if isinstance(selection, str):
        raise RuntimeError(selection)
    return selection


SELECTION = _selection()


class MutantSwitch:
    """The mutant mutmut chose for this test, switched on only while the model runs."""

    def __init__(self, name: str | None):
        self.name = name

    @contextlib.contextmanager
    def on(self) -> Iterator[None]:
        if self.name is None:
            yield
            return
        os.environ[MUTANT_VARIABLE] = self.name
        try:
            yield
        finally:
            os.environ[MUTANT_VARIABLE] = ""

    @property
    def recording(self) -> bool:
        return self.name == RECORDING


class MutatedModel(ModelImplementation):
    """The in-process model, with the mutant switched on for its calls only."""

    label = "mutated reference model (in-process)"

    def __init__(self, switch: MutantSwitch):
        super().__init__()
        self.switch = switch

    def call(self, op: str, args: dict):
        with self.switch.on():
            return super().call(op, args)

    def fork(self) -> MutatedModel:
        return MutatedModel(self.switch)

    def call_in_parallel(self, jobs: Sequence[Sequence[Call]]):
        with self.switch.on():
            if self.switch.recording:
                self._replay_in_process(jobs)
            # The worker processes inherit the environment, and with it the mutant.
            return super().call_in_parallel(jobs)

    def _replay_in_process(self, jobs: Sequence[Sequence[Call]]) -> None:
        """The worker processes' calls reach functions out of mutmut's sight:
        make the same calls here, on a copy of the store, so that they count
        towards this test when mutmut picks the tests of each mutant."""
        with tempfile.TemporaryDirectory(prefix="memoir-replay-") as scratch:
            copies: dict[str, str] = {}
            for job in jobs:
                for op, args in job:
                    store = args["store"]
                    if store not in copies:
                        copies[store] = str(Path(scratch) / f"store-{len(copies)}")
                        shutil.copytree(store, copies[store], dirs_exist_ok=True)
                    super().call(op, {**args, "store": copies[store]})


@pytest.fixture
def switch() -> Iterator[MutantSwitch]:
    """Takes the mutant out of the environment for the test, and puts it back after."""
    name = os.environ.get(MUTANT_VARIABLE)
    if name is None:  # not under mutmut: the plain reference model
        yield MutantSwitch(None)
        return
    os.environ[MUTANT_VARIABLE] = ""
    try:
        yield MutantSwitch(name)
    finally:
        os.environ[MUTANT_VARIABLE] = name


def blocking_message(result: VectorResult) -> str:
    lines = [f"{result.id}: {result.outcome}" + (f" ({result.detail})" if result.detail else "")]
    lines += [f"  {failure.path}: {failure.message}" for failure in result.failures]
    return "\n".join(lines)


@pytest.mark.parametrize("vector", SELECTION.vectors, ids=lambda vector: vector.id)
def test_vector(vector, switch):
    model = MutatedModel(switch)
    with tempfile.TemporaryDirectory(prefix="memoir-mutation-") as workdir:
        result = run_vector(vector, model, model.describe(), Path(workdir))
    graded = grade_vectors([vector], [result], SELECTION.index)
    assert grade(graded, SPEC_VERSION, None, filtered=True).exit_code == 0, blocking_message(result)
