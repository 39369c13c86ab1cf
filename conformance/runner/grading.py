"""Grading a run: expected failures, conformance levels, the verdict (spec 8).

Levels are cumulative: Writer needs Reader, Full needs Writer. A level is
earned when every vector at or below it that decides levels passed. A
vector decides levels unless it is SHOULD-level (all its requirements are
SHOULD / SHOULD NOT / MAY in the requirement index) or advisory (tagged
`ambiguous`: it rests on an interpretation in docs/spec-ambiguities.md).
A vector the adapter cannot run (an op it does not support) is not
applicable, and the levels it belongs to are not earned. A level that no
deciding vector of its own tests is not earned either. A filtered run
(`--level`, `--section`, `--tag`, `-k`) grades no level: it succeeds when
every selected vector that decides levels passed.

Expected failures (`--expect-fail FILE`) are a list of `{id, reason,
issue?, digest}`. A listed vector that fails is `xfail`: it is left out of
grading and does not fail the run. A listed vector that passes is `xpass`,
and a listed vector whose digest changed is `stale`: both fail the run so
that the file gets updated.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from conformance.runner.execute import ERROR, FAIL, NOT_APPLICABLE, PASS, VectorResult
from conformance.runner.requirements import RequirementIndex
from conformance.runner.vectors import LEVELS, Vector

XFAIL, XPASS, STALE = "xfail", "xpass", "stale"
OUTCOMES = (PASS, FAIL, ERROR, NOT_APPLICABLE, XFAIL, XPASS, STALE)
LEVEL_NAMES = {"reader": "Reader", "writer": "Writer", "full": "Full"}


@dataclass(frozen=True)
class ExpectedFailure:
    id: str
    reason: str
    digest: str
    issue: str | None = None


def _normalize_digest(digest: str) -> str:
    digest = digest.strip().lower()
    return digest[len("sha256:"):] if digest.startswith("sha256:") else digest


def parse_expected_failures(data: object, source: str) -> list[ExpectedFailure] | str:
    """The entries of an expect-fail document, or a message saying what is wrong."""
    if isinstance(data, dict) and isinstance(data.get("expected_failures"), list):
        data = data["expected_failures"]
    if not isinstance(data, list):
        return f"{source}: expected a list of {{id, reason, digest, issue?}} entries"
    entries, seen = [], set()
    for index, row in enumerate(data):
        where = f"{source}: entry {index + 1}"
        if not isinstance(row, dict):
            return f"{where}: expected a mapping with id, reason and digest"
        unknown = set(row) - {"id", "reason", "digest", "issue"}
        if unknown:
            return f"{where}: unknown key{'s' if len(unknown) > 1 else ''} {', '.join(sorted(map(str, unknown)))}"
        for key in ("id", "reason", "digest"):
            if not isinstance(row.get(key), str) or not row[key].strip():
                return f"{where}: {key!r} must be a non-empty string"
        digest = _normalize_digest(row["digest"])
        if len(digest) != 64 or any(char not in "0123456789abcdef" for char in digest):
            return f"{where}: digest must be the vector's sha256 (64 hex digits; `memoir-conform run --list` shows it)"
        if row["id"] in seen:
            return f"{where}: {row['id']!r} is listed twice"
        seen.add(row["id"])
        issue = row.get("issue")
        entries.append(ExpectedFailure(row["id"], row["reason"], digest, None if issue is None else str(issue)))
    return entries


def load_expected_failures(path: Path) -> list[ExpectedFailure] | str:
    """Read a JSON or YAML expect-fail file."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        return f"{path}: cannot read ({error})"
    try:
        # Every value is a string here; the base loader keeps a digest of
        # digits only (or one that looks like 1e5...) from turning into a number.
        data = YAML(typ="base", pure=True).load(text)
    except YAMLError as error:
        return f"{path}: neither JSON nor YAML ({str(error).splitlines()[0]})"
    return parse_expected_failures(data, str(path))


@dataclass
class GradedVector:
    vector: Vector
    result: VectorResult
    outcome: str                          # one of OUTCOMES
    should: bool                          # SHOULD-level: reported, never decides a level
    advisory: bool                        # tagged ambiguous: reported, never decides a level
    expected: ExpectedFailure | None = None

    @property
    def decides(self) -> bool:
        return not (self.should or self.advisory)

    @property
    def passed(self) -> bool:
        return self.result.outcome == PASS


def final_outcome(result: VectorResult, vector: Vector, expected: ExpectedFailure | None) -> str:
    if expected is None:
        return result.outcome
    if expected.digest != vector.digest:
        return STALE
    if result.outcome == PASS:
        return XPASS
    if result.outcome in (FAIL, ERROR):
        return XFAIL
    return result.outcome


def grade_vectors(vectors: list[Vector], results: list[VectorResult], index: RequirementIndex,
                  expected: list[ExpectedFailure] = ()) -> list[GradedVector]:
    by_id = {entry.id: entry for entry in expected}
    by_result = {result.id: result for result in results}
    graded = []
    for vector in vectors:
        result = by_result[vector.id]
        listed = by_id.get(vector.id)
        graded.append(GradedVector(
            vector=vector,
            result=result,
            outcome=final_outcome(result, vector, listed),
            should=index.is_should_level(vector.requirements),
            advisory=vector.ambiguous,
            expected=listed,
        ))
    return graded


@dataclass
class LevelStatus:
    level: str
    earned: bool
    deciding: int = 0                                      # vectors at or below this level that decide it
    own: int = 0                                           # deciding vectors of exactly this level
    blocking: dict[str, list[str]] = field(default_factory=dict)   # outcome -> vector ids

    @property
    def untested(self) -> bool:
        """No vector of this level decides it: nothing shows it is met."""
        return self.own == 0


