"""The check keywords: each holds on a matching document and fails at the right JSON path."""

from __future__ import annotations

from conformance.model.identity import text_hash
from conformance.runner.checks import MISSING, FileContext, evaluate, resolve

SECRET_HASH = text_hash("Client ACME pays 5k")

DOCUMENT = {
    "session": {
        "version": 1,
        "current": {
            "next_actions": [
                {"text": "Write the importer", "added": "2026-01-02T10:00:00Z", "machine_id": "m1"},
                {"text": "Fix flaky test", "added": "2026-01-01", "machine_id": ""},
            ],
            "decisions": [
                {"text": "Use SQLite", "date": "2026-01-01", "hidden": True, "hidden_at": "2026-01-03"},
                {"text": "[purged]", "text_hash": SECRET_HASH, "hidden": True, "hidden_at": "2026-01-04"},
            ],
        },
        "history": [{"summary": "b"}, {"summary": "a"}],
    },
    "live": {"next_actions": ["Write the importer", "Fix flaky test"], "decisions": [], "goals": []},
    "entries": {"fact_a": {"link": "fact_a", "status": "ok", "type": "fact", "fields": {"type": "fact", "name": "A"}}},
    "files": {"memory/fact_a.md": "---\ntype: fact\n---\n", "session.json": "{}"},
}


def run(check: dict, files: FileContext | None = None):
    return evaluate(check, DOCUMENT, files)


def test_pointer_resolution_and_unescaped_file_paths():
    assert resolve(DOCUMENT, "/session/current/next_actions/1/text").value == "Fix flaky test"
    assert resolve(DOCUMENT, "/files/memory~1fact_a.md").value.startswith("---")
    assert resolve(DOCUMENT, "/files/memory/fact_a.md").pointer == "/files/memory~1fact_a.md"
    missing = resolve(DOCUMENT, "/session/current/goals")
    assert missing.value is MISSING and missing.parent_exists
    assert not resolve(DOCUMENT, "/session/nothing/goals").parent_exists
    assert resolve(DOCUMENT, "/session/history/01").value is MISSING


# equals

def test_equals_compares_session_items_by_identity_in_any_order():
    swapped = list(reversed(DOCUMENT["session"]["current"]["next_actions"]))
    assert run({"path": "/session/current/next_actions", "equals": swapped}) is None


def test_equals_reports_the_deepest_differing_path():
    expected = [dict(item) for item in DOCUMENT["session"]["current"]["next_actions"]]
    expected[0]["added"] = "2026-01-09T10:00:00Z"
    failure = run({"path": "/session/current/next_actions", "equals": list(reversed(expected))})
    assert failure.path == "/session/current/next_actions/0/added"
    assert failure.check == "equals"
    assert (failure.expected, failure.actual) == ("2026-01-09T10:00:00Z", "2026-01-02T10:00:00Z")


def test_equals_reports_a_missing_identity_and_a_missing_field():
    only_one = [DOCUMENT["session"]["current"]["next_actions"][0], {"text": "Other", "added": "2026-01-01"}]
    failure = run({"path": "/session/current/next_actions", "equals": only_one})
    assert failure.path == "/session/current/next_actions" and 'missing item "Other"' in failure.message
    failure = run({"path": "/entries/fact_a", "equals": {"link": "fact_a", "status": "ok", "type": "fact",
                                                         "fields": {"type": "fact", "name": "A", "x": 1}}})
    assert failure.path == "/entries/fact_a/fields/x" and failure.actual is MISSING


def test_equals_an_absent_session_list_is_the_empty_list():
    assert run({"path": "/session/current/completed_actions", "equals": []}) is None
    failure = run({"path": "/session/current/completed_actions", "equals": [{"text": "x"}]})
    assert failure.path == "/session/current/completed_actions" and failure.actual is MISSING


def test_equals_plain_lists_keep_their_order_and_types_are_strict():
    failure = run({"path": "/session/history", "equals": [{"summary": "a"}, {"summary": "b"}]})
    assert failure.path == "/session/history/0/summary"
    assert run({"path": "/session/version", "equals": 1}) is None
    assert run({"path": "/session/version", "equals": True}).path == "/session/version"


