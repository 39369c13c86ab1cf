"""Running the bundled corpus against in-process implementations that differ
from the reference model in one way, and grading them (the verdict-honesty
tests: tests/runner/test_verdict_honesty.py, test_conforming_choices.py).

Only the vectors that send an op the implementation changes are run against
it; every other vector's result is the reference model's, which it is by
construction (the `reference_results` fixture, tests/conftest.py).
"""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path

from conformance import SPEC_VERSION, resources
from conformance.model.frontmatter import ParsedEntry, parse_entry_text
from conformance.model.session import DEFAULT_CAPS
from conformance.model.store import atomic_write
from conformance.protocol.messages import OkResponse
from conformance.runner.execute import required_ops, run_vector
from conformance.runner.implementations import ModelImplementation
from conformance.runner.grading import grade, grade_vectors
from conformance.runner.requirements import load_requirements
from conformance.runner.vectors import RUNNER_DRIVEN_OPS, Vector, expand

INDEX = load_requirements(resources.vectors_dir() / "requirements.json")


def _ops(vector) -> set[str]:
    if vector.op in RUNNER_DRIVEN_OPS:
        return set()
    expanded = expand(vector, DEFAULT_CAPS)
    return set(required_ops(expanded)) if isinstance(expanded, Vector) else set()


def results_of(corpus, reference_results, implementation, changed_ops, tmp_path):
    """The results of `implementation`, running only the vectors that send one of `changed_ops`."""
    described = implementation.describe()
    return [run_vector(vector, implementation, described, tmp_path) if _ops(vector) & set(changed_ops)
            else reference_results[vector.id] for vector in corpus]


def graded_of(corpus, results, expected=()):
    graded = grade_vectors(corpus, results, INDEX, list(expected))
    return graded, grade(graded, SPEC_VERSION, "full", waived_by="known-failures.json" if expected else None)


def graded_run(corpus, reference_results, implementation, changed_ops, tmp_path):
    return graded_of(corpus, results_of(corpus, reference_results, implementation, changed_ops, tmp_path))


def failing(graded, strength="must"):
    """Ids of the vectors with a failed check of `strength`, with the first failure of each (for messages)."""
    return sorted(item.vector.id for item in graded if strength in item.failed_strengths)


def explain(graded, strength="must", limit=12):
    """The failing vectors of `strength` with their first failed check: an assertion message worth reading."""
    lines = []
    for item in graded:
        if strength in item.failed_strengths:
            first = item.result.failures[0] if item.result.failures else item.result.detail
            lines.append(f"{item.vector.id}: {first}")
    return "\n".join(lines[:limit]) + (f"\n... {len(lines) - limit} more" if len(lines) > limit else "")


def plain(value):
    """Values a YAML engine loaded, as JSON values: dates and date-times as the engine's ISO 8601 text."""
    if isinstance(value, (date, datetime)):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [plain(item) for item in value]
    return value


class RewritesFrontmatter(ModelImplementation):
    """The reference model, with the frontmatter block of each entry file that `write_entry` or
    `update_entry` leaves replaced by `block(parsed)` (the file as the model wrote it); a block of
    None keeps the model's."""

    def block(self, parsed: ParsedEntry) -> str | None:
        raise NotImplementedError

    def call(self, op, args):
        outcome = super().call(op, args)
        if op in ("write_entry", "update_entry") and isinstance(outcome, OkResponse):
            path = Path(args["store"]) / "memory" / f"{args['link']}.md"
            text = path.read_text(encoding="utf-8")
            parsed = parse_entry_text(text)
            block = self.block(parsed) if parsed.has_frontmatter and not parsed.preamble else None
            if block is not None:
                body = "".join(text.splitlines(keepends=True)[parsed.body_start - 1:])
                atomic_write(path, (block + body).encode("utf-8"))
        return outcome
