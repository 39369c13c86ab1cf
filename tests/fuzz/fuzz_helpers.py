"""Helpers of the fuzz tests: adapters to fuzz, the mutants registry, a run helper."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from conformance import resources
from conformance.fuzz.engine import Budget, run_properties
from conformance.fuzz.subject import Subject
from conformance.protocol.messages import AdapterFault
from conformance.runner.implementations import AdapterImplementation

MUTANTS_DIR = resources.runners_dir() / "mutants"
REGISTRY = MUTANTS_DIR / "mutants.json"
REFERENCE = [sys.executable, str(resources.runners_dir() / "reference" / "adapter.py")]


def mutant_command(file_name: str) -> list[str]:
    return [sys.executable, str(MUTANTS_DIR / file_name)]


def load_mutants() -> list[dict]:
    """The mutants registry (runners/mutants/mutants.json), or [] where it is not there."""
    try:
        return json.loads(REGISTRY.read_text(encoding="utf-8"))["mutants"]
    except (OSError, ValueError, KeyError):
        return []


class Fuzzer:
    """Runs properties against one adapter command, in process, through a real subprocess adapter."""

    def __init__(self, command: list[str], workdir: Path):
        self.implementation = AdapterImplementation(command, workdir=workdir / "adapters")
        described = self.implementation.describe()
        assert not isinstance(described, AdapterFault), str(described)
        self.subject = Subject(self.implementation, described, workdir / "stores")

    def run(self, properties: list[str], *, seed: int, examples: int, shrink_seconds: float = 30.0,
            max_seconds: float | None = None):
        budget = Budget(seed=seed, examples=examples, max_seconds=max_seconds, shrink_seconds=shrink_seconds)
        return run_properties(self.subject, properties, budget)

    def close(self) -> None:
        self.implementation.close()
