"""The run in GitHub Actions: annotations and a job summary (`run --github`).

Annotations: an `error` for each vector that makes the run fail (a failed
MUST check, an adapter error or a missing op at or below the claimed level,
an xpass, a stale expect-fail entry), a `warning` for each failure that
costs no level (only SHOULD or advisory checks failed, or above the claimed
level). Each carries the vector's failure block; a vector loaded from a file
under the working directory (your own `--vectors DIR`) is annotated on its
file, at the line of its id.

The job summary: the verdict, one row per level, the counts, every failure
with its first mismatch and links to the requirement text it breaks
(quoted at the end of the summary), and the failure blocks.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO

from conformance.github import Annotations, anchor, cell, code, code_block, text, write_step_summary
from conformance.report.failure_block import describe_failure, vector_source, why_no_cost
from conformance.runner import result_model
from conformance.runner.grading import LEVEL_NAMES, GradedVector, blocks_run, level_line
from conformance.runner.run import RunRecord
from conformance.runner.strength import ADVISORY, LABELS, SHOULD
from conformance.runner.vectors import LEVELS

SHOWN_ROWS = 100        # failures listed in each table of the summary
SHOWN_BLOCKS = 30       # failure blocks in the summary


def deciding(record: RunRecord) -> list[GradedVector]:
    """The vectors that make the run fail."""
    return [item for item in record.graded if blocks_run(item, record.grade)]


def costless(record: RunRecord) -> list[GradedVector]:
    """Failures and errors that cost no level (not waived ones: those are expected)."""
    return [item for item in record.graded
            if item.outcome in ("fail", "error") and not blocks_run(item, record.grade)]


def _location(item: GradedVector) -> dict:
    """file and line of the vector's id, when its file is under the working directory."""
    path, line = vector_source(item.vector)
    try:
        relative = path.resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        return {}
    return {"file": relative.as_posix(), "line": line}


def _why(item: GradedVector, record: RunRecord) -> str:
    """A few words on how the vector fails the run, or why it costs nothing."""
    if not blocks_run(item, record.grade):
        return why_no_cost(item, record.grade)
    if item.outcome == "xpass":
        return "listed as an expected failure, but passed"
    if item.outcome == "stale":
        return "its expect-fail entry is stale (the vector changed)"
    if item.result.outcome == "not_applicable":
        return "needs an op the adapter does not do"
    return "adapter error" if item.result.outcome == "error" else "MUST checks failed"


def annotations(record: RunRecord) -> Annotations:
    found = Annotations()
    for level, items in (("error", deciding(record)), ("warning", costless(record))):
        for item in items:
            title = f"memoir {LEVEL_NAMES[item.vector.level]}: {item.vector.id}: {_why(item, record)}"
            found.add(level, describe_failure(item, record.requirements), title=title, **_location(item))
    return found


def _first_mismatch(item: GradedVector) -> str:
    result = item.result
    if result.failures:
        failure = result.failures[0]
        more = len(result.failures) - 1
        return (f"{code(failure.path or '/')} ({failure.check}): {text(failure.message)}"
                + (f" (+{more} more)" if more else ""))
    return text(result.detail or item.outcome)


def _cited(item: GradedVector) -> list[str]:
    """The requirements the vector's failures break (all of its own when no check failed)."""
    cited = [rid for failure in item.result.failures for rid in failure.requirements]
    return list(dict.fromkeys(cited or item.vector.requirements))


def _table(items: list[GradedVector], record: RunRecord) -> list[str]:
    lines = ["| vector | level | spec | why | first mismatch | requirements |", "|---|---|---|---|---|---|"]
    for item in items[:SHOWN_ROWS]:
        lines.append(f"| {code(item.vector.id)} | {LEVEL_NAMES[item.vector.level]} | {', '.join(item.vector.sections)} "
                     f"| {cell(_why(item, record))} | {cell(_first_mismatch(item))} "
                     f"| {' '.join(f'[{rid}](#{anchor(rid)})' for rid in _cited(item))} |")
    if len(items) > SHOWN_ROWS:
        lines.append(f"\n... and {len(items) - SHOWN_ROWS} more (see the console output or the JSON report)")
    return lines


def summary(record: RunRecord) -> str:
    grade = record.grade
    results = result_model.of_run(record.graded, grade)
    lines = [f"## memoir-conform {record.kit_version}: {text(record.described.name)} {text(record.described.version)}",
             "", f"**{cell(results.headline)}**", "", cell(grade.verdict), ""]
    if not grade.filtered:
        lines += ["| level | result | its own vectors |", "|---|---|---|"]
        for level in LEVELS:
            name, _, state = level_line(grade, level).partition(": ")
            lines.append(f"| {name} | {cell(state)} | {cell(results.level_cells(level))} |")
        lines.append("")
    tallies = [f"{LABELS[name]} {grade.tallies[name].passed}/{grade.tallies[name].total}"
               for name in (SHOULD, ADVISORY) if grade.tallies[name].total]
    lines += [results.counts_line() + (f"; {', '.join(tallies)}" if tallies else ""),
              f"corpus `{record.corpus_digest[:16]}`, spec v{record.spec}, {record.mode} adapter", ""]
    failing, free = deciding(record), costless(record)
    if failing:
        lines += [f"### Failures that fail the run ({len(failing)})", "", *_table(failing, record), ""]
    if free:
        lines += [f"### Failures that cost no level ({len(free)})", "", *_table(free, record), ""]
    shown = (failing + free)[:SHOWN_BLOCKS]
    if shown:
        lines += ["### Failure blocks", ""]
        for item in shown:
            lines += [f"<details><summary>{code(item.vector.id)}: {cell(_why(item, record))}</summary>", "",
                      code_block(describe_failure(item, record.requirements)), "", "</details>", ""]
    cited = dict.fromkeys(rid for item in failing + free for rid in _cited(item))
    if cited:
        lines += ["### Requirements cited", ""]
        for rid in cited:
            requirement = record.requirements.get(rid)
            lines += [f"#### {rid}", "", (f"{requirement.keyword}, spec {requirement.section}: {requirement.text}"
                                          if requirement else "not in the requirement index (counts as MUST)"), ""]
    return "\n".join(lines) + "\n"


def emit(record: RunRecord, out: TextIO | None = None) -> list[str]:
    """Write the annotations to `out` (stdout) and the summary to $GITHUB_STEP_SUMMARY; notes for the report."""
    annotations(record).write(out if out is not None else sys.stdout)
    problem = write_step_summary(summary(record))
    return [problem] if problem else []


def step_outputs(record: RunRecord) -> list[str]:
    """The result model as step outputs in $GITHUB_OUTPUT (when it is set, with or
    without --github): `level`, `earned`, `must_failed`, ...; notes for the report."""
    problem = result_model.write_github_output(result_model.of_run(record.graded, record.grade))
    return [problem] if problem else []
