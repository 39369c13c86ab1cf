"""Fixtures for the runner tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance import resources
from conformance.runner.vectors import load_corpus


@pytest.fixture
def vectors_root(tmp_path: Path) -> Path:
    """An empty vectors directory for synthetic vector files."""
    root = tmp_path / "vectors"
    root.mkdir()
    return root


@pytest.fixture
def hostile(fake_env, fake_command):
    """The fake adapter serving the reference model; returns its command line."""
    fake_env(model="reference")
    return " ".join(fake_command)


@pytest.fixture(scope="session")
def corpus():
    """The bundled corpus, loaded once for the verdict-honesty tests."""
    loaded = load_corpus([resources.vectors_dir()])
    assert loaded.problems == []
    return loaded.vectors
