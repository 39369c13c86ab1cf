"""The generators: valid where they should be, colliding where they should collide."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.fuzz import strategies
from conformance.model.identity import item_key, text_hash
from conformance.model.session import DEFAULT_CAPS, load_session_data, load_session_text

QUICK = settings(max_examples=60, deadline=None, database=None)


def keys(items) -> set[str]:
    return {item_key(item) for item in items}


@QUICK
@given(strategies.colliding_sessions())
def test_colliding_sessions_are_valid_version_1_sessions(pair):
    for session in pair:
        assert load_session_data(json.loads(json.dumps(session))).status == "ok"


@QUICK
@given(strategies.one_side_degraded())
def test_one_side_degraded_has_exactly_one_side_that_contributes_nothing(pair):
    assert sorted(load_session_text(text).status for text in pair) == ["degraded", "ok"]


def current(**lists) -> dict:
    return {name: [] for name in strategies.CURRENT_LISTS} | lists


def test_place_pair_puts_the_echo_in_the_other_replica():
    decision = {"text": "use sqlite", "machine_id": "m-ci", "date": "2026-01-01"}
    first, second = {}, {}
    strategies.place_pair(first, second, "decisions", (decision, "purged", 1, "2026-03-15T12:00:00", "2026-06-01T08:30:00Z"),
                          "m-laptop")
    assert first == {"decisions": [decision]}
    [echo] = second["decisions"]
    assert echo["hidden"] is True and echo["text"] == "[purged]" and echo["text_hash"] == text_hash("use sqlite")

    first, second = {}, {}
    tombstone = {"text": "fix it", "done_at": "2026-06-01T08:30:00Z"}
    strategies.place_pair(first, second, "completed_actions", (tombstone, "readd at done_at", 3, None, "2026-01-01"),
                          "m-ci")
    assert second["next_actions"] == [{"text": " fix it", "machine_id": "m-ci", "added": "2026-06-01T08:30:00Z"}]

    first, second = {}, {}
    strategies.place_pair(first, second, "goals", ({"text": "ship", "set_on": "2026-01-01"}, "none", 0, None, "x"), "m")
    assert second == {}


def test_fillers_overflow_the_caps():
    for name in ("goals", "next_actions", "decisions", "completed_actions", "history"):
        counts = strategies.crowd_counts(name, DEFAULT_CAPS)
        cap = DEFAULT_CAPS["next_actions" if name == "next_actions" else name]
        assert counts[0] == cap + 1
    items = strategies.filler_items("parked_actions", 5, 2, "m-ci")
    assert len(keys(items)) == 5
    assert len({item["added"] for item in items}) == 5 and all("parked_at" in item for item in items)


@QUICK
@given(st.data())
def test_stale_replicas_undo_every_tombstone_they_saw(data):
    a, b = data.draw(strategies.colliding_sessions())
    stale = data.draw(strategies.stale_replicas([a, b]))
    assert stale["current"]["completed_actions"] == [] and stale["current"]["completed_goals"] == []
    held = {item_key(d) for d in stale["current"]["decisions"] if d.get("hidden") is not True}
    for replica in (a, b):
        # Every hidden or purged decision (the alphabet's texts: all can be un-purged) is held un-hidden.
        assert {item_key(d) for d in replica["current"].get("decisions", []) if d.get("hidden") is True} <= held
        done = keys(replica["current"].get("completed_actions", []))
        assert done <= keys(stale["current"]["next_actions"])


@QUICK
@given(strategies.initial_session_texts())
def test_initial_stores_are_absent_valid_or_unparseable(text):
    status = load_session_text(text).status
    assert status in ("absent", "ok", "degraded")
    if status == "degraded":
        assert load_session_text(text).reason == "unparseable"
