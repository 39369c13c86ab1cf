"""Running the corpus against the reference adapter and every mutant, and judging each.

Every run goes through the real adapter protocol: the mutant is a
subprocess, in persistent mode, taking the vectors one at a time (the
concurrency vectors start their own extra processes). Several runs may go
at once (`jobs`), one thread each; the adapters are separate processes.

A mutant is *killed* when it does not earn Full and at least one vector of
the level its bug belongs to catches it. A vector *catches* a mutant when
it passes against the reference adapter and, against the mutant, fails a
MUST check (or errors, having one): a vector that the reference fails too
shows nothing about the mutant. A mutant of a SHOULD rule (or of the kit's
reading of an ambiguity) is never killed: it must earn Full and be caught
at its own strength, by a failed SHOULD (or advisory) check, and is
reported so, outside the score.

A focused run (`run_mutants(..., focused=True)`, what the kit's own tests
use) gives each mutant of a MUST rule only the vectors that cite one of its
requirements, as a kill on a subset of the corpus is a kill on the corpus:
the catching vectors fail against the whole corpus as well, and one of them
blocks Full. The grade of such a run speaks of those vectors only (the levels
without any are untested); a mutant not caught by its own requirements'
vectors is reported as surviving, which says that the registry names the
wrong requirement. Mutants of SHOULD rules must earn Full, which only the
whole corpus can show, so they always take it; so does the reference.
"""

from __future__ import annotations

import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from conformance import SPEC_VERSION, resources
from conformance.mutants.registry import Mutant
from conformance.protocol.client import DEFAULT_TIMEOUT
from conformance.protocol.messages import AdapterFault
from conformance.protocol.process import StartError
from conformance.runner.adapter_files import remove_tree
from conformance.runner.execute import ERROR, FAIL, PASS
from conformance.runner.grading import Grade, GradedVector, claimed_level, grade, grade_vectors
from conformance.runner.implementations import AdapterImplementation
from conformance.runner.requirements import RequirementIndex, load_requirements
from conformance.runner.strength import LABELS, MUST
from conformance.runner.run import run_vectors
from conformance.runner.selection import Filters, select
from conformance.runner.vectors import LEVELS, Vector, load_corpus

FAILED = (FAIL, ERROR)


@dataclass(frozen=True)
class Selection:
    """The vectors every run executes: the whole bundled corpus at the current spec version."""

    vectors: list[Vector]
    index: RequirementIndex
    corpus_digest: str


def load_selection(extra_roots: Sequence[Path] = ()) -> Selection | str:
    """The bundled corpus (plus `extra_roots`), or a message saying why it cannot run."""
    corpus = load_corpus([resources.vectors_dir(), *extra_roots])
    if corpus.problems:
        shown = "\n".join(f"  {problem}" for problem in corpus.problems[:10])
        return f"{len(corpus.problems)} problem(s) in the vector files:\n{shown}"
    index = load_requirements(resources.vectors_dir() / "requirements.json")
    vectors, _newer = select(corpus.vectors, Filters(), index, SPEC_VERSION)
    if not vectors:
        return "the corpus has no vectors"
    return Selection(vectors, index, corpus.digest)


@dataclass
class AdapterRun:
    """One run of the selection against one adapter command."""

    label: str
    claimed: str | None = None
    graded: list[GradedVector] = field(default_factory=list)
    grade: Grade | None = None
    fault: str | None = None          # the adapter could not be started or described
    duration: float = 0.0
    focused: bool = False             # run on the vectors of the mutant's requirements only

    @property
    def earned(self) -> str | None:
        return self.grade.earned if self.grade else None

    @property
    def lost(self) -> str | None:
        """The lowest level not earned (None when Full is earned)."""
        if self.earned == LEVELS[-1]:
            return None
        return LEVELS[0] if self.earned is None else LEVELS[LEVELS.index(self.earned) + 1]

    def outcomes(self) -> dict[str, str]:
        return {item.vector.id: item.result.outcome for item in self.graded}


def focused_selection(mutant: Mutant, selection: Selection) -> Selection | None:
    """The vectors of `selection` that cite one of the mutant's requirements,
    for a mutant of a MUST rule (None for any other, or when none cites them)."""
    if mutant.strength != MUST:
        return None
    wanted = set(mutant.requirements)
    vectors = [vector for vector in selection.vectors if wanted.intersection(vector.requirements)]
    return Selection(vectors, selection.index, selection.corpus_digest) if vectors else None


def run_adapter(label: str, command: Sequence[str], selection: Selection,
                timeout: float = DEFAULT_TIMEOUT, on_vector: Callable[[], None] | None = None,
                focused: bool = False) -> AdapterRun:
    """Run every selected vector against `command`, persistent mode, one vector at a time
    (`on_vector` is called as each one finishes; `focused`: the selection is a mutant's own vectors)."""
    run = AdapterRun(label, focused=focused)
    started = time.monotonic()
    workdir = Path(tempfile.mkdtemp(prefix=f"memoir-mutants-{label}-"))
    implementation = None
    try:
        try:
            implementation = AdapterImplementation(list(command), workdir=workdir / "adapters", timeout=timeout)
        except StartError as error:
            run.fault = f"cannot start the adapter: {error}"
            return run
        described = implementation.describe()
        if isinstance(described, AdapterFault):
            tail = described.stderr_tail.strip()
            run.fault = f"cannot describe the adapter: {described}" + (f"; stderr: {tail[-500:]}" if tail else "")
            return run
        results = run_vectors(selection.vectors, implementation, described, workdir / "vectors",
                              on_result=(lambda result: on_vector()) if on_vector else None)
        run.graded = grade_vectors(selection.vectors, results, selection.index)
        run.claimed = claimed_level(described.claims, None)
        run.grade = grade(run.graded, SPEC_VERSION, run.claimed)
        return run
    finally:
        if implementation is not None:
            implementation.close()
        remove_tree(workdir)
        run.duration = time.monotonic() - started


