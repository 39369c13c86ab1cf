"""Fixtures of the fuzz tests."""

from __future__ import annotations

import pytest
from fuzz_helpers import Fuzzer


@pytest.fixture
def fuzzer(tmp_path):
    """fuzzer(command) -> a Fuzzer, closed after the test."""
    made: list[Fuzzer] = []

    def make(command: list[str]) -> Fuzzer:
        made.append(Fuzzer(command, tmp_path / f"fuzzer-{len(made) + 1}"))
        return made[-1]

    yield make
    for one in made:
        one.close()
