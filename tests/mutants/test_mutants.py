"""Every mutant is caught: the corpus, run through the adapter protocol, kills each one.

One test per mutant of runners/mutants/mutants.json. A mutant of a MUST
rule is killed when it does not earn Full and a vector of the level its bug
belongs to passes against the reference adapter but fails a MUST check
against the mutant. A mutant of a SHOULD rule, or of the kit's reading of an
ambiguity, must earn Full and be caught by a check of its strength; it is
never counted as killed. The run behind these tests is shared
(tests/mutants/conftest.py).
"""

from __future__ import annotations

import pytest

from conformance.mutants.registry import load_registry
from conformance.runner.execute import FAIL

pytestmark = pytest.mark.slow

MUTANTS = load_registry().mutants


def test_the_reference_adapter_earns_full(mutation_run):
    reference = mutation_run.reference
    failing = sorted(vid for vid, outcome in reference.outcomes().items() if outcome != "pass")
    assert reference.fault is None, reference.fault
    assert reference.earned == "full", f"the reference earns {reference.earned}; not passing: {failing}"


@pytest.mark.parametrize("name", [mutant.name for mutant in MUTANTS if mutant.strength != "must"])
def test_mutant_of_a_should_rule_earns_full_and_is_caught_at_its_strength(mutation_run, name):
    verdict = next(verdict for verdict in mutation_run.verdicts if verdict.mutant.name == name)
    assert verdict.caught_as_expected and not verdict.killed, verdict.why_not_killed
    assert verdict.run.earned == "full"


@pytest.mark.parametrize("name", [mutant.name for mutant in MUTANTS if mutant.strength == "must"])
def test_mutant_is_killed(mutation_run, name):
    verdict = next(verdict for verdict in mutation_run.verdicts if verdict.mutant.name == name)
    caught = [item.vector.id for item in verdict.caught]
    assert verdict.killed, (
        f"{name} ({verdict.mutant.rule}) survived: {verdict.why_not_killed}; "
        f"earned {verdict.run.earned}; deciding vectors that caught it: {caught or 'none'}"
    )
    # Killed by a check that failed, not only by the mutant crashing or hanging.
    failed_checks = [item.vector.id for item in verdict.caught_at_level if item.result.outcome == FAIL]
    assert failed_checks, f"{name} is only caught by adapter errors: {caught}"
    print(f"{name}: earned {verdict.run.earned}, caught by {len(caught)}: {', '.join(caught)}")


def test_the_score_is_complete(mutation_run, registry):
    musts = [mutant for mutant in registry.mutants if mutant.strength == "must"]
    assert mutation_run.total == len(musts) >= 24
    assert mutation_run.killed == mutation_run.total and mutation_run.ok
