"""Running the properties with hypothesis, programmatically, and collecting what they found.

Each property is one hypothesis test built on the fly: no example database
(a run depends on its seed alone), no deadline (adapters are subprocesses),
no health checks that depend on timing, and `report_multiple_bugs` off so
that hypothesis shrinks towards one minimal counterexample. The check
records every counterexample it raises; hypothesis ends by replaying the
minimal one, so the last recorded is the shrunk counterexample.

Time limits are enforced from inside the test: an `_OutOfTime` that
derives from BaseException is not a test failure to hypothesis and ends the
run at once. Before a counterexample is found, the wall-clock budget
(`--max-seconds`) ends the property as "passed so far"; once one is found,
shrinking it gets `shrink_seconds` and then stops with the smallest
counterexample seen (each candidate the shrinker keeps is smaller than the
last, so the last one recorded is the smallest).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

from hypothesis import HealthCheck, Phase, Verbosity, given, seed, settings
from hypothesis.errors import Flaky, HypothesisException
from hypothesis.stateful import get_state_machine_test

from conformance.fuzz.counterexample import Counterexample
from conformance.fuzz.merge_properties import MERGE_PROPERTIES, MergeProperty
from conformance.fuzz.subject import Subject
from conformance.fuzz.writer_machine import PROPERTY as WRITER_PROPERTY
from conformance.fuzz.writer_machine import WRITER_OPS_NEEDED, WriterRun, machine_for

PASSED, FAILED, SKIPPED, ERROR = "passed", "failed", "skipped", "error"
# Steps per generated writer-op sequence (hypothesis' stateful_step_count).
WRITER_STEPS = 30


@dataclass(frozen=True)
class PropertyInfo:
    """A property as the command lists it."""

    name: str
    title: str
    section: str
    requirement: str
    kind: str                       # "merge" or "writer"
    needs: tuple[str, ...]
    differential: bool = False


WRITER_INFO = PropertyInfo(
    WRITER_PROPERTY,
    "random writer-op sequences (add, complete, park by overflow, re-add, hide, purge, record_session) "
    "agree with the reference model",
    "4.1, 5.3, 6, 8", "S4.1-next-actions-rotate-to-parked", "writer", WRITER_OPS_NEEDED, differential=True,
)


def all_properties() -> list[PropertyInfo]:
    infos = [PropertyInfo(p.name, p.title, p.section, p.requirement, p.kind, p.needs, p.differential)
             for p in MERGE_PROPERTIES]
    return infos + [WRITER_INFO]


@dataclass(frozen=True)
class Budget:
    seed: int
    examples: int
    max_seconds: float | None = None
    shrink_seconds: float = 30.0    # how long one counterexample may take to shrink


@dataclass
class PropertyResult:
    name: str
    title: str
    requirement: str
    section: str
    status: str                         # passed, failed, skipped, error
    examples: int = 0                   # examples tried before the first counterexample (or in all)
    duration: float = 0.0
    counterexample: Counterexample | None = None
    note: str | None = None
    shrink_steps: int = 0               # counterexamples seen while shrinking

    def to_json(self) -> dict:
        data = {
            "name": self.name, "title": self.title, "requirement": self.requirement, "section": self.section,
            "status": self.status, "examples": self.examples, "duration": round(self.duration, 3),
        }
        if self.note:
            data["note"] = self.note
        if self.counterexample is not None:
            data["counterexample"] = self.counterexample.to_json()
        return data


class _OutOfTime(BaseException):
    """The wall-clock budget is spent (a BaseException, so hypothesis does not shrink it)."""


class _Clock:
    """The run's wall-clock budget, shared by all properties."""

    def __init__(self, budget: Budget):
        self.started = time.monotonic()
        self.deadline = None if budget.max_seconds is None else self.started + budget.max_seconds
        self.shrink_seconds = budget.shrink_seconds

    def spent(self, recorder: _Recorder) -> bool:
        """Generating stops at the deadline; shrinking one counterexample gets `shrink_seconds`."""
        now = time.monotonic()
        if recorder.found_time is not None:
            return now > recorder.found_time + self.shrink_seconds
        return self.deadline is not None and now > self.deadline


class _Recorder:
    def __init__(self, on_call: Callable[[int], None] | None = None):
        self.calls = 0
        self.on_call = on_call      # told the number of examples so far (progress)
        self.first_found_at: int | None = None
        self.found_time: float | None = None
        self.failure: Counterexample | None = None
        self.failures = 0

    def call(self) -> None:
        self.calls += 1
        if self.on_call is not None:
            self.on_call(self.calls)

    def found(self, counterexample: Counterexample) -> None:
        if self.first_found_at is None:
            self.first_found_at = self.calls
            self.found_time = time.monotonic()
        self.failure = counterexample
        self.failures += 1


def _settings(budget: Budget, **extra) -> settings:
    return settings(
        database=None, derandomize=False, max_examples=budget.examples, deadline=None,
        phases=(Phase.explicit, Phase.generate, Phase.shrink), report_multiple_bugs=False,
        suppress_health_check=list(HealthCheck), verbosity=Verbosity.quiet, print_blob=False, **extra,
    )


