"""What a matrix cell shows: the state of a vector for one requirement, and cells combined."""

from __future__ import annotations

import pytest

from conformance.site.cells import (
    ADVISORY, ERROR, FAIL, NA, NONE, PASS, SHOULD, WAIVED, Cell, checked_requirements, vector_state, worst,
)


def vector(result="fail", outcome=None, failures=(), failed_strengths=(), decides=True, requirements=("R-a", "R-b")):
    return {"id": "v", "result": result, "outcome": outcome or result, "failures": list(failures),
            "failed_strengths": list(failed_strengths), "decides": decides, "requirements": list(requirements)}


def failure(strength, *requirements):
    return {"strength": strength, "requirements": list(requirements)}


@pytest.mark.parametrize("data, requirement, state", [
    (vector("pass"), "R-a", PASS),
    (vector("not_applicable"), "R-a", NA),
    (vector("error"), "R-a", ERROR),
    (vector("error", outcome="xfail"), "R-a", WAIVED),
    (vector(failures=[failure("must", "R-a")]), "R-a", FAIL),
    # The check that failed checks R-a only: R-b's checks held.
    (vector(failures=[failure("must", "R-a")]), "R-b", PASS),
    (vector(failures=[failure("should", "R-a")]), "R-a", SHOULD),
    (vector(failures=[failure("advisory", "R-a")]), "R-a", ADVISORY),
    (vector(failures=[failure("advisory", "R-a"), failure("should", "R-a")]), "R-a", SHOULD),
    (vector(failures=[failure("must", "R-a"), failure("should", "R-a")]), "R-a", FAIL),
    # A waived MUST failure is waived, never a pass; a waived SHOULD failure stays SHOULD only.
    (vector(outcome="xfail", failures=[failure("must", "R-a")]), "R-a", WAIVED),
    (vector(outcome="xfail", failures=[failure("should", "R-a")]), "R-a", SHOULD),
    # A stale expect-fail entry waives nothing.
    (vector(outcome="stale", failures=[failure("must", "R-a")]), "R-a", FAIL),
    # A failure that names no check counts at the strengths the report gives.
    (vector(failed_strengths=["should"]), "R-a", SHOULD),
    (vector(failed_strengths=["must"]), None, FAIL),
    (vector(failures=[failure("should", "R-a")]), None, SHOULD),
])
def test_vector_state(data, requirement, state):
    assert vector_state(data, requirement) == state


def test_worst_orders_states_with_failures_first_and_not_run_last():
    assert worst([PASS, NA, SHOULD, ADVISORY]) == SHOULD
    assert worst([PASS, WAIVED, ERROR]) == ERROR
    assert worst([PASS, FAIL, WAIVED]) == FAIL
    assert worst([NA, PASS]) == PASS
    assert worst([]) == NONE


def test_a_cell_counts_vectors_and_shows_the_worst():
    cell = Cell()
    for state in (PASS, PASS, WAIVED, SHOULD):
        cell.add(state)
    assert cell.state == WAIVED and cell.total == 4
    assert cell.summary == "4 vectors: 1 waived, 1 SHOULD only, 2 pass"
    assert Cell().summary == "no vector of this run checks it"


def test_a_vector_checks_its_own_requirements_and_those_its_failures_name():
    data = vector(failures=[failure("must", "R-c", "R-a")])
    assert checked_requirements(data) == ["R-a", "R-b", "R-c"]
