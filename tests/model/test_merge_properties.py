"""Invariants of the reference merge (spec 5.4), over generated replicas."""

from __future__ import annotations

import json
import os

from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.fuzz import strategies
from conformance.model.dates import sort_key
from conformance.model.identity import item_key
from conformance.model.merge import canonical, merge_session_texts, merge_sessions
from conformance.model.session import (
    KNOWN_LISTS,
    KNOWN_TOP_LEVEL,
    load_session_data,
    load_session_text,
    render,
    tombstone_index,
)

# 500 examples each (fewer where every example is a check) keeps the default suite quick;
# MEMOIR_CONFORM_EXAMPLES=5000 (or `memoir-conform fuzz --examples N`) searches deeper.
COUNT = int(os.environ.get("MEMOIR_CONFORM_EXAMPLES", "500"))
EXAMPLES = settings(max_examples=COUNT, deadline=None)
ROOMY_CAPS = {name: 1000 for name in ("goals", "next_actions", "parked_actions", "open_questions",
                                       "decisions", "completed_actions", "completed_goals", "history")}


def loaded(session: dict) -> dict:
    result = load_session_data(session)
    assert result.status == "ok"
    return result.session


def without_unknown(session: dict) -> dict:
    known = {key: session[key] for key in KNOWN_TOP_LEVEL if key in session}
    known["current"] = {key: session["current"][key] for key in KNOWN_LISTS}
    return known


def rendered_sets(session: dict) -> dict:
    return {name: sorted(texts) for name, texts in render(session).items()}


# The pairwise invariants share one generated pair each: generation is most
# of the cost, and every invariant still sees all 2,000 pairs.
@EXAMPLES
@given(strategies.sessions(), strategies.sessions())
def test_pairwise_merge_invariants(a, b):
    a, b = loaded(a), loaded(b)
    check_commutative(a, b)
    check_idempotent(a, b)
    check_no_silent_loss(a, b)
    check_unknown_keys_pass_through_local_winning(a, b)


def check_commutative(a, b):
    """merge(A, B) and merge(B, A) agree, unknown keys aside (5.4 convergence)."""
    ab, ba = merge_sessions(a, b), merge_sessions(b, a)
    assert canonical(without_unknown(ab)) == canonical(without_unknown(ba))
    assert rendered_sets(ab) == rendered_sets(ba)


def check_idempotent(a, b):
    """Merging a replica with itself is a no-op (5.4 convergence)."""
    merged = merge_sessions(a, b)
    again = merge_sessions(merged, merged)
    assert canonical(again) == canonical(merged)
    assert render(merge_sessions(merged, loaded({"version": 1}))) == render(merged)


def check_no_silent_loss(a, b):
    """Every identity of A and B is in the merge, live or suppressed by a tombstone (caps roomy)."""
    merged = merge_sessions(a, b, ROOMY_CAPS)["current"]
    done_actions = tombstone_index(merged["completed_actions"])
    done_goals = tombstone_index(merged["completed_goals"])
    for side in (a, b):
        current = side["current"]
        for item in current["next_actions"] + current["parked_actions"]:
            key = item_key(item)
            assert key in done_actions or key in {item_key(x) for x in merged["next_actions"] + merged["parked_actions"]}
        for item in current["goals"]:
            key = item_key(item)
            assert key in done_goals or key in {item_key(x) for x in merged["goals"]}
        for name in ("open_questions", "decisions", "completed_actions", "completed_goals"):
            assert {item_key(x) for x in current[name]} <= {item_key(x) for x in merged[name]}


def hidden_keys(session: dict) -> set[str]:
    return {item_key(d) for d in session["current"]["decisions"] if d.get("hidden") is True}


@EXAMPLES
@given(strategies.sessions(), strategies.sessions(), strategies.sessions())
def test_suppression_is_monotone_along_chains_of_stale_merges(a, b, stale):
    a, b, stale = loaded(a), loaded(b), loaded(stale)
    first = merge_sessions(a, b)
    assert hidden_keys(a) | hidden_keys(b) <= hidden_keys(first)
    second = merge_sessions(stale, first)
    assert hidden_keys(first) <= hidden_keys(second)
    assert not {item_key({"text": t}) for t in render(second)["decisions"]} & hidden_keys(first)
    done = tombstone_index(first["current"]["completed_actions"])
    for text in render(second)["next_actions"] + render(second)["parked_actions"]:
        key = item_key({"text": text})
        if key in done:
            action = next(x for x in second["current"]["next_actions"] + second["current"]["parked_actions"]
                          if item_key(x) == key)
            assert sort_key(action.get("added")) > sort_key(done[key].get("done_at"))


def check_unknown_keys_pass_through_local_winning(a, b):
    """Every unrecognised key under `current` and at top level survives, local winning (5.4)."""
    merged = merge_sessions(a, b)
    for container, known in ((lambda s: s, KNOWN_TOP_LEVEL), (lambda s: s["current"], KNOWN_LISTS)):
        for side in (a, b):
            assert {key for key in container(side) if key not in known} <= set(container(merged))
        for key, value in container(a).items():
            if key not in known:
                assert container(merged)[key] == value


# Every example is a check: a valid replica and a degraded one, on either side (drawn from
# replica_texts, more than half of the pairs had not exactly one of each).
@settings(EXAMPLES, max_examples=max(1, COUNT // 2))
@given(strategies.sessions(), strategies.degraded_replica_texts(), st.booleans())
def test_a_degraded_replica_contributes_nothing(session, degraded_text, degraded_is_local):
    assert load_session_text(degraded_text).status == "degraded"
    valid_text = json.dumps(session, indent=2)
    local, remote = (degraded_text, valid_text) if degraded_is_local else (valid_text, degraded_text)
    expected = render(merge_sessions(loaded(session), loaded({"version": 1})))
    assert render(merge_session_texts(local, remote)) == expected


@settings(EXAMPLES, max_examples=max(1, COUNT // 5))
@given(strategies.degraded_replica_texts(), strategies.degraded_replica_texts())
def test_two_degraded_replicas_merge_to_an_empty_session(local_text, remote_text):
    assert render(merge_session_texts(local_text, remote_text)) == render(loaded({"version": 1}))


@EXAMPLES
@given(strategies.json_values())
def test_loading_never_throws_on_arbitrary_json(value):
    result = load_session_text(json.dumps(value))
    assert result.status in ("ok", "degraded")
    render(result.session)
    merge_sessions(result.session, result.session)


@EXAMPLES
@given(st.text(max_size=200))
def test_loading_never_throws_on_arbitrary_text(text):
    result = load_session_text(text)
    assert result.status in ("ok", "degraded")