def _finish(info: PropertyInfo, recorder: _Recorder, started: float, outcome: str, note: str | None) -> PropertyResult:
    result = PropertyResult(info.name, info.title, info.requirement, info.section, outcome,
                            duration=time.monotonic() - started, note=note)
    if recorder.failure is not None:
        result.status = FAILED
        result.counterexample = recorder.failure
        result.examples = recorder.first_found_at or recorder.calls
        result.shrink_steps = recorder.failures
    else:
        result.examples = recorder.calls
    return result


def _drive(info: PropertyInfo, test: Callable[[], None], recorder: _Recorder, clock: _Clock) -> PropertyResult:
    started = time.monotonic()
    try:
        test()
    except _OutOfTime:
        if recorder.failure is not None:
            return _finish(info, recorder, started, FAILED,
                           f"shrinking stopped after {clock.shrink_seconds:g} s; shown is the smallest counterexample so far")
        return _finish(info, recorder, started, PASSED,
                       f"time budget reached after {recorder.calls} examples")
    except Flaky:
        if recorder.failure is not None:
            return _finish(info, recorder, started, FAILED,
                           "flaky: the shrunk counterexample did not fail again when replayed; shown is the last one seen")
        return _finish(info, recorder, started, ERROR, "hypothesis reported a flaky test without a counterexample")
    except AssertionError:
        if recorder.failure is not None:
            return _finish(info, recorder, started, FAILED, None)
        raise
    except HypothesisException as error:
        return _finish(info, recorder, started, ERROR, f"hypothesis: {type(error).__name__}: {error}")
    if recorder.failure is not None:
        # A counterexample was seen but hypothesis could not replay it: not reproducible.
        return _finish(info, recorder, started, FAILED,
                       "flaky: a counterexample was seen but did not fail again when replayed")
    return _finish(info, recorder, started, PASSED, None)


def run_merge_property(prop: MergeProperty, subject: Subject, budget: Budget, clock: _Clock,
                       on_call: Callable[[int], None] | None = None) -> PropertyResult:
    recorder = _Recorder(on_call)
    info = next(i for i in all_properties() if i.name == prop.name)

    def check(example) -> None:
        recorder.call()
        if clock.spent(recorder):
            raise _OutOfTime()
        found = prop.check(subject, example)
        if found is not None:
            recorder.found(found)
            raise AssertionError(found.message)

    test = seed(budget.seed)(_settings(budget)(given(prop.examples(subject.caps))(check)))
    return _drive(info, test, recorder, clock)


def run_writer_property(subject: Subject, budget: Budget, clock: _Clock,
                        on_call: Callable[[int], None] | None = None) -> PropertyResult:
    recorder = _Recorder(on_call)

    def on_step() -> None:
        if clock.spent(recorder):
            raise _OutOfTime()

    run = WriterRun(subject, on_step)
    machine = machine_for(run)

    class Counting(machine):
        def __init__(self):
            recorder.call()
            super().__init__()

        def apply(self, op, args):
            try:
                return super().apply(op, args)
            except AssertionError:
                recorder.found(run.failure)
                raise

    Counting.__name__ = "WriterOps"
    test = seed(budget.seed)(get_state_machine_test(Counting, settings=_settings(budget, stateful_step_count=WRITER_STEPS)))
    return _drive(WRITER_INFO, test, recorder, clock)


@dataclass
class FuzzRun:
    seed: int
    examples: int
    max_seconds: float | None
    results: list[PropertyResult] = field(default_factory=list)
    duration: float = 0.0

    @property
    def failed(self) -> list[PropertyResult]:
        return [r for r in self.results if r.status == FAILED]


def run_properties(subject: Subject, names: list[str], budget: Budget,
                   progress: Callable[[PropertyResult], None] | None = None,
                   on_example: Callable[[str, int], None] | None = None) -> FuzzRun:
    """Run the named properties in order, each with the full example budget; `progress` is
    told each property's result, `on_example` the property and its count of examples so far."""
    clock = _Clock(budget)
    run = FuzzRun(budget.seed, budget.examples, budget.max_seconds)
    by_name = {p.name: p for p in MERGE_PROPERTIES}
    for name in names:
        info = next(i for i in all_properties() if i.name == name)
        on_call = (lambda count, name=name: on_example(name, count)) if on_example else None
        missing = [op for op in info.needs if not subject.supports(op)]
        if missing:
            result = PropertyResult(info.name, info.title, info.requirement, info.section, SKIPPED,
                                    note=f"the adapter does not declare {', '.join(missing)}")
        elif clock.spent(_Recorder()):
            result = PropertyResult(info.name, info.title, info.requirement, info.section, SKIPPED,
                                    note="the time budget was spent before this property started")
        elif name == WRITER_PROPERTY:
            result = run_writer_property(subject, budget, clock, on_call)
        else:
            result = run_merge_property(by_name[name], subject, budget, clock, on_call)
        run.results.append(result)
        if progress is not None:
            progress(result)
    run.duration = time.monotonic() - clock.started
    return run