@dataclass
class Grade:
    spec: str
    claimed: str | None
    earned: str | None
    levels: dict[str, LevelStatus]
    should_passed: int
    should_total: int
    advisory_passed: int
    advisory_total: int
    counts: dict[str, int]
    filtered: bool
    verdict: str
    exit_code: int


def _blocking_outcome(item: GradedVector) -> str | None:
    """Why a deciding vector keeps its level from being earned, if it does."""
    if item.outcome == XFAIL:
        return None  # an accepted, known failure: left out of grading
    if item.outcome == STALE:
        return None if item.result.outcome == PASS else item.result.outcome
    if item.outcome in (PASS, XPASS):
        return None
    return item.outcome


def grade(graded: list[GradedVector], spec: str, claimed: str | None, filtered: bool = False) -> Grade:
    levels: dict[str, LevelStatus] = {}
    below_earned = True
    for rank, level in enumerate(LEVELS):
        status = LevelStatus(level, False)
        for item in graded:
            if not item.decides or item.vector.level_rank > rank:
                continue
            status.deciding += 1
            status.own += item.vector.level_rank == rank
            blocking = _blocking_outcome(item)
            if blocking:
                status.blocking.setdefault(blocking, []).append(item.vector.id)
        status.earned = below_earned and not status.blocking and not status.untested
        below_earned = status.earned
        levels[level] = status
    earned = next((level for level in reversed(LEVELS) if levels[level].earned), None)

    counts = {outcome: 0 for outcome in OUTCOMES}
    for item in graded:
        counts[item.outcome] += 1
    should = [item for item in graded if item.should and not item.advisory and item.result.outcome != NOT_APPLICABLE]
    advisory = [item for item in graded if item.advisory and item.result.outcome != NOT_APPLICABLE]
    result = Grade(
        spec=spec,
        claimed=claimed,
        earned=earned,
        levels=levels,
        should_passed=sum(item.passed for item in should),
        should_total=len(should),
        advisory_passed=sum(item.passed for item in advisory),
        advisory_total=len(advisory),
        counts=counts,
        filtered=filtered,
        verdict="",
        exit_code=0,
    )
    if filtered:
        # A filtered run cannot show a level; it succeeds when what it ran passed.
        claim_met = not any(_blocking_outcome(item) for item in graded if item.decides)
    else:
        claim_met = claimed is None or (earned is not None and LEVELS.index(earned) >= LEVELS.index(claimed))
    result.exit_code = 0 if claim_met and not counts[XPASS] and not counts[STALE] else 1
    result.verdict = verdict(result)
    return result


def _plural(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def verdict(result: Grade) -> str:
    """One line, for example: `memoir Writer (v0.1.2) earned; Full claimed, not earned:
    4 vectors failed; SHOULD 14/16`."""
    if result.filtered:
        ran = sum(result.counts.values())
        parts = [f"filtered run, no level graded: {result.counts[PASS] + result.counts[XPASS]} of {ran} "
                 f"selected vectors passed"]
        problems = [f"{result.counts[outcome]} {name}" for outcome, name in (
            (FAIL, "failed"), (ERROR, "adapter errors"), (NOT_APPLICABLE, "not applicable")) if result.counts[outcome]]
        if problems:
            parts[0] += f" ({', '.join(problems)})"
    elif result.earned:
        parts = [f"memoir {LEVEL_NAMES[result.earned]} (v{result.spec}) earned"]
    else:
        parts = [f"no memoir level (v{result.spec}) earned"]
    if not result.filtered and result.claimed and (
            result.earned is None or LEVELS.index(result.earned) < LEVELS.index(result.claimed)):
        parts.append(f"{LEVEL_NAMES[result.claimed]} claimed, not earned: {_why_not(result)}")
    parts.append(f"SHOULD {result.should_passed}/{result.should_total}")
    if result.advisory_total:
        parts.append(f"advisory {result.advisory_passed}/{result.advisory_total}")
    if result.counts[XFAIL]:
        parts.append(_plural(result.counts[XFAIL], "expected failure", "expected failures"))
    if result.counts[XPASS]:
        parts.append(_plural(result.counts[XPASS], "unexpected pass (xpass)", "unexpected passes (xpass)"))
    if result.counts[STALE]:
        parts.append(_plural(result.counts[STALE], "stale expect-fail entry", "stale expect-fail entries"))
    return "; ".join(parts)


def _why_not(result: Grade) -> str:
    blocking = result.levels[result.claimed].blocking
    reasons = []
    if blocking.get(FAIL):
        reasons.append(_plural(len(blocking[FAIL]), "vector failed", "vectors failed"))
    if blocking.get(ERROR):
        reasons.append(_plural(len(blocking[ERROR]), "adapter error", "adapter errors"))
    if blocking.get(NOT_APPLICABLE):
        reasons.append(_plural(len(blocking[NOT_APPLICABLE]), "vector needs an unsupported op",
                               "vectors need unsupported ops"))
    untested = [LEVEL_NAMES[level] for level in LEVELS[: LEVELS.index(result.claimed) + 1]
                if result.levels[level].untested]
    if untested:
        reasons.append(f"no vector tests {' or '.join(untested)}")
    return ", ".join(reasons)


def claimed_level(claims, override: str | None) -> str | None:
    """The level a run is judged against: --claim, else the highest one the adapter claims."""
    if override:
        return override
    ranked = [claim for claim in claims if claim in LEVELS]
    return max(ranked, key=LEVELS.index) if ranked else None
