"""Every vector of the corpus passes against the reference model, run in-process.

This is where the corpus and the model cannot silently disagree: a vector
that fails here is either a wrong vector or a model bug.
"""

from __future__ import annotations

import pytest

from conformance import resources
from conformance.runner.execute import PASS, run_vector
from conformance.runner.implementations import ModelImplementation
from conformance.runner.vectors import load_corpus

CORPUS = load_corpus([resources.vectors_dir()])


def _params():
    for vector in CORPUS.vectors:
        marks = [pytest.mark.slow] if vector.op == "concurrent_writes" else []
        yield pytest.param(vector, id=vector.id, marks=marks)


@pytest.fixture(scope="module")
def model():
    implementation = ModelImplementation()
    return implementation, implementation.describe()


def test_corpus_loads():
    assert CORPUS.problems == []


@pytest.mark.parametrize("vector", list(_params()))
def test_vector_passes_against_the_reference_model(vector, model, tmp_path):
    implementation, described = model
    result = run_vector(vector, implementation, described, tmp_path)
    assert result.outcome == PASS, (result.detail, [failure.to_json() for failure in result.failures])