# identities, contains, excludes, order

def test_identities_normalize_and_name_purged_items_by_hash():
    assert run({"path": "/live/next_actions", "identities": ["fix flaky test ", "WRITE THE IMPORTER"]}) is None
    assert run({"path": "/session/current/decisions", "identities": ["use sqlite", f"sha256:{SECRET_HASH}"]}) is None
    assert run({"path": "/session/current/decisions", "identities": ["use sqlite", "client acme pays 5k"]}) is None


def test_identities_report_missing_and_unexpected():
    failure = run({"path": "/live/next_actions", "identities": ["Write the importer", "Ship it"]})
    assert failure.path == "/live/next_actions"
    assert 'missing ["Ship it"]' in failure.message and 'unexpected ["Fix flaky test"]' in failure.message
    assert failure.actual == ["Write the importer", "Fix flaky test"]


def test_identities_of_an_absent_list_are_empty():
    assert run({"path": "/live/goals", "identities": []}) is None
    assert run({"path": "/live/parked_actions", "identities": []}) is None
    failure = run({"path": "/nothing/goals", "identities": []})
    assert failure is not None and "nor at its parent" in failure.message


def test_contains_subset_fields_and_null_means_absent():
    assert run({"path": "/session/current/decisions",
                "contains": [{"text": "USE SQLITE", "hidden": True, "why": None}]}) is None
    assert run({"path": "/session/current/decisions",
                "contains": [{"text": "client acme pays 5k", "hidden": True}]}) is None, "a purged copy matches by hash"
    assert run({"path": "/session/current/decisions",
                "contains": [{"text_hash": SECRET_HASH, "text": "[purged]"}]}) is None


def test_contains_fails_on_a_missing_identity_and_on_a_field():
    failure = run({"path": "/live/next_actions", "contains": ["Ship it"]})
    assert failure.path == "/live/next_actions" and '"Ship it" is not present' in failure.message
    failure = run({"path": "/session/current/decisions", "contains": [{"text": "use sqlite", "hidden_at": None}]})
    assert failure.path == "/session/current/decisions/0/hidden_at" and failure.actual == "2026-01-03"
    failure = run({"path": "/session/current/decisions", "contains": [{"text": "Use SQLite", "hidden": False}]})
    assert failure.path == "/session/current/decisions/0/hidden"
    assert (failure.expected, failure.actual) == (False, True)


def test_contains_after_matches_a_date_not_earlier_than_the_bound():
    # hidden_at of "Use SQLite" is 2026-01-03 in the document under test; an
    # equal instant passes (5.3.2 needs only "not later than" on the other side)
    assert run({"path": "/session/current/decisions",
                "contains": [{"text": "use sqlite", "hidden_at": {"$after": "2026-01-02T23:59:59Z"}}]}) is None
    assert run({"path": "/session/current/decisions",
                "contains": [{"text": "use sqlite", "hidden_at": {"$after": "2026-01-03T00:00:00+00:00"}}]}) is None
    failure = run({"path": "/session/current/decisions",
                   "contains": [{"text": "use sqlite", "hidden_at": {"$after": "2026-01-03T00:00:01Z"}}]})
    assert failure.path == "/session/current/decisions/0/hidden_at" and "earlier than 2026-01-03" in failure.message
    failure = run({"path": "/session/current/decisions",
                   "contains": [{"text": "use sqlite", "hidden": {"$after": "2026-01-01"}}]})
    assert failure is not None and "not an ISO 8601 date" in failure.message


def test_contains_fields_on_plain_texts_cannot_be_checked():
    failure = run({"path": "/live/next_actions", "contains": [{"text": "Fix flaky test", "added": "x"}]})
    assert failure.path == "/live/next_actions/1" and "plain text" in failure.message


def test_excludes():
    assert run({"path": "/live/next_actions", "excludes": ["Ship it", {"text": "use sqlite"}]}) is None
    failure = run({"path": "/session/current/decisions", "excludes": [f"sha256:{SECRET_HASH}"]})
    assert failure.path == "/session/current/decisions/1" and failure.check == "excludes"


