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
BUNDLED = resources.vectors_dir()


@pytest.mark.slow
@pytest.mark.skipif(os.name != "posix", reason="mutmut forks a process per mutant")
def test_one_function_end_to_end_and_again_with_vectors_added(tmp_path, capsys, monkeypatch):
    """The offsets of dates: few vectors reach them, most mutants are killed, and a
    few survivors are explained in equivalents.json (a lowercase `z`, characters the
    date parser never lets through). Vectors added since: the kills are kept, the
    other mutants are tested again, with the new vectors among their tests."""
    pytest.importorskip("mutmut")
    vectors = tmp_path / "vectors"
    monkeypatch.setattr(resources, "vectors_dir", lambda: vectors)
    command = ["model-mutation", "--workdir", str(tmp_path / "work"), "--only", "dates._offset",
               "-j", "2", "--report", str(tmp_path / "report.md")]
    for added in (OFFSET_VECTORS[:1], OFFSET_VECTORS[1:]):
        for name in ("requirements.json", "boundaries.json", *added):
            (vectors / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(BUNDLED / name, vectors / name)
        assert main(command) == 0, capsys.readouterr()
    assert "the corpus only gained vectors: its kills are kept" in capsys.readouterr().out
    text = (tmp_path / "report.md").read_text(encoding="utf-8")
    [line] = [line for line in text.splitlines() if line.startswith("- `dates._offset`, ")]
    assert "killed (" in line and "survived: equivalent (" in line and "unexplained" not in line
    assert "- `dates.parse_date`" not in text  # --only covers that function alone
