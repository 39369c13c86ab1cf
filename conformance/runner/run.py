"""Running many vectors, on one implementation or a pool of them (`-j N`).

With N workers, N independent implementations (adapter processes) take
vectors from one queue. Results are sorted by vector id, so the output of a
parallel run is the same as that of a serial one. `RunRecord` is
everything the reports need about a finished run.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from conformance.protocol.messages import Describe
from conformance.runner.execute import VectorResult, run_vector
from conformance.runner.grading import Grade, GradedVector
from conformance.runner.implementations import Implementation
from conformance.runner.requirements import RequirementIndex
from conformance.runner.vectors import Vector


def run_vectors(vectors: list[Vector], primary: Implementation, described: Describe, workdir: Path,
                jobs: int = 1, on_result: Callable[[VectorResult], None] | None = None, *,
                keep_scratch: Path | None = None) -> list[VectorResult]:
    """Run every vector; `primary` is already described. Never raises for an adapter's misbehaviour.
    With `keep_scratch`, failing vectors leave their scratch directories there."""
    workers = [primary] + [primary.fork() for _ in range(max(1, min(jobs, len(vectors))) - 1)]
    pending: queue.Queue[Vector] = queue.Queue()
    for vector in vectors:
        pending.put(vector)
    results: list[VectorResult] = []
    lock = threading.Lock()

    def work(implementation: Implementation) -> None:
        while True:
            try:
                vector = pending.get_nowait()
            except queue.Empty:
                return
            result = run_vector(vector, implementation, described, workdir, keep_scratch)
            with lock:
                results.append(result)
                if on_result:
                    on_result(result)

    try:
        if len(workers) == 1:
            work(primary)
        else:
            threads = [threading.Thread(target=work, args=(worker,), daemon=True) for worker in workers]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
    finally:
        for worker in workers[1:]:
            worker.close()
    return sorted(results, key=lambda result: result.id)


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
