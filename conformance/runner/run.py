"""Running many vectors, on one implementation or a pool of them (`-j N`).

With N workers, N independent implementations (adapter processes) take
vectors from one queue. Results are sorted by vector id, so the output of a
parallel run is the same as that of a serial one. `RunRecord` is
everything the reports need about a finished run.

Around each vector the run also enforces what docs/adapter-protocol.md
promises about hostile adapters:

- files an adapter created in the runner's area outside its scratch
  directories are an `outside_scratch` fault of the vector that was running
  (each worker has a vector area of its own, so with one worker, or for a
  file in a worker's own area, the charge is exact);
- a second answer to a request is charged to the vector that sent it,
  once the run is over (`on_result` has seen the first verdict by then);
  what follows the describe handshake is no vector's: a note of the run;
- fail fast: after `give_up_after` timeouts or crashes in a row of one op,
  the vectors left that need the op are errored without being sent;
- Ctrl-C or SIGTERM stops every adapter at once, starts no new one, and
  waits for the workers before the exception goes on.
"""

from __future__ import annotations

import queue
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from conformance.protocol.messages import AdapterFault, Describe, Outcome
from conformance.protocol.process import stopping_adapters
from conformance.runner.containment import StrayWatch, adapter_scratch, nothing
from conformance.runner.execute import ERROR, VectorResult, required_ops, run_vector, scratch_prefix
from conformance.runner.grading import Grade, GradedVector
from conformance.runner.implementations import Call, Implementation
from conformance.runner.requirements import RequirementIndex
from conformance.runner.vectors import ExpansionProblem, Vector, effective_caps, expand

DEFAULT_GIVE_UP_AFTER = 5
# How long an interrupted run waits for its workers to notice.
STOP_GRACE = 10.0


class GiveUp:
    """Counts timeouts and crashes of each op in a row; after `limit` of them the op is given up."""

    def __init__(self, limit: int):
        self.limit = limit
        self.in_a_row: Counter[str] = Counter()
        self.reasons: dict[str, str] = {}
        self.skipped: Counter[str] = Counter()
        self._lock = threading.Lock()

    def record(self, op: str, outcome: Outcome) -> None:
        with self._lock:
            if not (isinstance(outcome, AdapterFault) and outcome.kind in ("timeout", "crashed")):
                self.in_a_row[op] = 0
                return
            self.in_a_row[op] += 1
            if self.limit and self.in_a_row[op] >= self.limit and op not in self.reasons:
                self.reasons[op] = (f"the adapter timed out or crashed on {op} {self.limit} times in a row "
                                    f"(the last time: {outcome.kind}); see --give-up-after")

    def skip(self, ops: Sequence[str]) -> str | None:
        """Why a vector needing `ops` is not sent, or None."""
        with self._lock:
            for op in ops:
                if op in self.reasons:
                    self.skipped[op] += 1
                    return f"not sent: {self.reasons[op]}"
        return None

    def notes(self) -> list[str]:
        return [f"gave up on {op}: {reason}; {self.skipped[op]} vector(s) needing it were errored without being sent"
                for op, reason in sorted(self.reasons.items())]


class _Watched:
    """An implementation whose every outcome is counted by `GiveUp`."""

    def __init__(self, inner: Implementation, give_up: GiveUp):
        self.inner = inner
        self.give_up = give_up

    def __getattr__(self, name: str):
        return getattr(self.inner, name)

    def call(self, op: str, args: dict) -> Outcome:
        outcome = self.inner.call(op, args)
        self.give_up.record(op, outcome)
        return outcome

    def call_in_parallel(self, jobs: Sequence[Sequence[Call]]):
        outcomes = self.inner.call_in_parallel(jobs)
        if isinstance(outcomes, AdapterFault):
            self.give_up.record(jobs[0][0][0], outcomes)
        else:
            for job, results in zip(jobs, outcomes):
                for (op, _), outcome in zip(job, results):
                    self.give_up.record(op, outcome)
        return outcomes


def _ops_needed(vector: Vector, described: Describe) -> list[str]:
    expanded = expand(vector, effective_caps(described.caps))
    return [] if isinstance(expanded, ExpansionProblem) else required_ops(expanded)


def _charge(result: VectorResult, fault: AdapterFault) -> None:
    """Make `result` an error for `fault`, found after the vector's own verdict."""
    if result.outcome == ERROR:
        result.detail = f"{result.detail}; and {fault}"
        return
    result.outcome = ERROR
    result.detail = str(fault) if not result.detail else f"{fault}; before that: {result.detail}"
    result.stderr_tail = fault.stderr_tail or result.stderr_tail


