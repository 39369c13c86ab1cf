"""The golden sibling fixtures: every fixture raises exactly what its manifest says.

vectors/siblings/{memory-diff,reme-vault}/manifest.json lists each fixture
with the rule ids it must raise (`raises`, exact) and must not raise
(`does_not_raise`). Every rule of both catalogues has a passing and a
failing fixture.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.validator import memory_diff, reme_vault
from sibling_helpers import (
    MEMORY_DIFF_FIXTURES,
    REME_FIXTURES,
    fixture_rule_id,
    manifest,
    materialise_vault,
)

DIFF_MANIFEST = manifest(MEMORY_DIFF_FIXTURES)
REME_MANIFEST = manifest(REME_FIXTURES)


@pytest.mark.parametrize("entry", DIFF_MANIFEST["fixtures"], ids=lambda entry: entry["file"])
def test_memory_diff_fixture_raises_what_the_manifest_says(entry):
    findings = memory_diff.validate_paths([str(MEMORY_DIFF_FIXTURES / entry["file"])])
    raised = {finding.rule for finding in findings}
    assert raised == set(entry["raises"]), [f"{f.line}:{f.column} {f.rule} {f.message}" for f in findings]
    assert not raised & set(entry.get("does_not_raise", []))


@pytest.mark.parametrize("entry", REME_MANIFEST["fixtures"], ids=lambda entry: entry["vault"])
def test_reme_fixture_raises_what_the_manifest_says(entry, tmp_path):
    vault, since = materialise_vault(entry, tmp_path)
    findings = reme_vault.validate_paths([vault], since=since)
    raised = {finding.rule for finding in findings}
    assert raised == set(entry["raises"]), [f"{f.path}:{f.line}:{f.column} {f.rule} {f.message}" for f in findings]
    assert not raised & set(entry.get("does_not_raise", []))


@pytest.mark.parametrize(
    ("module", "entries", "key"),
    [(memory_diff, DIFF_MANIFEST["fixtures"], "file"), (reme_vault, REME_MANIFEST["fixtures"], "vault")],
    ids=["memory-diff", "reme-vault"],
)
def test_every_rule_has_a_passing_and_a_failing_fixture(module, entries, key):
    passing = {fixture_rule_id(entry[key]) for entry in entries if ".pass" in entry[key] and not entry["raises"]}
    failing = {fixture_rule_id(entry[key]) for entry in entries
               if ".fail" in entry[key] and fixture_rule_id(entry[key]) in entry["raises"]}
    rule_ids = {rule.id for rule in module.RULES}
    assert rule_ids - passing == set(), "rules without a passing fixture"
    assert rule_ids - failing == set(), "rules without a failing fixture that raises them"


def test_every_memory_diff_fixture_file_is_in_the_manifest():
    listed = {entry["file"] for entry in DIFF_MANIFEST["fixtures"]}
    on_disk = {path.name for path in MEMORY_DIFF_FIXTURES.iterdir() if path.name != "manifest.json"}
    assert on_disk == listed


def test_every_reme_fixture_vault_is_in_the_manifest():
    listed = {entry["vault"].split("/")[0] for entry in REME_MANIFEST["fixtures"]}
    on_disk = {path.name for path in REME_FIXTURES.iterdir() if path.is_dir()}
    assert on_disk == listed


def test_reme_fixtures_are_not_written_to(tmp_path):
    """Validating leaves every byte and mtime of the vault as it was."""
    entry = next(entry for entry in REME_MANIFEST["fixtures"] if entry["vault"] == "REME-E-MATERIAL-MISSING.fail")
    vault, _ = materialise_vault(entry, tmp_path)
    before = {path: (path.read_bytes(), path.stat().st_mtime_ns) for path in tmp_path.rglob("*") if path.is_file()}
    reme_vault.validate_paths([vault])
    after = {path: (path.read_bytes(), path.stat().st_mtime_ns) for path in tmp_path.rglob("*") if path.is_file()}
    assert after == before


def test_the_sibling_docs_describe_every_rule():
    docs = Path(__file__).resolve().parents[2] / "docs" / "sibling-formats.md"
    text = docs.read_text(encoding="utf-8")
    missing = [rule.id for rule in memory_diff.RULES + reme_vault.RULES if f"`{rule.id}`" not in text]
    assert missing == []
