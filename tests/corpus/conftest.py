"""Fixtures for the corpus tests: the kit's index and corpus, and the shared spec when present."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance import resources
from conformance.corpus.requirements import load_index
from conformance.runner.vectors import load_corpus

# The shared folder (the spec) sits beside the repository; tests that need it skip without it.
SHARED = Path(__file__).resolve().parents[2] / ".." / "shared"
SPEC = SHARED / "spec" / "memoir-format-v0.1.2.md"


@pytest.fixture(scope="session")
def requirements():
    loaded, problems = load_index()
    assert problems == [], [str(problem) for problem in problems]
    return loaded


@pytest.fixture(scope="session")
def corpus():
    loaded = load_corpus([resources.vectors_dir()])
    assert loaded.problems == [], [str(problem) for problem in loaded.problems]
    return loaded


@pytest.fixture(scope="session")
def spec_text() -> str:
    if not SPEC.is_file():
        pytest.skip(f"the shared spec is not beside the repository ({SPEC})")
    return SPEC.read_text(encoding="utf-8")
