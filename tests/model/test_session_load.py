"""Loading session.json: the migration ladder and the forward-version rule (spec 4, 6)."""

from __future__ import annotations

import json

import pytest

from conformance.model.session import KNOWN_VERSION, MIGRATIONS, load_session_text, render


def test_absent_file_is_an_empty_valid_state():
    loaded = load_session_text(None)
    assert loaded.status == "absent"
    assert render(loaded.session) == {name: [] for name in render(loaded.session)}


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("{not json", "unparseable"),
        ("[1, 2]", "malformed"),
        ('{"version": "1"}', "malformed"),
        ('{"version": true}', "malformed"),
        ('{"version": -1}', "malformed"),
        ('{"version": 2, "current": {"goals": [{"text": "from the future"}]}}', "newer-version"),
    ],
)
def test_what_cannot_be_read_degrades_to_an_empty_state(text, reason):
    loaded = load_session_text(text)
    assert (loaded.status, loaded.reason) == ("degraded", reason)
    assert all(not texts for texts in render(loaded.session).values())


def test_every_version_below_the_known_one_has_a_migration_step():
    assert set(MIGRATIONS) == set(range(KNOWN_VERSION))


def test_a_file_without_version_climbs_the_ladder_and_keeps_its_items():
    loaded = load_session_text(json.dumps({"current": {"goals": [{"text": "g", "set_on": "2026-01-01"}]}}))
    assert loaded.status == "ok"
    assert loaded.session["version"] == KNOWN_VERSION
    assert render(loaded.session)["goals"] == ["g"]


def test_migration_fills_defaults_and_keeps_unknown_keys():
    loaded = load_session_text(json.dumps({"version": 1, "x_new": {"a": 1}, "current": {"x_list": [1]}}))
    session = loaded.session
    assert session["x_new"] == {"a": 1}
    assert session["current"]["x_list"] == [1]
    assert session["current"]["completed_actions"] == [] and session["history"] == []


def test_items_without_identity_are_left_out():
    loaded = load_session_text(json.dumps({"version": 1, "current": {"goals": ["bare", {"set_on": "x"}, {"text": "ok"}]}}))
    assert render(loaded.session)["goals"] == ["ok"]


def test_render_hides_tombstoned_items():
    session = load_session_text(json.dumps({
        "version": 1,
        "current": {
            "decisions": [{"text": "Kept"}, {"text": "Gone", "hidden": True, "hidden_at": "2026-01-02"},
                          {"text": " gone "}],
            "next_actions": [{"text": "done", "added": "2026-01-01"}, {"text": "redo", "added": "2026-03-01"}],
            "completed_actions": [{"text": "DONE", "done_at": "2026-02-01"}, {"text": "redo", "done_at": "2026-02-01"}],
            "parked_actions": [{"text": "parked", "added": "2026-01-01", "parked_at": "2026-01-05"}],
            "goals": [{"text": "old goal", "set_on": "2026-01-01"}],
            "completed_goals": [{"text": "old goal", "done_at": "2026-01-02"}],
        },
    })).session
    view = render(session)
    assert view["decisions"] == ["Kept"]
    assert view["next_actions"] == ["redo"]
    assert view["parked_actions"] == ["parked"]
    assert view["goals"] == []
