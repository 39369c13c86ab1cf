"""Builders for the mutant tests: synthetic runs graded by the runner's own grading."""

from __future__ import annotations

from pathlib import Path

from conformance import SPEC_VERSION, resources
from conformance.mutants.evaluate import AdapterRun, MutationRun, Selection, judge
from conformance.mutants.registry import Mutant
from conformance.runner.execute import PASS, VectorResult
from conformance.runner.grading import grade, grade_vectors
from conformance.runner.requirements import load_requirements
from conformance.runner.vectors import Vector

INDEX = load_requirements(resources.vectors_dir() / "requirements.json")
MUST = "S5.2-newest-wins"
SHOULD = "S3.4-readers-resolve-wikilinks"


def vector(vector_id: str, level: str = "full", requirement: str = MUST, ambiguous: bool = False) -> Vector:
    return Vector(
        id=vector_id, title=f"title of {vector_id}", sections=("5.2",), requirements=(requirement,), level=level,
        tags=("ambiguous",) if ambiguous else (), ambiguity="AMB-TIE" if ambiguous else None,
        op="merge_sessions", input={}, expect=({"path": "/live", "count": 0},), digest="0" * 64,
        file="synthetic.json", root=Path("."),
    )


# One deciding vector per level, more at Full, and two that never decide a level.
VECTORS = [
    vector("r.one", "reader"),
    vector("w.one", "writer"),
    vector("f.one"),
    vector("f.two"),
    vector("f.three"),
    vector("f.four"),
    vector("s.should", requirement=SHOULD),
    vector("a.advisory", ambiguous=True),
]


def adapter_run(label: str, outcomes: dict[str, str] | None = None, fault: str | None = None,
                only: tuple[str, ...] | None = None) -> AdapterRun:
    """A run of VECTORS (or of the vectors with the ids in `only`: a focused run)."""
    if fault:
        return AdapterRun(label, fault=fault)
    outcomes = outcomes or {}
    vectors = [item for item in VECTORS if only is None or item.id in only]
    results = [VectorResult(item.id, outcomes.get(item.id, PASS)) for item in vectors]
    graded = grade_vectors(vectors, results, INDEX)
    return AdapterRun(label, "full", graded, grade(graded, SPEC_VERSION, "full"), duration=1.25,
                      focused=only is not None)


def mutant(level: str = "full", mutant_id: str = "07", slug: str = "synthetic") -> Mutant:
    return Mutant(
        id=mutant_id, file=f"{mutant_id}_{slug}.py", rule="a synthetic | bug", sections=("5.2",),
        requirements=(MUST,), level=level, directory=Path("."),
    )


def mutation_run(*cases: tuple[Mutant, AdapterRun], reference: AdapterRun | None = None) -> MutationRun:
    reference = reference or adapter_run("reference")
    verdicts = [judge(case_mutant, run, reference) for case_mutant, run in cases]
    return MutationRun(Selection(VECTORS, INDEX, "ab" * 32), reference, verdicts, jobs=2, duration=3.5)
