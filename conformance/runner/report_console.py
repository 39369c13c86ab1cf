"""The run as a person reads it: a table, the failures, one verdict line.

The table counts outcomes by spec section and level. Each failing vector
then shows its failure block (`conformance.runner.failure_block`: the
requirements it tests, its input, what was sent, every mismatch with the
strength of its check, the adapter's stderr). Then one line per level (earned, or why not, waivers
named), and last the verdict (spec 8).
"""

from __future__ import annotations

from collections import Counter

from tabulate import tabulate

from conformance.runner.failure_block import describe_failure
from conformance.runner.grading import LEVEL_NAMES, OUTCOMES, GradedVector, level_line
from conformance.runner.report_junit import _section_key
from conformance.runner.run import RunRecord
from conformance.runner.vectors import LEVELS

COLUMN = {"pass": "pass", "fail": "fail", "error": "error", "not_applicable": "n/a",
          "xfail": "xfail", "xpass": "xpass", "stale": "stale"}
SHOWN_OUTCOMES = ("fail", "error", "xpass", "stale")


def table(graded: list[GradedVector]) -> str:
    counts: dict[tuple[str, str], Counter] = {}
    for item in graded:
        counts.setdefault((item.vector.sections[0], item.vector.level), Counter())[item.outcome] += 1
    used = [outcome for outcome in OUTCOMES
            if outcome in ("pass", "fail", "error", "not_applicable") or any(c[outcome] for c in counts.values())]
    rows = []
    for section, level in sorted(counts, key=lambda key: (_section_key(key[0]), LEVELS.index(key[1]))):
        rows.append([section, LEVEL_NAMES[level]] + [counts[(section, level)][outcome] or "" for outcome in used])
    total = Counter(item.outcome for item in graded)
    rows.append(["all", ""] + [total[outcome] for outcome in used])
    return tabulate(rows, headers=["section", "level"] + [COLUMN[outcome] for outcome in used], tablefmt="simple")


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
    out.append(record.grade.verdict)
    return "\n".join(out)
