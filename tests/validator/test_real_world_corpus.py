"""The validator on memory files from the wild (shared/corpus/real-world).

Each file is put back under its original file name, in one store per source
repository, so that index files are called MEMORY.md again and links resolve
as they did where the files came from. Every file must get a reading and
diagnostics, no check may fail, and legacy files must read as legacy.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.validator import memoir
from conformance.validator.memoir import rules

CORPUS = Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus" / "real-world"
pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason="shared/corpus/real-world is not beside the repository")

LEGACY_RULES = {rules.LEGACY_METADATA.id, rules.LEGACY_ORIGIN.id, rules.LEGACY_TYPE.id, rules.LEGACY_DOSSIER.id,
                rules.NO_FRONTMATTER.id, rules.INDEX_FILE.id}


@pytest.fixture(scope="module")
def stores(tmp_path_factory) -> dict[str, dict]:
    """corpus file -> {"store", "path" (as validated), "features"}."""
    root = tmp_path_factory.mktemp("real-world")
    placed = {}
    for item in json.loads((CORPUS / "MANIFEST.json").read_text(encoding="utf-8")):
        store = root / item["repo"].replace("/", "__")
        target = store / "memory" / Path(item["path"]).name
        if target.exists():  # the same file at two commits (001, 002): keep both
            target = target.with_name(f"{target.stem}.{item['file'][:3]}.md")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(CORPUS / item["file"], target)
        placed[item["file"]] = {"store": store, "path": str(target), "features": " ".join(item["features"])}
    return placed


@pytest.fixture(scope="module")
def report(stores):
    return memoir.validate(sorted({str(entry["store"]) for entry in stores.values()}))


def test_every_file_gets_a_reading_and_diagnostics(stores, report):
    by_path: dict[str, list] = {}
    for found in report.diagnostics:
        by_path.setdefault(found.path, []).append(found)
    assert rules.CHECK_FAILED.id not in {d.rule for d in report.diagnostics}
    for name, entry in stores.items():
        assert entry["path"] in report.files, name
        assert by_path.get(entry["path"]), f"{name}: no diagnostics"


def test_legacy_files_are_recognised_as_legacy(stores, report):
    for name, entry in stores.items():
        features = entry["features"]
        found = {d.rule for d in report.diagnostics if d.path == entry["path"]}
        if "legacy type" in features or "no frontmatter" in features or "dialect: nested" in features:
            assert found & LEGACY_RULES, f"{name} not recognised as legacy: {found}"
        if "MEMORY.md index" in features:
            assert rules.INDEX_FILE.id in found, name
        if "frontmatter AFTER preamble" in features:
            assert rules.PREAMBLE.id in found and rules.LEGACY_TYPE.id in found, name
        if "strict parser (PyYAML) FAILS" in features:
            assert found & {rules.YAML_REJECTED.id, rules.YAML_QUOTING.id}, name
        if "unquoted ' #' starts a comment" in features:
            assert rules.YAML_COMMENT.id in found, name
        if "non-standard type" in features:
            assert rules.UNKNOWN_TYPE.id in found, name


def test_no_legacy_file_is_a_wall_of_errors(stores, report):
    errors = [d for d in report.diagnostics if d.severity == "error"]
    # Only what truly departs from the subset is an error: flow lists, deeper nesting, a quoted value run on.
    assert {d.rule for d in errors} <= {rules.YAML_FLOW.id, rules.YAML_DEEP_NESTING.id, rules.YAML_QUOTING.id}


def test_the_command_line_on_the_corpus_never_ends_in_a_traceback(stores, capsys):
    paths = sorted({str(entry["store"]) for entry in stores.values()})
    for fmt in ("human", "json", "sarif", "junit"):
        code = main(["validate", "--format", fmt, *paths])
        captured = capsys.readouterr()
        assert code == 1 and captured.out and "Traceback" not in captured.err