def run_vectors(vectors: list[Vector], primary: Implementation, described: Describe, workdir: Path,
                jobs: int = 1, on_result: Callable[[VectorResult], None] | None = None, *,
                give_up_after: int = DEFAULT_GIVE_UP_AFTER, notes: list[str] | None = None,
                keep_scratch: Path | None = None, own_root: bool = False) -> list[VectorResult]:
    """Run every vector; `primary` is already described. Never raises for an adapter's misbehaviour.

    Every worker, `primary` included, is closed at the end. Notes for the
    report (ops given up) are appended to `notes`. With `keep_scratch`,
    failing vectors leave their scratch directories there. With `own_root`,
    the directory around `workdir` is the run's own temporary directory:
    anything but the vectors' and adapters' directories appearing there is
    an adapter's stray file.
    """
    workdir = Path(workdir)
    count = max(1, min(jobs, len(vectors)))
    areas = [workdir / f"w{index + 1}" for index in range(count)]
    for area in areas:
        area.mkdir(parents=True, exist_ok=True)
    # Each worker's adapter may write in its own area only (under --sandbox the others are not even visible).
    workers = [primary] + [primary.fork(writable=area) for area in areas[1:]]
    # A worker checks its own area (empty between its vectors) and the shared directories:
    # the vectors' directory, the adapters' directory and the run's temporary directory around them.
    watch = StrayWatch(workdir.parent)
    watch.watch(workdir, lambda entry: entry.name in {area.name for area in areas})
    shared = [workdir]
    for area, worker in zip(areas, workers):
        watch.watch(area, nothing)
        if worker.scratch_dir is not None and Path(worker.scratch_dir).parent not in shared:
            shared.append(Path(worker.scratch_dir).parent)
            watch.watch(shared[-1], adapter_scratch)
    # The run's own temporary directory: nothing else may appear in it.
    if own_root:
        inside_root = {path.name for path in shared}
        shared.append(workdir.parent)
        watch.watch(workdir.parent, lambda entry: entry.name in inside_root)
    give_up = GiveUp(give_up_after)
    pending: queue.Queue[Vector] = queue.Queue()
    for vector in vectors:
        pending.put(vector)
    results: dict[str, VectorResult] = {}
    lock = threading.Lock()
    stop = threading.Event()

    def work(implementation: Implementation, area: Path) -> None:
        watched = _Watched(implementation, give_up)
        while not stop.is_set():
            try:
                vector = pending.get_nowait()
            except queue.Empty:
                return
            reason = give_up.skip(_ops_needed(vector, described))
            if reason:
                result = VectorResult(vector.id, ERROR, detail=reason)
            else:
                implementation.owner = vector.id
                try:
                    result = run_vector(vector, watched, described, area, keep_scratch)
                    # A scratch directory the adapter made unremovable was charged by run_vector already.
                    watch.excuse(area, scratch_prefix(vector.id))
                    strays = watch.take([area, *shared])
                except Exception as error:  # noqa: BLE001 - a vector without a result would end the run
                    # What run_vector does not guard: its work area, which an adapter can replace (a link, a loop).
                    result, strays = VectorResult(vector.id, ERROR, detail=(
                        f"the runner could not run this vector in its work area {area.name}, which may have "
                        f"been changed by the adapter: {type(error).__name__}: {error}")), []
                if strays:
                    _charge(result, AdapterFault(
                        "outside_scratch",
                        f"the adapter created {', '.join(strays)} in the runner's temporary directory, "
                        "outside the scratch directories it was given (removed)"))
            with lock:
                results[vector.id] = result
                if on_result:
                    on_result(result)

    threads = [threading.Thread(target=work, args=(worker, area), daemon=True)
               for worker, area in zip(workers, areas)]
    try:
        if len(workers) == 1:
            work(primary, areas[0])
        else:
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
    except BaseException:  # Ctrl-C, SIGTERM: leave no adapter and no worker behind
        stop.set()
        with stopping_adapters():
            for thread in threads:
                if thread.is_alive():
                    thread.join(STOP_GRACE)
            for worker in workers:
                worker.close()
        raise
    unowned: Counter[str] = Counter()
    for worker in workers:
        worker.close()
        for late in worker.late_faults():
            if late.owner in results:
                _charge(results[late.owner], late.fault)
            else:   # after describe (every one-shot client's, every restart's): the run's, said once
                unowned[str(late.fault)] += 1
    restarts = sum(getattr(worker, "restarts", 0) for worker in workers)
    if notes is not None:
        notes.extend(give_up.notes())
        notes.extend(f"after the describe step, charged to no vector: {fault}" + (f" ({count} times)" if count > 1 else "")
                     for fault, count in unowned.items())
        if restarts:
            notes.append(f"the adapter was restarted {restarts} time(s) after a fault "
                         "(docs/adapter-protocol.md, \"Restart behaviour\")")
    return sorted(results.values(), key=lambda result: result.id)


@dataclass
class RunRecord:
    """A finished run, as the console, JSON and JUnit reports see it."""

    kit_version: str
    spec: str
    corpus_digest: str
    implementation: str          # the adapter command, or the in-process model
    mode: str                    # persistent, oneshot or in-process
    described: Describe
    protocol: int | None
    options: dict
    graded: list[GradedVector]
    grade: Grade
    requirements: RequirementIndex
    left_out_newer: int = 0      # vectors newer than --spec
    duration: float = 0.0
    seed: int | None = None
    notes: list[str] = field(default_factory=list)
