"""Grading a run: expected failures, conformance levels, the verdict (spec 8).

Levels are cumulative: Writer needs Reader, Full needs Writer. Strength is
per expectation (`conformance.runner.strength`): a vector *decides* levels
when it has a MUST expectation, and only a failed MUST expectation, an
adapter error on a deciding vector, or a deciding vector whose op the
adapter does not do (not applicable of kind `op`) keeps its level from
being earned. SHOULD and advisory failures are reported, never graded. A
vector that is not applicable because the adapter refused a MAY feature,
made another choice the spec offers, or declared caps too small for the
case blocks nothing. A level that no deciding vector of its own tests is
not earned either. A filtered run (`--level`, `--section`, `--tag`, `-k`)
grades no level: it succeeds when no selected vector blocks.

Expected failures (`--expect-fail FILE`) are a list of `{id, reason,
issue?, digest}`. A listed vector that fails is `xfail`; when its failure
is one that would block a level, that level is *waived*: not earned (a
level is earned only with nothing waived), but reached if the waived
failures were fixed, which is what the exit code follows, so CI stays
green while the bugs are tracked. A listed vector that passes is `xpass`,
and a listed vector whose digest changed is `stale`: both fail the run so
that the file gets updated.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from conformance.runner.checks import CheckFailure
from conformance.runner.execute import ERROR, FAIL, NA_OP, NOT_APPLICABLE, PASS, REFUSALS, VectorResult
from conformance.runner.requirements import RequirementIndex
from conformance.runner.strength import ADVISORY, MUST, SHOULD, STRENGTHS, strength, strongest
from conformance.runner.vectors import LEVELS, Expectation, Vector

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
    except RecursionError:
        return f"{path}: nested too deeply to read as JSON or YAML"
    return parse_expected_failures(data, str(path))


@dataclass
class GradedVector:
    vector: Vector
    result: VectorResult
    outcome: str                          # one of OUTCOMES
    strengths: tuple[str, ...]            # the strength of each of the vector's expectations
    failure_strengths: tuple[str, ...]    # the strength of each of result.failures
    expected: ExpectedFailure | None = None

    @property
    def decides(self) -> bool:
        """It has a MUST expectation: it can keep its level from being earned."""
        return MUST in self.strengths

    @property
    def failed_strengths(self) -> tuple[str, ...]:
        """The strengths that failed, strongest first (a failure that names no
        check counts at the vector's strongest strength)."""
        failed = self.failure_strengths
        if self.result.outcome == FAIL and not self.result.failures:
            failed = self.strengths[:1] and (strongest(self.strengths),)
        return tuple(name for name in STRENGTHS if name in failed)

    @property
    def passed(self) -> bool:
        return self.result.outcome == PASS

    def shown(self, wanted: str) -> bool:
        """Every expectation of this strength was evaluated and held."""
        if self.result.outcome == PASS:
            return True
        if self.result.outcome != FAIL or any(f.check in REFUSALS for f in self.result.failures):
            return False
        return wanted not in self.failed_strengths

    @property
    def blocks(self) -> str | None:
        """Why this vector's result keeps its level from being earned (an
        outcome: fail, error, not_applicable), or None. Before waivers."""
        result = self.result
        if result.outcome == FAIL and MUST in self.failed_strengths:
            return FAIL
        if result.outcome == ERROR and self.decides:
            return ERROR
        if result.outcome == NOT_APPLICABLE and result.na_kind in (NA_OP, None) and self.decides:
            return NOT_APPLICABLE
        return None

    @property
    def waived(self) -> bool:
        """Listed as an expected failure, with a failure that would block its level."""
        return self.outcome == XFAIL and self.blocks is not None


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
            strengths=tuple(strength(expectation, index) for expectation in vector.expectations()),
            failure_strengths=tuple(failure_strength(f, index) for f in result.failures),
            expected=listed,
        ))
    return graded


def failure_strength(failure: CheckFailure, index: RequirementIndex) -> str:
    """A failed check's strength; a mismatch a comparison rule makes advisory
    (conformance.runner.compare) is advisory whatever the check checks."""
    if failure.advisory:
        return ADVISORY
    return strength(Expectation(failure.requirements, failure.ambiguity), index)


@dataclass
class LevelStatus:
    level: str
    earned: bool                                           # with nothing waived
    reached_if_waived_fixed: bool = False                  # earned but for the waived failures
    deciding: int = 0                                      # vectors at or below this level that decide it
    own: int = 0                                           # deciding vectors of exactly this level
    blocking: dict[str, list[str]] = field(default_factory=dict)   # outcome -> vector ids
    waived: list[str] = field(default_factory=list)        # ids of waived vectors at or below this level

    @property
    def untested(self) -> bool:
        """No vector of this level decides it: nothing shows it is met."""
        return self.own == 0