def test_contains_and_excludes_name_rows_without_identity_by_their_fields():
    assert run({"path": "/session/history", "contains": [{"summary": "a"}, {"summary": "b"}]}) is None
    failure = run({"path": "/session/history", "contains": [{"summary": "c"}]})
    assert failure.path == "/session/history" and "no element has the fields" in failure.message
    assert run({"path": "/session/history", "excludes": [{"summary": "c"}]}) is None
    failure = run({"path": "/session/history", "excludes": [{"summary": "a"}]})
    assert failure.path == "/session/history/1" and failure.actual == {"summary": "a"}


def test_contains_and_excludes_on_an_object_use_its_keys():
    assert run({"path": "/entries", "contains": ["fact_a"]}) is None
    assert run({"path": "/entries", "excludes": ["fact_b"]}) is None
    assert run({"path": "/entries", "excludes": ["fact_a"]}).path == "/entries/fact_a"


def test_order():
    assert run({"path": "/live/next_actions", "order": ["write the importer", "fix flaky test"]}) is None
    failure = run({"path": "/live/next_actions", "order": ["fix flaky test", "write the importer"]})
    assert failure.path == "/live/next_actions/0"
    assert (failure.expected, failure.actual) == ("fix flaky test", "Write the importer")
    failure = run({"path": "/live/next_actions", "order": ["write the importer"]})
    assert failure.path == "/live/next_actions/1" and failure.expected is MISSING


# absent, count, matches, stamped

def test_absent():
    assert run({"path": "/session/current/goals", "absent": True}) is None
    failure = run({"path": "/session/version", "absent": True})
    assert failure.path == "/session/version" and failure.actual == 1
    assert run({"path": "/session/version", "absent": False}) is None
    assert run({"path": "/session/created_at", "absent": False}).actual is MISSING


def test_count():
    assert run({"path": "/live/next_actions", "count": 2}) is None
    assert run({"path": "/session/current/goals", "count": 0}) is None, "an absent session list has 0 items"
    failure = run({"path": "/live/next_actions", "count": 3})
    assert failure.path == "/live/next_actions" and (failure.expected, failure.actual) == (3, 2)
    assert run({"path": "/live/next_actions", "count": {"at_most": 2}}) is None
    assert run({"path": "/session/current/goals", "count": {"at_most": 0}}) is None
    failure = run({"path": "/live/next_actions", "count": {"at_most": 1}})
    assert (failure.expected, failure.actual) == ({"at_most": 1}, 2) and "at most 1" in failure.message


def test_matches():
    assert run({"path": "/entries/fact_a", "matches": {"type": "fact", "fields": {"name": "A"}, "body": None}}) is None
    failure = run({"path": "/entries/fact_a", "matches": {"fields": {"name": "B"}}})
    assert failure.path == "/entries/fact_a/fields/name" and (failure.expected, failure.actual) == ("B", "A")
    assert run({"path": "/entries/fact_b", "matches": {"type": "fact"}}).actual is MISSING


def test_stamped():
    assert run({"path": "/session/current/next_actions/0", "stamped": ["added", "machine_id"]}) is None
    failure = run({"path": "/session/current/next_actions", "stamped": ["added", "machine_id"]})
    assert failure.path == "/session/current/next_actions/1/machine_id" and failure.actual == ""
    failure = run({"path": "/session/current/decisions", "stamped": ["machine_id"]})
    assert failure.path == "/session/current/decisions/0/machine_id" and failure.actual is MISSING
    failure = run({"path": "/session/history", "stamped": ["date"]})
    assert failure.path == "/session/history/0/date"
    assert run({"path": "/live/goals", "stamped": ["set_on"]}) is not None, "nothing to check is not a pass"


def test_stamped_date_fields_must_be_iso8601():
    document = {"items": [{"text": "a", "added": "yesterday"}]}
    failure = evaluate({"path": "/items", "stamped": ["added"]}, document)
    assert failure.path == "/items/0/added" and failure.actual == "yesterday" and failure.advisory is None


