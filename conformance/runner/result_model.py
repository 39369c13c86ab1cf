"""The result model: a graded run counted once, read by every output.

Every output (console, JSON, JUnit, GitHub annotations, job summary and
`$GITHUB_OUTPUT`, the pytest plugin, the site) shows the counts of this
module, with the same labels, so that no two of them disagree. Each vector
falls in exactly one bucket:

| bucket | the vector |
|---|---|
| `passed` | every check held |
| `must_failed` | a MUST check failed (not listed in the expect-fail file) |
| `errors` | the adapter broke the protocol (not listed) |
| `should_failed` | only SHOULD checks failed: costs no level |
| `advisory_failed` | only advisory checks (resting on an interpretation) failed: costs no level |
| `waived` | failed, and listed in the expect-fail file |
| `not_applicable` | an op, a MAY feature, a choice or caps the implementation does not have |
| `xpass` | listed in the expect-fail file, but passed |
| `stale` | listed with a digest the vector no longer has |

The model is built from the graded vectors of a run (`of_run`) or from a
JSON run report (`of_report`, what the site reads): both go through
`bucket`, so a report read back counts as the run did. The short verdict
(`headline`, about 100 characters at most) comes first in every output;
the long explanation (`Grade.verdict`: every level, every reason) below it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from conformance.runner.strength import MUST, SHOULD

PASSED, MUST_FAILED, ERRORS, SHOULD_FAILED, ADVISORY_FAILED = (
    "passed", "must_failed", "errors", "should_failed", "advisory_failed")
WAIVED, NOT_APPLICABLE, XPASS, STALE = "waived", "not_applicable", "xpass", "stale"
BUCKETS = (PASSED, MUST_FAILED, ERRORS, SHOULD_FAILED, ADVISORY_FAILED, WAIVED, NOT_APPLICABLE, XPASS, STALE)
LABELS = {PASSED: "passed", MUST_FAILED: "MUST failed", ERRORS: "adapter errors", SHOULD_FAILED: "SHOULD failed",
          ADVISORY_FAILED: "advisory failed", WAIVED: "waived", NOT_APPLICABLE: "n/a", XPASS: "xpass",
          STALE: "stale"}
# What the short verdict names: the failures, not the passes nor the n/a.
PROBLEMS = (MUST_FAILED, ERRORS, SHOULD_FAILED, ADVISORY_FAILED, WAIVED, XPASS, STALE)
LEVEL_NAMES = {"reader": "Reader", "writer": "Writer", "full": "Full"}
LEVELS = ("reader", "writer", "full")


def bucket(outcome: str, result: str, failed_strengths) -> str:
    """The bucket of one vector, from its final outcome (pass, fail, error,
    not_applicable, xfail, xpass, stale), its result before the expect-fail
    file, and the strengths of its failed checks."""
    if outcome == "xfail":
        return WAIVED
    if outcome in (XPASS, STALE):
        return outcome
    if result == "pass":
        return PASSED
    if result == "error":
        return ERRORS
    if result == "not_applicable":
        return NOT_APPLICABLE
    if MUST in failed_strengths or not failed_strengths:
        return MUST_FAILED
    return SHOULD_FAILED if SHOULD in failed_strengths else ADVISORY_FAILED


@dataclass
class RunResults:
    """The counts of one graded run, overall and per level (the vectors of exactly that level)."""

    spec: str
    claimed: str | None
    earned: str | None
    reached_if_waived_fixed: str | None
    filtered: bool
    exit_code: int
    explanation: str                                     # the long verdict (Grade.verdict)
    ids: dict[str, list[str]] = field(default_factory=lambda: {name: [] for name in BUCKETS})
    levels: dict[str, dict[str, int]] = field(
        default_factory=lambda: {level: dict.fromkeys(BUCKETS, 0) for level in LEVELS})

    def add(self, vector_id: str, level: str, name: str) -> None:
        self.ids[name].append(vector_id)
        self.levels.setdefault(level, dict.fromkeys(BUCKETS, 0))[name] += 1

    @property
    def counts(self) -> dict[str, int]:
        return {name: len(ids) for name, ids in self.ids.items()}

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def counts_line(self) -> str:
        """`1314 vectors: 1290 passed, 4 MUST failed, 2 SHOULD failed, 1 waived, 17 n/a`."""
        counts = self.counts
        shown = [f"{counts[name]} {LABELS[name]}" for name in BUCKETS if counts[name]]
        return f"{self.total} vector{'s' if self.total != 1 else ''}: {', '.join(shown) or 'none'}"

    def problems(self, counts: dict[str, int] | None = None) -> str:
        """`4 MUST failed, 2 SHOULD failed, 1 waived`, or `nothing failed`."""
        counts = self.counts if counts is None else counts
        return ", ".join(f"{counts[name]} {LABELS[name]}" for name in PROBLEMS if counts[name]) or "nothing failed"

    @property
    def headline(self) -> str:
        """The short verdict: the level, the claim, what failed."""
        if self.filtered:
            counts = self.counts
            return (f"filtered run, no level graded: {counts[PASSED] + counts[XPASS]} of {self.total} passed; "
                    f"{self.problems()}")
        earned = f"memoir {LEVEL_NAMES[self.earned]} earned" if self.earned else "no memoir level earned"
        reached = self.reached_if_waived_fixed
        but = f"; {LEVEL_NAMES[reached]} if the waived were fixed" if reached and reached != self.earned else ""
        claim = f" ({LEVEL_NAMES[self.claimed]} claimed{but})" if self.claimed and self.claimed != self.earned else ""
        return f"{'PASS' if self.exit_code == 0 else 'FAIL'} {earned}{claim}: {self.problems()}"

    def level_cells(self, level: str) -> str:
        """What failed among one level's own vectors, for a table cell."""
        return self.problems(self.levels[level])

    def to_json(self) -> dict:
        return {"headline": self.headline, "counts": self.counts,
                "levels": {level: dict(counts) for level, counts in self.levels.items()}}

    def github_outputs(self) -> dict[str, str]:
        """The step outputs a workflow can gate on (`steps.<id>.outputs.level`, ...)."""
        counts = self.counts
        return {"level": self.earned or "none", "earned": self.earned or "none", "claimed": self.claimed or "none",
                "reached_if_waived_fixed": self.reached_if_waived_fixed or "none",
                "filtered": str(self.filtered).lower(), "exit_code": str(self.exit_code),
                "total": str(self.total), **{name: str(count) for name, count in counts.items()},
                "verdict": self.headline}