@dataclass
class Verdict:
    """What the corpus made of one mutant."""

    mutant: Mutant
    run: AdapterRun
    caught: list[GradedVector]        # vectors that pass on the reference and fail a MUST check here
    other_failures: list[GradedVector]  # vectors that fail only SHOULD or advisory checks here

    @property
    def caught_at_level(self) -> list[GradedVector]:
        """The catching vectors of the level the mutant's bug belongs to."""
        return [item for item in self.caught if item.vector.level == self.mutant.level]

    @property
    def caught_at_strength(self) -> list[GradedVector]:
        """For a SHOULD or advisory mutant: the vectors failing a check of exactly its strength."""
        return [item for item in self.other_failures if self.mutant.strength in item.failed_strengths]

    @property
    def counted(self) -> bool:
        """A mutant of a MUST rule: it counts towards the score."""
        return self.mutant.strength == MUST

    @property
    def killed(self) -> bool:
        return (self.counted and self.run.fault is None and self.run.earned != LEVELS[-1]
                and bool(self.caught_at_level))

    @property
    def caught_as_expected(self) -> bool:
        """Killed (a MUST mutant), or caught at its strength with Full earned (any other)."""
        if self.counted:
            return self.killed
        return self.run.fault is None and self.run.earned == LEVELS[-1] and bool(self.caught_at_strength)

    @property
    def word(self) -> str:
        if self.counted:
            return "killed" if self.killed else "SURVIVED"
        if self.caught_as_expected:
            return f"caught at {LABELS[self.mutant.strength]} level (not counted)"
        return f"NOT CAUGHT at {LABELS[self.mutant.strength]} level"

    @property
    def why_not_killed(self) -> str | None:
        if self.caught_as_expected:
            return None
        if self.run.fault:
            return self.run.fault
        if not self.counted:
            if self.run.earned != LEVELS[-1]:
                return (f"a {LABELS[self.mutant.strength]}-only bug lost {self.run.lost}: a MUST check fails against "
                        f"it ({', '.join(item.vector.id for item in self.caught[:3])})")
            return f"no {LABELS[self.mutant.strength]} check fails against it"
        if self.run.earned == LEVELS[-1]:
            return "it earned Full: no MUST check fails against it"
        if not self.caught:
            return "every vector it fails also fails against the reference"
        levels = sorted({item.vector.level for item in self.caught}, key=LEVELS.index)
        return (f"no {self.mutant.level} vector catches it (only {', '.join(levels)} vectors do): "
                f"the corpus lacks a {self.mutant.level} vector for this rule")


def judge(mutant: Mutant, run: AdapterRun, reference: AdapterRun) -> Verdict:
    passed_on_reference = {vector_id for vector_id, outcome in reference.outcomes().items() if outcome == PASS}
    caught, other = [], []
    for item in run.graded:
        if item.result.outcome not in FAILED or item.vector.id not in passed_on_reference:
            continue
        (caught if item.blocks else other).append(item)
    # The vectors of the mutant's own level first: they are the evidence that kills it.
    caught.sort(key=lambda item: (item.vector.level != mutant.level, item.vector.id))
    return Verdict(mutant, run, caught, other)


@dataclass
class MutationRun:
    """The reference run and one verdict per mutant."""

    selection: Selection
    reference: AdapterRun
    verdicts: list[Verdict]
    jobs: int
    duration: float

    @property
    def killed(self) -> int:
        return sum(verdict.killed for verdict in self.verdicts)

    @property
    def total(self) -> int:
        """Mutants of MUST rules: the ones the score counts."""
        return sum(verdict.counted for verdict in self.verdicts)

    @property
    def reference_conforms(self) -> bool:
        return self.reference.fault is None and self.reference.earned == LEVELS[-1]

    @property
    def ok(self) -> bool:
        return self.reference_conforms and all(verdict.caught_as_expected for verdict in self.verdicts)


def reference_command() -> list[str]:
    return [sys.executable, str(resources.runners_dir() / "reference" / "adapter.py")]


def run_mutants(mutants: Sequence[Mutant], selection: Selection, jobs: int = 1,
                timeout: float = DEFAULT_TIMEOUT,
                on_run: Callable[[AdapterRun], None] | None = None,
                on_vector: Callable[[], None] | None = None, focused: bool = False) -> MutationRun:
    """Run the reference and every mutant (`jobs` runs at a time) and judge each mutant;
    `on_run` is called as each run finishes, `on_vector` as each vector of any run does.
    `focused`: each mutant of a MUST rule takes only its requirements' vectors (see above)."""
    started = time.monotonic()
    lock = threading.Lock()

    def one(label: str, command: list[str], mutant: Mutant | None = None) -> AdapterRun:
        own = focused_selection(mutant, selection) if focused and mutant is not None else None
        run = run_adapter(label, command, own or selection, timeout, on_vector, focused=own is not None)
        if on_run:
            with lock:
                on_run(run)
        return run

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        reference_future = pool.submit(one, "reference", reference_command())
        futures = [(mutant, pool.submit(one, mutant.name, mutant.command(), mutant)) for mutant in mutants]
        reference = reference_future.result()
        verdicts = [judge(mutant, future.result(), reference) for mutant, future in futures]
    return MutationRun(selection, reference, verdicts, max(1, jobs), time.monotonic() - started)
