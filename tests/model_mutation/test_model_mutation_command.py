"""`memoir-conform model-mutation`: usage errors, and one real mutmut run on one function."""

from __future__ import annotations

import os
from importlib import metadata

import pytest

from conformance.cli import main


def test_without_mutmut_it_says_how_to_install_it(monkeypatch, capsys):
    def missing(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", missing)
    assert main(["model-mutation"]) == 2
    assert "pip install 'memoir-conform[mutation]'" in capsys.readouterr().err


def test_no_run_needs_a_workdir(capsys):
    pytest.importorskip("mutmut")
    assert main(["model-mutation", "--no-run"]) == 2
    assert "--workdir" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.skipif(os.name != "posix", reason="mutmut forks a process per mutant")
def test_one_function_end_to_end(tmp_path, capsys):
    """text_hash has five mutants: four change the hash (the corpus kills them), one
    spells the codec in capitals (equivalent, explained in equivalents.json)."""
    pytest.importorskip("mutmut")
    report = tmp_path / "report.md"
    code = main(["model-mutation", "--workdir", str(tmp_path / "work"), "--only", "identity.text_hash",
                 "-j", "2", "--report", str(report)])
    assert code == 0, capsys.readouterr()
    text = report.read_text(encoding="utf-8")
    rows = [line for line in text.splitlines() if line.startswith("| `identity.text_hash:")]
    assert len(rows) == 5
    assert sum(row.endswith("| killed |") for row in rows) == 4
    assert sum("survived: equivalent" in row for row in rows) == 1