def test_a_stamp_in_iso_8601_basic_format_is_advisory_an_invalid_one_decides():
    # ISO 8601 has a basic format too; the kit's reading of dates (AMB-DATES) takes only the extended one.
    for stamp in ("20261207T231234Z", "20261207T231234.120+0530", "20261207T2312Z", "20261207"):
        failure = evaluate({"path": "/items", "stamped": ["added"]}, {"items": [{"text": "a", "added": stamp}]})
        assert failure.actual == stamp and failure.advisory and "AMB-DATES" in failure.advisory, stamp
    for stamp in ("20261399T231234Z", "20261207T23Z", "2026120", "20261207T251234Z", "2026-1207T231234Z"):
        failure = evaluate({"path": "/items", "stamped": ["added"]}, {"items": [{"text": "a", "added": stamp}]})
        assert failure.actual == stamp and failure.advisory is None, stamp


# unchanged, preserved

ORIGINAL = {"session.json": b'{"version": 9}', "memory/a.md": b"---\ntype: fact\n---\n"}


def test_unchanged():
    same = FileContext({"files": ORIGINAL}, {"files": dict(ORIGINAL)})
    assert run({"path": "/files/session.json", "unchanged": True}, same) is None
    assert run({"path": "/files/memory~1a.md", "unchanged": True}, same) is None
    modified = FileContext({"files": ORIGINAL}, {"files": {**ORIGINAL, "memory/a.md": b"changed"}})
    failure = run({"path": "/files/memory/a.md", "unchanged": True}, modified)
    assert failure.path == "/files/memory/a.md" and failure.actual == "changed"
    assert failure.expected == "---\ntype: fact\n---\n"
    deleted = FileContext({"files": ORIGINAL}, {"files": {"memory/a.md": ORIGINAL["memory/a.md"]}})
    failure = run({"path": "/files/session.json", "unchanged": True}, deleted)
    assert failure.actual is MISSING and "deleted" in failure.message


def test_preserved_accepts_the_file_or_a_copy_and_fails_when_the_bytes_are_gone():
    kept = FileContext({"files": ORIGINAL}, {"files": dict(ORIGINAL)})
    assert run({"path": "/files/session.json", "preserved": True}, kept) is None
    quarantined = FileContext({"files": ORIGINAL}, {"files": {
        "session.json": b'{"version": 1}', "session.json.quarantine-2026": ORIGINAL["session.json"]}})
    assert run({"path": "/files/session.json", "preserved": True}, quarantined) is None
    lost = FileContext({"files": ORIGINAL}, {"files": {"session.json": b'{"version": 1}'}})
    failure = run({"path": "/files/session.json", "preserved": True}, lost)
    assert failure.path == "/files/session.json" and failure.check == "preserved"
    assert failure.actual == ["session.json"]


def test_preserved_with_content_looks_for_those_bytes_in_a_store_that_started_empty():
    newer = {"$text": "---\nschema_version: 2\n---\n"}
    merged = FileContext({"files": {}}, {"files": {
        "memory/a.md": b"older copy", "memory/a.md.quarantine-1f2e": b"---\nschema_version: 2\n---\n"}})
    assert run({"path": "/files/memory/a.md", "preserved": newer}, merged) is None
    assert run({"path": "/files/session.json", "preserved": {"version": 9}},
               FileContext({"files": {}}, {"files": {"session.json": b'{\n  "version": 9\n}'}})) is None
    failure = run({"path": "/files/memory/a.md", "preserved": "gone"}, merged)
    assert failure.check == "preserved" and failure.expected == "gone"


def test_file_checks_need_a_files_path():
    context = FileContext({"files": ORIGINAL}, {"files": dict(ORIGINAL)})
    failure = run({"path": "/session/version", "unchanged": True}, context)
    assert "does not name a file" in failure.message


def test_a_note_is_carried_on_failure():
    failure = run({"path": "/live/next_actions", "count": 0, "note": "why this matters"})
    assert failure.note == "why this matters"
    assert failure.to_json()["note"] == "why this matters"
