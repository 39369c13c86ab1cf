"""The run as a person reads it: a table, the failures, one verdict line.

The table counts outcomes by spec section and level. Each failing vector
then shows its id and title, its spec sections, its requirements with their
text, what was sent, expected against actual at the JSON path with the
strength of each failed check (MUST, SHOULD, advisory), and the adapter's
stderr for errors. Then one line per level (earned, or why not, waivers
named), and last the verdict (spec 8).
"""

from __future__ import annotations

import json
from collections import Counter
from textwrap import indent

from tabulate import tabulate

from conformance.runner.checks import MISSING
from conformance.runner.grading import LEVEL_NAMES, OUTCOMES, GradedVector, level_line
from conformance.runner.report_junit import _section_key
from conformance.runner.run import RunRecord
from conformance.runner.strength import ADVISORY, LABELS, MUST
from conformance.runner.vectors import LEVELS

COLUMN = {"pass": "pass", "fail": "fail", "error": "error", "not_applicable": "n/a",
          "xfail": "xfail", "xpass": "xpass", "stale": "stale"}
SHOWN_OUTCOMES = ("fail", "error", "xpass", "stale")
VALUE_CHARS = 300
STDERR_LINES = 15


def _value(value: object) -> str:
    if value is MISSING:
        return "(absent)"
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= VALUE_CHARS else text[: VALUE_CHARS - 3] + "..."


def _readable_args(args: dict) -> dict:
    """Session texts (merge_sessions) shown as the JSON they hold, not as escaped strings."""
    shown = {}
    for key, value in args.items():
        if isinstance(value, str) and value.lstrip().startswith(("{", "[")):
            try:
                value = json.loads(value)
            except ValueError:
                pass
        shown[key] = value
    return shown


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


def _strength_label(strength: str, ambiguity: str | None) -> str:
    return f"advisory: {ambiguity}" if strength == ADVISORY and ambiguity else LABELS[strength]


def describe_failure(item: GradedVector, record: RunRecord) -> str:
    vector, result = item.vector, item.result
    kind = {"fail": "FAIL", "error": "ERROR", "xpass": "XPASS", "stale": "STALE"}[item.outcome]
    badges = [LEVEL_NAMES[vector.level]]
    if item.outcome == "fail" and MUST not in item.failed_strengths:
        badges.append(f"only {' and '.join(LABELS[name] for name in item.failed_strengths)} checks failed: "
                      "no level cost")
    elif item.outcome == "error" and not item.decides:
        badges.append("no MUST check: no level cost")
    lines = [f"{kind} {vector.id}  [{', '.join(badges)}; spec {', '.join(vector.sections)}]", f"  {vector.title}"]
    for requirement_id in vector.requirements:
        requirement = record.requirements.get(requirement_id)
        if requirement is None:
            lines.append(f"  requirement {requirement_id}")
        else:
            lines.append(f"  requirement {requirement_id} ({requirement.keyword}, {requirement.section}): {requirement.text}")
    if item.outcome == "xpass":
        lines.append(f"  listed as an expected failure ({item.expected.reason}) but it passed: remove the entry")
    if item.outcome == "stale":
        lines.append(f"  the expect-fail entry's digest {item.expected.digest[:12]}... is not the vector's "
                     f"{vector.digest[:12]}...: the vector changed; re-check and update the entry")
    for sent in result.sent[:4]:
        lines.append(f"  sent: {sent['op']} {_value(_readable_args(sent['args']))}")
    if len(result.sent) > 4:
        lines.append(f"  ... and {len(result.sent) - 4} more requests")
    for failure, strength in zip(result.failures, item.failure_strengths):
        what = _strength_label(strength, failure.ambiguity)
        lines.append(f"  at {failure.path or '/'} ({failure.check}; {what} {' '.join(failure.requirements)}): "
                     f"{failure.message}")
        lines.append(f"    expected: {_value(failure.expected)}")
        lines.append(f"    actual:   {_value(failure.actual)}")
        if failure.note:
            lines.append(f"    note: {failure.note}")
    if result.outcome == "error":
        lines.append(f"  {result.detail}")
        tail = result.stderr_tail.strip().splitlines()[-STDERR_LINES:]
        if tail:
            lines.append("  stderr (last lines):")
            lines.append(indent("\n".join(tail), "    | "))
    lines.append(f"  vector file: {vector.file}")
    return "\n".join(lines)


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
        out.extend(describe_failure(item, record) + "\n" for item in shown)
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
