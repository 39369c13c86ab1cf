"""The merge property checks on hand-made replicas, with merges that keep or break one rule."""

from __future__ import annotations

import json

from conformance.fuzz import merge_properties as mp
from conformance.fuzz.subject import CallProblem
from conformance.model.merge import merge_session_texts
from conformance.model.session import DEFAULT_CAPS


class FakeSubject:
    """A subject whose merge is a Python function of the two replica texts."""

    def __init__(self, merge):
        self.caps = dict(DEFAULT_CAPS)
        self._merge = merge

    def merge(self, local: str, remote: str):
        return self._merge(local, remote)


def reference_merge(local: str, remote: str) -> dict:
    return merge_session_texts(local, remote, DEFAULT_CAPS)


REFERENCE = FakeSubject(reference_merge)


def replica(current: dict | None = None, **top) -> str:
    return json.dumps({"version": 1, "current": current or {}, **top})


def example(local: dict | None = None, remote: dict | None = None, local_top=None, remote_top=None, stale=()):
    return mp.MergeExample(replica(local, **(local_top or {})), replica(remote, **(remote_top or {})), tuple(stale))


def test_no_silent_loss_flags_a_dropped_identity():
    dropping = FakeSubject(lambda local, remote: reference_merge(local, replica()))
    found = mp.check_no_silent_loss(dropping, example(remote={"goals": [{"text": "Ship v1", "set_on": "2026-01-01"}]}))
    assert found is not None
    assert found.requirement == "S5.4-no-silent-loss"
    assert found.expected == {"goals": ["ship v1"]}
    assert mp.check_no_silent_loss(REFERENCE, example(remote={"goals": [{"text": "Ship v1"}]})) is None


def test_cap_rotation_and_tombstones_are_not_loss():
    goals = [{"text": f"goal {n}", "set_on": f"2026-01-0{n}"} for n in range(1, 5)]   # one over the cap of 3
    done = {"next_actions": [{"text": "fix it", "added": "2026-01-01"}],
            "completed_actions": [{"text": "FIX IT", "done_at": "2026-02-01"}]}
    assert mp.check_no_silent_loss(REFERENCE, example(local={"goals": goals})) is None
    assert mp.check_no_silent_loss(REFERENCE, example(local=done)) is None


def test_convergence_flags_a_merge_that_prefers_local_on_ties():
    def local_first(local, remote):
        merged = reference_merge(local, remote)
        merged["current"]["goals"] = json.loads(local)["current"]["goals"]
        return merged

    pair = example(local={"goals": [{"text": "ship v1", "set_on": "2026-01-01"}]},
                   remote={"goals": [{"text": "SHIP V1", "set_on": "2026-01-01"}]})
    found = mp.check_convergence(FakeSubject(local_first), pair)
    assert found is not None and found.requirement == "S5.4-convergence-commutative"
    assert "ship v1" in found.diff() and "SHIP V1" in found.diff()
    assert mp.check_convergence(REFERENCE, pair) is None


def test_idempotence_flags_a_merge_that_adds_to_itself():
    def growing(local, remote):
        merged = reference_merge(local, remote)
        merged["current"]["open_questions"].append({"text": f"q{len(merged['current']['open_questions'])}"})
        return merged

    found = mp.check_idempotence(FakeSubject(growing), example())
    assert found is not None and found.requirement == "S5.4-idempotent"
    assert mp.check_idempotence(REFERENCE, example(local={"open_questions": [{"text": "why?"}]})) is None


def test_monotone_suppression_flags_a_resurrected_decision():
    def unsticky(local, remote):
        merged = reference_merge(local, remote)
        for decision in merged["current"]["decisions"]:
            if json.loads(local)["current"].get("decisions") and "text_hash" not in decision:
                decision.pop("hidden", None)
        return merged

    hidden = {"decisions": [{"text": "use sqlite", "date": "2026-01-01", "hidden": True, "hidden_at": "2026-02-01"}]}
    stale = replica({"decisions": [{"text": "Use SQLite", "date": "2026-09-01"}]})
    chain = example(remote=hidden, stale=[stale])
    found = mp.check_monotone_suppression(FakeSubject(unsticky), chain)
    assert found is not None and found.requirement == "S5.4-monotone-suppression"
    assert "use sqlite" in found.message
    assert mp.check_monotone_suppression(REFERENCE, chain) is None


def test_monotone_suppression_flags_a_resurrected_action():
    def forgetting(local, remote):
        merged = reference_merge(local, remote)
        if "stale" in local:
            merged["current"]["completed_actions"] = []
            merged["current"]["next_actions"] = json.loads(local)["current"]["next_actions"]
        return merged

    done = {"completed_actions": [{"text": "fix it", "done_at": "2026-02-01"}]}
    stale = replica({"next_actions": [{"text": "Fix it", "added": "2026-01-01", "machine_id": "stale"}]})
    found = mp.check_monotone_suppression(FakeSubject(forgetting), example(local=done, stale=[stale]))
    assert found is not None and "fix it" in found.message


def test_unknown_keys_pass_through_local_winning():
    pair = example(local={"x_new": 1}, remote={"x_new": 2, "x_other": 3}, local_top={"x_top": "mine"},
                   remote_top={"x_top": "theirs"})

    def remote_wins(local, remote):
        merged = reference_merge(local, remote)
        merged["x_top"] = "theirs"
        return merged

    def dropping(local, remote):
        merged = reference_merge(local, remote)
        del merged["current"]["x_other"]
        return merged

    assert mp.check_unknown_keys(REFERENCE, pair) is None
    assert mp.check_unknown_keys(FakeSubject(remote_wins), pair).requirement == "S5.4-unknown-keys-local-wins"
    assert mp.check_unknown_keys(FakeSubject(dropping), pair).requirement == "S5.4-unknown-current-keys-pass-through"


def test_degraded_replica_must_contribute_nothing():
    newer = json.dumps({"version": 2, "current": {"goals": [{"text": "from the future"}]}})
    pair = mp.MergeExample(replica({"goals": [{"text": "mine"}]}), newer)

    def interpreting(local, remote):
        return reference_merge(local, remote.replace('"version": 2', '"version": 1'))

    found = mp.check_degraded_replicas(FakeSubject(interpreting), pair)
    assert found is not None and found.requirement == "S6-degraded-contributes-nothing"
    assert mp.check_degraded_replicas(REFERENCE, pair) is None


def test_differential_names_the_rule_that_differs():
    pair = example(local_top={"created_at": "2026-01-01T00:00:00Z"}, remote_top={"created_at": "2026-06-01T00:00:00Z"})

    def later(local, remote):
        merged = reference_merge(local, remote)
        merged["created_at"] = "2026-06-01T00:00:00Z"
        return merged

    found = mp.check_differential(FakeSubject(later), pair)
    assert found is not None and found.requirement == "S5.2-created-at-earlier"
    assert found.case.focus == ("created_at",)
    assert mp.check_differential(REFERENCE, pair) is None


def test_an_error_answer_is_a_counterexample():
    refusing = FakeSubject(lambda local, remote: CallProblem("merge_sessions", "internal", "boom"))
    found = mp.check_no_silent_loss(refusing, example())
    assert found is not None and "boom" in found.message