@dataclass
class Tally:
    passed: int = 0
    total: int = 0


@dataclass
class Grade:
    spec: str
    claimed: str | None
    earned: str | None                    # the highest level earned with nothing waived
    reached_if_waived_fixed: str | None   # the highest level reached if the waived failures were fixed
    levels: dict[str, LevelStatus]
    tallies: dict[str, Tally]             # per strength: vectors with such an expectation, and how many showed it
    counts: dict[str, int]
    filtered: bool
    must_failed: int                      # failed vectors (not listed) with a failed MUST check; the rest of
                                          # counts[FAIL] failed only SHOULD or advisory checks
    waived_by: str | None                 # the expect-fail file, as the user named it
    verdict: str
    exit_code: int
    up_to: str | None = None              # `--level`: the levels above it are not graded

    def graded(self, level: str) -> bool:
        return self.up_to is None or LEVELS.index(level) <= LEVELS.index(self.up_to)


def blocks_run(item: GradedVector, result: Grade) -> bool:
    """This vector is a reason the run exits 1: an xpass or stale entry, or a
    blocking result (not waived) at or below the claimed level (any level in
    a filtered run). JUnit marks exactly these as failures or errors."""
    if item.outcome in (XPASS, STALE):
        return True
    if item.outcome == XFAIL or item.blocks is None:
        return False
    if result.filtered or result.claimed is None:
        return result.filtered
    return item.vector.level_rank <= LEVELS.index(result.claimed)


def grade(graded: list[GradedVector], spec: str, claimed: str | None, filtered: bool = False,
          waived_by: str | None = None, up_to: str | None = None) -> Grade:
    """The grade of a run. `up_to` (a run limited with `--level`) grades the
    levels up to it (they are all that vectors at or below it can show) and
    judges the claim only that far."""
    if up_to and claimed and LEVELS.index(claimed) > LEVELS.index(up_to):
        claimed = up_to
    levels: dict[str, LevelStatus] = {}
    below_earned = below_reached = True
    for rank, level in enumerate(LEVELS):
        status = LevelStatus(level, False)
        for item in graded:
            if not item.decides or item.vector.level_rank > rank:
                continue
            status.deciding += 1
            status.own += item.vector.level_rank == rank
            if item.waived:
                status.waived.append(item.vector.id)
            elif item.blocks:
                status.blocking.setdefault(item.blocks, []).append(item.vector.id)
        status.reached_if_waived_fixed = below_reached and not status.blocking and not status.untested
        status.earned = below_earned and status.reached_if_waived_fixed and not status.waived
        below_earned, below_reached = status.earned, status.reached_if_waived_fixed
        levels[level] = status

    def highest(key: str) -> str | None:
        return next((level for level in reversed(LEVELS) if getattr(levels[level], key)), None)

    counts = {outcome: 0 for outcome in OUTCOMES}
    for item in graded:
        counts[item.outcome] += 1
    tallies = {name: Tally() for name in STRENGTHS}
    for item in graded:
        if item.result.outcome == NOT_APPLICABLE:
            continue
        for name in set(item.strengths):
            tallies[name].total += 1
            tallies[name].passed += item.shown(name)
    result = Grade(
        spec=spec, claimed=claimed, earned=highest("earned"),
        reached_if_waived_fixed=highest("reached_if_waived_fixed"), levels=levels, tallies=tallies,
        counts=counts, filtered=filtered,
        must_failed=sum(item.outcome == FAIL and MUST in item.failed_strengths for item in graded), waived_by=waived_by, verdict="", exit_code=0, up_to=up_to,
    )
    reached = result.reached_if_waived_fixed
    claim_met = filtered or claimed is None or (reached is not None and LEVELS.index(reached) >= LEVELS.index(claimed))
    result.exit_code = 0 if claim_met and not any(blocks_run(item, result) for item in graded) else 1
    result.verdict = verdict(result)
    return result


