"""`memoir-conform model-mutation`: usage errors, and one real mutmut run on one function."""

from __future__ import annotations

import os
import shutil
from importlib import metadata

import pytest

from conformance import resources
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


# The vector files that reach the offsets of dates: a run on the whole corpus costs its fixed
# phases (mutmut's stats and clean runs) over 1,400 vectors; these few kill what the corpus kills.
OFFSET_VECTORS = ("merge/dates-as-instants.json", "merge/newest-wins.json", "read/identity-and-dates.json")


@pytest.mark.slow
@pytest.mark.skipif(os.name != "posix", reason="mutmut forks a process per mutant")
def test_one_function_end_to_end(tmp_path, capsys, monkeypatch):
    """The offsets of dates: few vectors reach them, most mutants are killed, and a
    few survivors are explained in equivalents.json (a lowercase `z`, characters the
    date parser never lets through)."""
    pytest.importorskip("mutmut")
    vectors = tmp_path / "vectors"
    for name in ("requirements.json", "boundaries.json", *OFFSET_VECTORS):
        (vectors / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(resources.vectors_dir() / name, vectors / name)
    monkeypatch.setattr(resources, "vectors_dir", lambda: vectors)
    report = tmp_path / "report.md"
    code = main(["model-mutation", "--workdir", str(tmp_path / "work"), "--only", "dates._offset",
                 "-j", "2", "--report", str(report)])
    assert code == 0, capsys.readouterr()
    text = report.read_text(encoding="utf-8")
    [line] = [line for line in text.splitlines() if line.startswith("- `dates._offset`, ")]
    assert "killed (" in line and "survived: equivalent (" in line and "unexplained" not in line
    assert "- `dates.parse_date`" not in text  # --only covers that function alone
