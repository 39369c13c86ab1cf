"""Bad input never raises: arbitrary bytes and shapes come back as diagnostics."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.validator import memory_diff, reme_vault
from conformance.validator.core.findings import Diagnostic

# Keys the checks look at, so that generated documents reach them.
KEYS = st.sampled_from([
    "version", "id", "trigger", "basis", "changes", "item", "operation", "target_id", "target_ids", "source",
    "freshness", "conflict_notes", "visibility", "level", "review", "decisions", "application", "status",
    "resolution", "resolves", "evidence", "derived_from", "kind", "role", "uri", "state", "generated",
    "reviewed_by", "applied_at", "accepted_change_ids", "resulting_item_ids", "claim", "reason",
])
WORDS = st.sampled_from([
    "0.1", "add", "supersede", "deprecate", "revalidate", "flag_conflict", "update", "delete", "primary",
    "pull_request", "chat", "merged", "open", "public", "internal", "private", "applied", "accepted",
    "generated_summary", "change_01", "",
])
SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | WORDS | st.text(max_size=8)
DOCUMENTS = st.recursive(
    SCALARS,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(KEYS, children, max_size=6),
    max_leaves=25,
)


def assert_diagnostics(findings) -> None:
    assert isinstance(findings, list)
    assert all(isinstance(finding, Diagnostic) for finding in findings)
    assert all(finding.line >= 0 and finding.column >= 0 for finding in findings)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=512))
def test_arbitrary_bytes_as_a_memory_diff(raw):
    assert_diagnostics(memory_diff.validate_bytes(raw, "fuzz.yaml"))


@settings(max_examples=120, deadline=None)
@given(st.dictionaries(KEYS, DOCUMENTS, max_size=8))
def test_arbitrary_shapes_as_a_memory_diff(document):
    # JSON is YAML, so this reaches the schema and every cross-field check.
    assert_diagnostics(memory_diff.validate_text(json.dumps(document), "fuzz.yaml"))


@settings(max_examples=50, deadline=None)
@given(st.binary(max_size=300), st.text(max_size=200))
def test_arbitrary_memory_files_in_a_vault(raw, body):
    with tempfile.TemporaryDirectory() as directory:
        vault = Path(directory)
        (vault / "topics" / "X").mkdir(parents=True)
        (vault / "topics" / "X" / "X.md").write_bytes(raw)
        event = vault / "events" / "2026-07-01" / "e"
        event.mkdir(parents=True)
        (event / "e.md").write_text("---\nlifecycle: streaming\n---\n" + body, encoding="utf-8", errors="surrogatepass")
        assert_diagnostics(reme_vault.validate_paths([str(vault)], since=str(vault)))
