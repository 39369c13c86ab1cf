"""Fixtures of the spec-feedback tests: the run reports of feedback_helpers.VARIANTS, made once per session."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance.feedback import command as feedback_command
from feedback_helpers import MUTANTS, VARIANTS, cached_corpus, run_report


@pytest.fixture(autouse=True)
def corpus_loaded_once(monkeypatch):
    """`spec-feedback` measures vectors against the corpus: loaded once per session here."""
    monkeypatch.setattr(feedback_command, "load_corpus", lambda roots: cached_corpus(tuple(roots)))


@pytest.fixture(scope="session")
def report_files(tmp_path_factory) -> dict[str, Path]:
    """name -> the path of its run report (all of VARIANTS, made on first use)."""
    directory = tmp_path_factory.mktemp("feedback-reports")
    made = {}
    for name, (selection, change) in VARIANTS.items():
        made[name] = directory / f"{name}.json"
        run_report(made[name], selection, **change)
    return made


@pytest.fixture(scope="session")
def reports(report_files) -> dict[str, dict]:
    return {name: json.loads(path.read_text(encoding="utf-8")) for name, path in report_files.items()}


@pytest.fixture(scope="session")
def mutant_requirements() -> dict[str, set[str]]:
    """Mutant file stem -> the requirements runners/mutants/mutants.json says it breaks."""
    listed = json.loads((MUTANTS / "mutants.json").read_text(encoding="utf-8"))["mutants"]
    return {Path(entry["file"]).stem: set(entry["requirements"]) for entry in listed}