def of_run(graded, grade) -> RunResults:
    """The model of a run: its graded vectors (`GradedVector`) and its `Grade`."""
    results = RunResults(grade.spec, grade.claimed, grade.earned, grade.reached_if_waived_fixed, grade.filtered,
                         grade.exit_code, grade.verdict)
    for item in graded:
        results.add(item.vector.id, item.vector.level,
                    bucket(item.outcome, item.result.outcome, item.failed_strengths))
    return results


def of_report(report: dict) -> RunResults:
    """The model of a JSON run report (schema/report.schema.json), counted as the run counted it."""
    grade = report["grade"]
    results = RunResults(report["spec"], grade["claimed"], grade["earned"], grade["reached_if_waived_fixed"],
                         grade["filtered"], grade["exit_code"], grade["verdict"])
    for vector in report["vectors"]:
        results.add(vector["id"], vector["level"],
                    bucket(vector["outcome"], vector["result"], vector["failed_strengths"]))
    return results


def write_github_output(results: RunResults, environ=None) -> str | None:
    """Append the step outputs to the file `$GITHUB_OUTPUT` names (when it is set); a note when that fails."""
    import os

    path = (environ if environ is not None else os.environ).get("GITHUB_OUTPUT")
    if not path:
        return None
    lines = []
    for name, value in results.github_outputs().items():
        # One line each: a value never holds a newline (the verdict is one line by construction).
        lines.append(f"{name}={' '.join(value.split())}")
    try:
        with open(path, "a", encoding="utf-8") as out:
            out.write("\n".join(lines) + "\n")
    except OSError as error:
        return f"cannot write the step outputs to {path}: {error.strerror or error}"
    return None
