"""The machine-readable run report (`--json FILE`), defined by `schema/report.schema.json`.

It records what is needed to reproduce and compare runs: the kit version,
the corpus digest (sha256 over every vector's digest), the adapter's
describe answer and negotiated protocol, the options, and every vector's
outcome with its digest. Every failure says which requirements it checks
and how strongly it binds (must, should, advisory), and the grade keeps the
level earned with nothing waived apart from the level that the waived
failures hide (docs/running.md, "JSON report").
"""

from __future__ import annotations

import json
from pathlib import Path


from conformance import linear_schema, resources
from conformance.runner import result_model
from conformance.report.failure_block import input_lines, show_command
from conformance.runner.grading import GradedVector
from conformance.runner.run import RunRecord
from conformance.safe_text import printable

REPORT_VERSION = 2


def build(record: RunRecord) -> dict:
    grade = record.grade
    return {
        "report_version": REPORT_VERSION,
        "kit": {"name": "memoir-conform", "version": record.kit_version},
        "spec": record.spec,
        "corpus_digest": record.corpus_digest,
        "implementation": {
            "command": record.implementation,
            "mode": record.mode,
            "describe": record.described.to_json(),
            "protocol": record.protocol,
        },
        "options": record.options,
        "seed": record.seed,
        "duration_s": round(record.duration, 3),
        "vectors": [_vector(item) for item in record.graded],
        "summary": {"counts": dict(grade.counts), "results": result_model.of_run(record.graded, grade).to_json(),
                    "left_out_newer": record.left_out_newer, "notes": list(record.notes)},
        "grade": {
            "claimed": grade.claimed,
            "earned": grade.earned,
            "reached_if_waived_fixed": grade.reached_if_waived_fixed,
            "waived_by": grade.waived_by,
            "levels": {
                level: {"earned": status.earned, "reached_if_waived_fixed": status.reached_if_waived_fixed,
                        "deciding": status.deciding, "untested": status.untested,
                        "blocking": {outcome: list(ids) for outcome, ids in status.blocking.items()},
                        "waived": list(status.waived)}
                for level, status in grade.levels.items()
            },
            **{name: {"passed": tally.passed, "total": tally.total} for name, tally in grade.tallies.items()},
            "filtered": grade.filtered,
            "graded_up_to": grade.up_to,
            "verdict": grade.verdict,
            "exit_code": grade.exit_code,
        },
    }


def _vector(item: GradedVector) -> dict:
    vector, result = item.vector, item.result
    data = {
        "id": vector.id,
        "title": vector.title,
        "file": vector.file,
        "level": vector.level,
        "sections": list(vector.sections),
        "requirements": list(vector.requirements),
        "tags": list(vector.tags),
        "op": vector.op,
        "digest": vector.digest,
        "outcome": item.outcome,
        "result": result.outcome,
        "strengths": {name: item.strengths.count(name) for name in ("must", "should", "advisory")},
        "decides": item.decides,
        "failed_strengths": list(item.failed_strengths),
        "not_applicable": ({"kind": result.na_kind, "blocks": item.blocks is not None}
                           if result.outcome == "not_applicable" else None),
        "derived": {"kind": vector.derived, "from": vector.base.id} if vector.derived else None,
        "failures": [{**failure.to_json(), "strength": strength}
                     for failure, strength in zip(result.failures, item.failure_strengths)],
        "detail": result.detail,
        "stderr_tail": result.stderr_tail,
        "sent": result.sent,
        "expected_failure": None,
        "duration_s": round(result.duration, 4),
    }
    if vector.ambiguity:
        data["ambiguity"] = vector.ambiguity
    if item.outcome != "pass":
        # What the site's failure card shows, as the console shows it: the input and how to see it whole.
        data["input"] = [line[2:] for line in input_lines(vector) if not line.strip().startswith("whole input:")]
        data["show_command"] = show_command(vector)
    if item.expected is not None:
        listed = {"reason": item.expected.reason, "digest": item.expected.digest}
        if item.expected.issue:
            listed["issue"] = item.expected.issue
        data["expected_failure"] = listed
    return data


def validate(report: dict) -> list[str]:
    """Every way `report` breaks schema/report.schema.json, as readable lines."""
    validator = linear_schema.validator(resources.load_schema("report.schema.json"))
    return [f"{error.json_path}: {error.message}" for error in validator.iter_errors(report)]


def write(record: RunRecord, path: Path) -> None:
    report = build(record)
    problems = validate(report)
    if problems:  # a bug in the kit, never in the adapter
        raise ValueError("the run report breaks schema/report.schema.json: " + "; ".join(problems[:5]))
    # printable() keeps the JSON valid and its data the same (its escapes are JSON's).
    Path(path).write_text(printable(json.dumps(report, indent=2, ensure_ascii=False), multiline=True) + "\n",
                          encoding="utf-8")


def read(path: Path) -> dict | str:
    """A run report read back from `path`, checked against the schema; or why it cannot be used."""
    try:
        report = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        return f"{path}: cannot read ({error})"
    except ValueError as error:
        return f"{path}: not JSON ({error})"
    except RecursionError:
        return f"{path}: not a memoir-conform run report: JSON nested too deeply to read"
    version = report.get("report_version") if isinstance(report, dict) else None
    if version is not None and version != REPORT_VERSION:
        return (f"{path}: not a memoir-conform run report this kit reads: report_version {version!r}, this kit "
                f"reads {REPORT_VERSION} (run `memoir-conform run --json` again with this kit)")
    try:
        problems = validate(report)
    except RecursionError:  # parsed, but deeper than the schema check can walk
        return f"{path}: not a memoir-conform run report: JSON nested too deeply to check"
    if problems:
        return f"{path}: not a memoir-conform run report (schema/report.schema.json): {problems[0]}"
    return report
