"""Checks of session.json: the schema, then the meaning (spec 4, 5, 6)."""

from __future__ import annotations

import copy
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.model.identity import text_hash
from conformance.validator.memoir import rules
from conformance.validator.memoir.session import check_session

T = "2026-06-01T10:00:00.000Z"


def valid_session() -> dict:
    return {
        "version": 1, "created_at": T, "updated_at": T,
        "machines": {"m1": {"label": "laptop", "last_seen": T}},
        "current": {
            "goals": [{"text": "Ship v1", "machine_id": "m1", "set_on": T}],
            "next_actions": [{"text": "Add retry", "machine_id": "m1", "added": T}],
            "parked_actions": [{"text": "Old thing", "machine_id": "m1", "added": "2026-01-01", "parked_at": T}],
            "completed_actions": [{"text": "Done thing", "done_at": T}],
            "completed_goals": [],
            "open_questions": [{"text": "Why?", "machine_id": "m1", "asked": T}],
            "decisions": [
                {"text": "Use SQLite", "why": "w", "rejected": "r", "machine_id": "m1", "date": T},
                {"text": "[purged]", "text_hash": text_hash("secret client"), "hidden": True, "hidden_at": T,
                 "date": T},
            ],
        },
        "history": [{"date": T, "machine_id": "m1", "summary": "s", "files_touched": ["a"], "duration_min": 4,
                     "session_id": "s1"}],
    }


def check(session: dict | str):
    text = session if isinstance(session, str) else json.dumps(session, indent=2)
    return check_session("session.json", text)


def ids(found) -> list[str]:
    return [d.rule for d in found]


def test_valid_session_is_clean():
    assert check(valid_session()) == []


def test_not_json_reports_the_place():
    found = check('{\n  "version": 1,\n  oops\n}')
    assert ids(found) == [rules.SESSION_JSON.id]
    assert (found[0].line, found[0].column) == (3, 3)


@pytest.mark.parametrize("text", ["NaN", '{"version": Infinity}', "[" * 100000])
def test_json_oddities_are_not_json(text):
    assert ids(check(text)) == [rules.SESSION_JSON.id]


def test_newer_version_is_not_interpreted():
    session = valid_session()
    session["version"] = 2
    session["current"]["goals"] = "garbage"
    found = check(session)
    assert ids(found) == [rules.SESSION_VERSION_NEWER.id]
    assert found[0].line == 2


def edited(change) -> dict:
    session = valid_session()
    change(session)
    return session


def test_schema_errors_point_at_the_value():
    session = edited(lambda s: s["current"]["goals"][0].update(text=5))
    found = [d for d in check(session) if d.rule == rules.SESSION_SCHEMA.id]
    assert len(found) == 1
    assert "current.goals[0].text" in found[0].message
    text = json.dumps(session, indent=2)
    assert text.splitlines()[found[0].line - 1].strip().startswith('"text": 5')


# -- what a session must carry: version (6), and nothing else ------------------------------------


def test_only_a_missing_version_is_an_error():
    found = check({"current": valid_session()["current"]})
    assert [(d.rule, d.severity) for d in found] == [(rules.SESSION_SCHEMA.id, "error")]
    assert "'version' is missing" in found[0].message


@pytest.mark.parametrize("session", [
    {"version": 1},
    {"version": 1, "current": {}},
    {"version": 0, "current": {"goals": []}, "history": []},
    {"version": 1, "created_at": T, "current": {"goals": [], "next_actions": [], "decisions": []}},
], ids=["version-only", "empty-current", "version-0", "no-open-questions"])
def test_missing_optional_keys_are_no_finding(session):
    assert check(session) == []


def test_the_kits_legacy_mixed_store_session_has_no_error():
    from conformance.resources import vectors_dir

    text = (vectors_dir() / "stores" / "legacy-mixed" / "session.json").read_text(encoding="utf-8")
    assert [d for d in check(text) if d.severity == "error"] == []


@pytest.mark.parametrize("change", [
    lambda s: s.update(version="1"),
    lambda s: s.update(history={}),
    lambda s: s.update(machines=[]),
    lambda s: s["current"].update(goals="not a list"),
    lambda s: s["current"]["goals"][0].update(text=5),
    lambda s: s["history"][0].update(duration_min="5"),
], ids=["version-text", "history-object", "machines-list", "goals-text", "text-number", "duration-text"])
def test_a_key_of_the_wrong_json_type_is_still_an_error(change):
    assert rules.SESSION_SCHEMA.id in ids(check(edited(change)))


def test_the_runner_keeps_the_whole_session_schema():
    # The relaxation is the validator's own: the schema file (which the runner holds replicas to) is unchanged.
    from conformance.resources import load_schema

    assert load_schema("session.schema.json")["required"] == [
        "version", "created_at", "updated_at", "machines", "current", "history"]


