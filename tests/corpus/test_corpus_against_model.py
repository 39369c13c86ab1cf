"""Every vector of the corpus passes against the reference model, run in-process.

This is where the corpus and the model cannot silently disagree: a vector
that fails here is either a wrong vector or a model bug. The run is the
session's `reference_results` (tests/conftest.py), which the verdict tests
share; each vector is still a test of its own.
"""

from __future__ import annotations

import pytest

from conformance import resources
from conformance.runner.execute import PASS
from conformance.runner.vectors import load_corpus

CORPUS = load_corpus([resources.vectors_dir()])


def test_corpus_loads():
    assert CORPUS.problems == []


@pytest.mark.parametrize("vector", [pytest.param(vector, id=vector.id) for vector in CORPUS.vectors])
def test_vector_passes_against_the_reference_model(vector, reference_results):
    result = reference_results[vector.id]
    assert result.outcome == PASS, (result.detail, [failure.to_json() for failure in result.failures])
