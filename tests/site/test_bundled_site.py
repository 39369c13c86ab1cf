"""reports/site/: the committed results site of the bundled implementations is current.

It is generated (`python reports/regenerate.py`); these tests fail when the
corpus changed since, when it lost an implementation, or when a machine
path slipped into it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from conformance import resources
from conformance.runner.vectors import load_corpus

REPO = Path(__file__).resolve().parents[2]
SITE = REPO / "reports" / "site"
REGENERATE = "regenerate it: python reports/regenerate.py"


@pytest.fixture(scope="module")
def manifest() -> dict:
    if not (SITE / "site.json").is_file():
        pytest.fail(f"reports/site/site.json is missing: {REGENERATE}")
    return json.loads((SITE / "site.json").read_text(encoding="utf-8"))


def test_the_site_is_of_the_current_corpus(manifest):
    digest = load_corpus([resources.vectors_dir()]).digest
    assert manifest["corpus_digests"] == [digest], f"reports/site/ is of another corpus: {REGENERATE}"
    index = (SITE / "index.html").read_text(encoding="utf-8")
    assert digest[:16] in index


def test_it_shows_the_reference_passing_and_the_mutants_failing(manifest):
    rows = {row["label"]: row for row in manifest["implementations"]}
    assert rows["reference adapter"]["earned"] == "full"
    assert "Node.js example (memoir-mini)" in rows
    # A mutant that breaks a SHOULD or an interpretation still earns Full; the others show failing.
    mutants = [row for label, row in rows.items() if label.startswith("mutant ")]
    assert sum(row["earned"] != "full" for row in mutants) >= len(mutants) // 2
    for row in manifest["implementations"]:
        assert (SITE / row["page"]).is_file()


def test_no_machine_path_is_in_it():
    here = [str(REPO), sys.prefix, sys.executable]
    for path in SITE.rglob("*"):
        if path.is_file():
            text = path.read_text(encoding="utf-8")
            assert not [found for found in here if found in text], path
