"""Judging a mutant: which vectors catch it, and when it counts as killed."""

from __future__ import annotations

from mutant_helpers import adapter_run, mutant, mutation_run

from conformance.mutants.evaluate import judge
from conformance.runner.execute import ERROR, FAIL


def _ids(items):
    return [item.vector.id for item in items]


def test_a_vector_that_passes_on_the_reference_and_fails_on_the_mutant_kills_it():
    verdict = judge(mutant("full"), adapter_run("m", {"f.two": FAIL}), adapter_run("reference"))
    assert _ids(verdict.caught) == ["f.two"]
    assert verdict.run.earned == "writer" and verdict.run.lost == "full"
    assert verdict.killed and verdict.why_not_killed is None


def test_an_adapter_error_also_catches():
    verdict = judge(mutant("full"), adapter_run("m", {"f.one": ERROR}), adapter_run("reference"))
    assert _ids(verdict.caught) == ["f.one"] and verdict.killed


def test_a_vector_the_reference_fails_too_catches_nothing():
    reference = adapter_run("reference", {"f.one": FAIL})
    verdict = judge(mutant("full"), adapter_run("m", {"f.one": FAIL}), reference)
    assert verdict.caught == [] and not verdict.killed
    assert verdict.why_not_killed == "every vector it fails also fails against the reference"


def test_should_level_and_advisory_failures_are_reported_but_do_not_kill():
    verdict = judge(mutant("full"), adapter_run("m", {"s.should": FAIL, "a.advisory": FAIL}), adapter_run("reference"))
    assert verdict.caught == []
    assert _ids(verdict.other_failures) == ["s.should", "a.advisory"]
    assert verdict.run.earned == "full" and not verdict.killed
    assert verdict.why_not_killed == "it earned Full: no MUST check fails against it"


def test_a_catch_below_the_bugs_level_is_not_enough():
    """A writer bug caught only by a reader vector: the corpus lacks a writer vector."""
    verdict = judge(mutant("writer"), adapter_run("m", {"r.one": FAIL}), adapter_run("reference"))
    assert _ids(verdict.caught) == ["r.one"] and verdict.caught_at_level == []
    assert verdict.run.earned is None and not verdict.killed
    assert "no writer vector catches it (only reader vectors do)" in verdict.why_not_killed


def test_the_catches_of_the_bugs_own_level_come_first():
    verdict = judge(mutant("writer"), adapter_run("m", {"r.one": FAIL, "w.one": FAIL, "f.one": FAIL}),
                    adapter_run("reference"))
    assert _ids(verdict.caught) == ["w.one", "f.one", "r.one"]
    assert _ids(verdict.caught_at_level) == ["w.one"] and verdict.killed


def test_a_mutant_that_cannot_start_survives_with_the_reason():
    verdict = judge(mutant("full"), adapter_run("m", fault="cannot start the adapter: no such file"),
                    adapter_run("reference"))
    assert not verdict.killed and verdict.why_not_killed == "cannot start the adapter: no such file"


def test_the_run_is_ok_only_when_every_mutant_dies_and_the_reference_conforms():
    killed = (mutant("full", "01"), adapter_run("m1", {"f.one": FAIL}))
    survived = (mutant("full", "02"), adapter_run("m2"))
    assert mutation_run(killed).ok
    both = mutation_run(killed, survived)
    assert (both.killed, both.total, both.ok) == (1, 2, False)
    broken_reference = mutation_run(killed, reference=adapter_run("reference", {"r.one": FAIL}))
    assert not broken_reference.reference_conforms and not broken_reference.ok


def test_a_should_mutant_is_caught_at_should_level_and_never_counted():
    should_bug = mutant("reader", mutant_id="20", slug="should_rule")
    should_bug = type(should_bug)(**{**should_bug.__dict__, "strength": "should"})
    verdict = judge(should_bug, adapter_run("m", {"s.should": FAIL}), adapter_run("reference"))
    assert verdict.run.earned == "full" and not verdict.killed and not verdict.counted
    assert verdict.caught_as_expected and _ids(verdict.caught_at_strength) == ["s.should"]
    assert verdict.word == "caught at SHOULD level (not counted)"
    costly = judge(should_bug, adapter_run("m", {"s.should": FAIL, "r.one": FAIL}), adapter_run("reference"))
    assert not costly.caught_as_expected and "a SHOULD-only bug lost reader" in costly.why_not_killed
    result = mutation_run((mutant("full"), adapter_run("m", {"f.one": FAIL})), (should_bug, verdict.run))
    assert (result.killed, result.total) == (1, 1) and result.ok


def test_a_focused_run_takes_the_vectors_of_a_must_mutants_requirements_only():
    from dataclasses import replace

    from mutant_helpers import INDEX, MUST, SHOULD, VECTORS

    from conformance.mutants.evaluate import Selection, focused_selection

    selection = Selection(VECTORS, INDEX, "ab" * 32)
    focused = focused_selection(mutant("full"), selection)
    assert focused is not None and focused.index is INDEX
    assert [item.id for item in focused.vectors] == [item.id for item in VECTORS if MUST in item.requirements]
    # A SHOULD mutant must earn Full, which only the whole corpus shows; no cited vector: the whole corpus too.
    assert focused_selection(replace(mutant("reader"), strength="should", requirements=(SHOULD,)), selection) is None
    assert focused_selection(replace(mutant("full"), requirements=("S0-nothing-cites-this",)), selection) is None


def test_a_kill_on_a_focused_run_is_a_kill_on_the_whole_corpus():
    """The focused run's catching vectors fail on the whole corpus too, where they block Full."""
    whole = judge(mutant("full"), adapter_run("m", {"f.two": FAIL}), adapter_run("reference"))
    focused = judge(mutant("full"), adapter_run("m", {"f.two": FAIL}, only=("f.one", "f.two")), adapter_run("reference"))
    assert focused.killed and whole.killed
    assert _ids(focused.caught_at_level) == _ids(whole.caught_at_level) == ["f.two"]
    assert whole.run.earned != "full"
