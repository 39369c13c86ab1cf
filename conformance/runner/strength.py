"""How strongly an expectation binds: MUST, SHOULD or advisory.

The spec uses MUST, SHOULD and MAY in the RFC 2119 sense (spec, preamble),
and only a MUST can cost a conformance level (spec 8). Strength is decided
per expectation, not per vector, so that one vector can hold a deciding
check and a SHOULD check side by side:

- advisory: the expectation depends on an interpretation of the spec
  (docs/spec-ambiguities.md); reported, never decides a level;
- must: it checks a MUST, MUST NOT or REQUIRED requirement (or one the
  index does not know: the strict reading); decides levels;
- should: every requirement it checks is a SHOULD or SHOULD NOT; reported.

Within a deciding check, a single mismatch can still be advisory: one that a
comparison rule keeps from deciding (`CheckFailure.advisory`, set by
`conformance.runner.compare`: an unknown frontmatter key as a reader reports
it, a clock stamp between two runs, absorption). Grading counts such a
failure as advisory (`grading.failure_strength`).

`strength_problems` is the rule `vectors check` and `run` enforce: a vector
whose requirements mix strengths must say, check by check, which of them
each check checks, so that no SHOULD is graded as a MUST by accident.
"""

from __future__ import annotations

from conformance.runner.requirements import RequirementIndex
from conformance.runner.vectors import Expectation, Vector

MUST, SHOULD, ADVISORY = "must", "should", "advisory"
STRENGTHS = (MUST, SHOULD, ADVISORY)   # strongest first
LABELS = {MUST: "MUST", SHOULD: "SHOULD", ADVISORY: "advisory"}


def requirement_strength(requirement_ids, index: RequirementIndex) -> str:
    """MUST when any requirement is mandatory or unknown, else SHOULD."""
    return SHOULD if index.is_should_level(requirement_ids) else MUST


def strength(expectation: Expectation, index: RequirementIndex) -> str:
    if expectation.ambiguity:
        return ADVISORY
    return requirement_strength(expectation.requirements, index)


def strongest(strengths) -> str | None:
    present = set(strengths)
    return next((name for name in STRENGTHS if name in present), None)


def strength_problems(vector: Vector, index: RequirementIndex) -> list[str]:
    """Why the vector's expectations do not say how strongly they bind."""
    if vector.derived:
        return []
    kinds = {requirement_strength([rid], index) for rid in vector.requirements}
    if len(kinds) < 2:
        return []
    problems = []
    musts = [rid for rid in vector.requirements if requirement_strength([rid], index) == MUST]
    shoulds = [rid for rid in vector.requirements if rid not in musts]
    mixed = f"its requirements mix MUST ({', '.join(musts)}) and SHOULD ({', '.join(shoulds)})"
    for position, check in enumerate(vector.expect):
        if "requirements" not in check:
            problems.append(f"expect[{position}]: {mixed}: name the requirements this check checks")
        elif len({requirement_strength([rid], index) for rid in check["requirements"]}) > 1:
            problems.append(f"expect[{position}]: the check's own requirements mix MUST and SHOULD: split it")
    implicit = len(vector.expectations()) - len(vector.expect)
    if implicit:
        what = "the runner's own check" if vector.op != "write" else "a step's expect_error"
        problems.append(f"{mixed}, and {what} can only check all of them: split the vector")
    return problems
