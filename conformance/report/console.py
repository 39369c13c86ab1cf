"""The run as a person reads it: a table, the failures, one verdict line.

The table counts vectors by spec section and level, in the buckets of
`conformance.runner.result_model` (MUST failed apart from SHOULD and
advisory failed, as in every other output). Each failing vector
then shows its failure block (`conformance.report.failure_block`: the
requirements it tests, its input, what was sent, every mismatch with the
strength of its check, the adapter's stderr). Then one line per level (earned, or why not, waivers
named), the short verdict, and last its long explanation (spec 8).
"""

from __future__ import annotations

from collections import Counter

from tabulate import tabulate

from conformance.runner import result_model
from conformance.report.failure_block import describe_failure
from conformance.runner.grading import LEVEL_NAMES, GradedVector, level_line
from conformance.report.junit import _section_key
from conformance.runner.run import RunRecord
from conformance.runner.vectors import LEVELS

SHOWN_OUTCOMES = ("fail", "error", "xpass", "stale")
ALWAYS_SHOWN = (result_model.PASSED, result_model.MUST_FAILED, result_model.ERRORS, result_model.NOT_APPLICABLE)


def table(graded: list[GradedVector]) -> str:
    """Vectors by section and level, in the result model's buckets (the same columns as every output)."""
    counts: dict[tuple[str, str], Counter] = {}
    for item in graded:
        name = result_model.bucket(item.outcome, item.result.outcome, item.failed_strengths)
        counts.setdefault((item.vector.sections[0], item.vector.level), Counter())[name] += 1
    used = [name for name in result_model.BUCKETS
            if name in ALWAYS_SHOWN or any(c[name] for c in counts.values())]
    rows = []
    for section, level in sorted(counts, key=lambda key: (_section_key(key[0]), LEVELS.index(key[1]))):
        rows.append([section, LEVEL_NAMES[level]] + [counts[(section, level)][name] or "" for name in used])
    total = sum(counts.values(), Counter())
    rows.append(["all", ""] + [total[name] for name in used])
    return tabulate(rows, headers=["section", "level"] + [result_model.LABELS[name] for name in used],
                    tablefmt="simple")


def render(record: RunRecord) -> str:
    out = [
        f"memoir-conform {record.kit_version}: {record.implementation}"
        + ("" if record.mode == "in-process" else f" ({record.mode})") + ", "
        f"{record.described.name} {record.described.version}, protocol {record.protocol}, spec v{record.spec}",
        f"corpus {record.corpus_digest[:16]}, {len(record.graded)} vectors"
        + (f", {record.left_out_newer} left out as newer than v{record.spec}" if record.left_out_newer else ""),
        "",
        table(record.graded),
    ]
    shown = [item for item in record.graded if item.outcome in SHOWN_OUTCOMES]
    if shown:
        out.append("")
        out.extend(describe_failure(item, record.requirements) + "\n" for item in shown)
    not_applicable = Counter(
        item.result.detail + ("" if item.blocks else " (blocks no level)")
        for item in record.graded if item.outcome == "not_applicable")
    for reason, count in sorted(not_applicable.items(), key=lambda pair: str(pair[0])):
        out.append(f"not applicable ({count}): {reason}")
    for note in record.notes:
        out.append(f"note: {note}")
    out.append("")
    if not record.grade.filtered:
        out.extend(level_line(record.grade, level) for level in LEVELS)
    results = result_model.of_run(record.graded, record.grade)
    # The short verdict, then the long explanation (the last line, as it always was).
    out.append(f"verdict: {results.headline}")
    out.append(record.grade.verdict)
    return "\n".join(out)