def _plural(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def level_line(result: Grade, level: str) -> str:
    """One level's state in words, counting the vectors of that level only;
    never a bare "earned" when something is waived:
    `Writer: not earned, 2 MUST vectors waived by known-failures.json`."""
    status = result.levels[level]
    name = LEVEL_NAMES[level]
    if not result.graded(level):
        return f"{name}: not graded (run limited to --level {result.up_to})"
    if status.earned:
        return f"{name}: earned"
    index = LEVELS.index(level)
    below = _below(result, level)
    own_blocking = {outcome: [vid for vid in ids if vid not in below.blocking.get(outcome, [])]
                    for outcome, ids in status.blocking.items()}
    reasons = _reasons(LevelStatus(level, False, own=status.own,
                                   blocking={k: v for k, v in own_blocking.items() if v}))
    own_waived = [vid for vid in status.waived if vid not in below.waived]
    if own_waived:
        reasons.insert(0, f"{_plural(len(own_waived), 'MUST vector', 'MUST vectors')} waived by "
                          f"{result.waived_by or 'the expect-fail file'}")
    if not below.earned:
        reasons.append(f"needs {LEVEL_NAMES[LEVELS[index - 1]]}")
    return f"{name}: not earned, {', '.join(reasons)}"


def _below(result: Grade, level: str) -> LevelStatus:
    index = LEVELS.index(level)
    return result.levels[LEVELS[index - 1]] if index else LevelStatus(level, True)


def _reasons(status: LevelStatus) -> list[str]:
    reasons = []
    if status.blocking.get(FAIL):
        reasons.append(_plural(len(status.blocking[FAIL]), "MUST vector failed", "MUST vectors failed"))
    if status.blocking.get(ERROR):
        reasons.append(_plural(len(status.blocking[ERROR]), "adapter error", "adapter errors"))
    if status.blocking.get(NOT_APPLICABLE):
        reasons.append(_plural(len(status.blocking[NOT_APPLICABLE]), "vector needs an unsupported op",
                               "vectors need unsupported ops"))
    if status.untested:
        reasons.append(f"no vector tests {LEVEL_NAMES[status.level]}")
    return reasons


def verdict(result: Grade) -> str:
    """One line, for example: `memoir Writer (v0.1.2) earned; Full claimed, not earned:
    4 MUST vectors failed; SHOULD 14/16`. With waivers it names each level they
    keep from being earned, and never calls that level earned."""
    if result.filtered:
        ran = sum(result.counts.values())
        parts = [f"filtered run, no level graded: {result.counts[PASS] + result.counts[XPASS]} of {ran} "
                 f"selected vectors passed"]
        # MUST failures apart from the SHOULD and advisory ones, as the result model counts them.
        failed = {"MUST failed": result.must_failed,
                  "SHOULD or advisory failed": result.counts[FAIL] - result.must_failed,
                  "adapter errors": result.counts[ERROR], "not applicable": result.counts[NOT_APPLICABLE]}
        problems = [f"{count} {name}" for name, count in failed.items() if count]
        if problems:
            parts[0] += f" ({', '.join(problems)})"
    elif result.earned:
        parts = [f"memoir {LEVEL_NAMES[result.earned]} (v{result.spec}) earned"]
    else:
        parts = [f"no memoir level (v{result.spec}) earned"]
    if not result.filtered and result.reached_if_waived_fixed != result.earned:
        start = LEVELS.index(result.earned) + 1 if result.earned else 0
        for level in LEVELS[start: LEVELS.index(result.reached_if_waived_fixed) + 1]:
            if [vid for vid in result.levels[level].waived if vid not in _below(result, level).waived]:
                parts.append(level_line(result, level))
        parts.append(f"memoir {LEVEL_NAMES[result.reached_if_waived_fixed]} only if the waived failures were fixed")
    claimed = result.claimed
    reached = result.reached_if_waived_fixed
    if not result.filtered and claimed and (reached is None or LEVELS.index(reached) < LEVELS.index(claimed)):
        parts.append(f"{LEVEL_NAMES[claimed]} claimed, not earned: {_why_not(result)}")
    above = [LEVEL_NAMES[level] for level in LEVELS if not result.graded(level)]
    if above and not result.filtered:
        parts.append(f"{' and '.join(above)} not graded (run limited to --level {result.up_to})")
    parts.append(f"SHOULD {result.tallies[SHOULD].passed}/{result.tallies[SHOULD].total}")
    if result.tallies[ADVISORY].total:
        parts.append(f"advisory {result.tallies[ADVISORY].passed}/{result.tallies[ADVISORY].total}")
    if result.counts[XFAIL]:
        parts.append(_plural(result.counts[XFAIL], "expected failure", "expected failures"))
    if result.counts[XPASS]:
        parts.append(_plural(result.counts[XPASS], "unexpected pass (xpass)", "unexpected passes (xpass)"))
    if result.counts[STALE]:
        parts.append(_plural(result.counts[STALE], "stale expect-fail entry", "stale expect-fail entries"))
    return "; ".join(parts)


def _why_not(result: Grade) -> str:
    status = result.levels[result.claimed]
    reasons = _reasons(status)
    untested = [LEVEL_NAMES[level] for level in LEVELS[: LEVELS.index(result.claimed)]
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