MEANING = [
    (rules.SESSION_NO_TEXT, lambda s: s["current"]["goals"].append({"set_on": T})),
    (rules.SESSION_MISSING_DATE, lambda s: s["machines"]["m1"].pop("last_seen")),
    (rules.SESSION_MISSING_DATE, lambda s: s["history"][0].pop("date")),
    (rules.SESSION_MISSING_DATE, lambda s: s["current"]["completed_actions"][0].pop("done_at")),
    (rules.SESSION_DUPLICATE, lambda s: s["current"]["goals"].append({"text": "  ship V1 ", "set_on": T})),
    (rules.SESSION_DUPLICATE, lambda s: s["current"]["decisions"].append(
        {"text": "[purged]", "text_hash": text_hash("Secret Client"), "hidden": True, "hidden_at": T, "date": T})),
    (rules.SESSION_LIVE_AND_PARKED, lambda s: s["current"]["parked_actions"].append(
        {"text": "add retry", "added": T, "parked_at": T})),
    (rules.SESSION_SUPPRESSED, lambda s: s["current"]["next_actions"].append(
        {"text": "Done thing", "added": "2026-05-01T00:00:00Z"})),
    (rules.SESSION_SUPPRESSED, lambda s: s["current"].update(
        completed_goals=[{"text": "ship v1", "done_at": "2026-07-01"}])),
    (rules.SESSION_TEXT_HASH, lambda s: s["current"]["decisions"][1].update(text_hash="ABC")),
    (rules.SESSION_HASH_NOT_HIDDEN, lambda s: s["current"]["decisions"][0].update(text_hash=text_hash("x"))),
    (rules.SESSION_HIDDEN_AT, lambda s: s["current"]["decisions"][0].update(hidden=True)),
    (rules.SESSION_PURGED_TEXT, lambda s: s["current"]["decisions"][1].update(text="secret client")),
    (rules.SESSION_PURGED_TEXT, lambda s: s["current"]["decisions"][1].update(why="still here")),
    (rules.SESSION_MISSING_DATE, lambda s: s["current"]["open_questions"][0].pop("asked")),
    (rules.SESSION_DATE, lambda s: s["current"]["next_actions"][0].update(added="yesterday")),
    (rules.SESSION_DATE, lambda s: s.update(updated_at="2026-02-30T00:00:00Z")),
    (rules.SESSION_OVER_CAP, lambda s: s["current"].update(
        goals=[{"text": f"g{i}", "set_on": T} for i in range(4)])),
    (rules.SESSION_HISTORY_DUPLICATE, lambda s: s["history"].append({"date": T, "session_id": "s1"})),
]


@pytest.mark.parametrize("rule, change", MEANING, ids=[f"{rule.id}-{i}" for i, (rule, _) in enumerate(MEANING)])
def test_meaning_rules(rule, change):
    session = edited(change)
    found = check(session)
    assert [d.rule for d in found] == [rule.id], [(d.rule, d.message) for d in found]
    assert found[0].line > 0 and found[0].column > 0
    assert found[0].severity == rule.severity


def test_a_repeated_identity_is_a_warning():
    # 5.1 has no keyword, merges collapse the two, and what "case-folded" means is AMB-CASEFOLD.
    session = edited(lambda s: s["current"]["goals"].append({"text": "SHIP V1", "set_on": T}))
    assert [(d.rule, d.severity) for d in check(session)] == [(rules.SESSION_DUPLICATE.id, "warning")]
    assert rules.SESSION_DUPLICATE.former_ids == ("MEMOIR-E-SESSION-DUPLICATE",)


def test_purged_text_mentions_a_hash_mismatch():
    session = edited(lambda s: s["current"]["decisions"][1].update(text="another text"))
    assert "not the hash of this text" in check(session)[0].message


def test_re_added_action_after_completion_is_not_suppressed():
    session = edited(lambda s: s["current"]["next_actions"].append({"text": "done thing", "added": "2026-08-01"}))
    assert check(session) == []


def test_every_session_rule_has_a_case():
    covered = {rule.id for rule, _ in MEANING} | {rules.SESSION_JSON.id, rules.SESSION_SCHEMA.id,
                                                  rules.SESSION_VERSION_NEWER.id}
    assert covered == {rule.id for rule in rules.RULES if rule.id.startswith("MEMOIR-") and "-SESSION-" in rule.id}


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(
        st.sampled_from(["version", "current", "goals", "next_actions", "parked_actions", "decisions", "text",
                         "hidden", "text_hash", "added", "done_at", "completed_actions", "history", "session_id",
                         "machines", "x"]) | st.text(max_size=5), children, max_size=5),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(JSON_VALUES)
def test_arbitrary_json_gets_diagnostics_never_an_exception(value):
    for diagnostic in check(value):
        assert diagnostic.rule in {rule.id for rule in rules.RULES}


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["goals", "next_actions", "parked_actions", "decisions", "completed_actions"]), JSON_VALUES)
def test_arbitrary_items_in_a_valid_session(list_name, value):
    session = valid_session()
    session["current"][list_name] = [value, copy.deepcopy(value)] if not isinstance(value, list) else value
    check(session)
