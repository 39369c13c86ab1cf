"""Writer operations on a session (spec 4.1, 5.3, 8 "memoir Writer").

Each operation takes a loaded session and returns `(new_session, log)`,
where `log` lists what a user should be told (for example that a parked
action was dropped: the only drop the spec allows, and one it says to log).
Operations are pure: the caller passes `now` and the machine identity, and
`store.py` runs them inside the locked read-mutate-write cycle.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

from conformance.model import dates
from conformance.model.identity import PURGED_TEXT, item_key, text_hash
from conformance.model.session import DEFAULT_CAPS


class WriterError(Exception):
    """The operation cannot be applied to this input (protocol kind `invalid_input`)."""


@dataclass(frozen=True)
class Stamp:
    """Who writes, and when: the identity and date fields a writer stamps (spec 8)."""

    now: str
    machine_id: str
    machine_label: str | None = None


def _identity(text: object) -> str:
    if not isinstance(text, str) or not text.strip():
        raise WriterError("text must be a non-empty string")
    return text_hash(text)


def _begin(session: dict, stamp: Stamp) -> dict:
    """A deep copy with the session-level stamps: updated_at, created_at, machines."""
    session = copy.deepcopy(session)
    session["updated_at"] = stamp.now
    session.setdefault("created_at", stamp.now)
    machine = dict(session["machines"].get(stamp.machine_id, {}))
    machine["last_seen"] = stamp.now
    machine.setdefault("label", stamp.machine_label or stamp.machine_id)
    session["machines"][stamp.machine_id] = machine
    return session


def _without(items: list[dict], key: str) -> tuple[list[dict], list[dict]]:
    kept = [item for item in items if item_key(item) != key]
    removed = [item for item in items if item_key(item) == key]
    return kept, removed


def _rotate_oldest(items: list[dict], field: str, cap: int) -> tuple[list[dict], list[dict]]:
    """Split off the oldest items (by `field`) beyond `cap`."""
    ordered = sorted(items, key=lambda item: (dates.sort_key(item.get(field)), item_key(item)))
    excess = max(0, len(ordered) - cap)
    evicted = ordered[:excess]
    kept = [item for item in items if not any(item is gone for gone in evicted)]
    return kept, evicted


def _record_tombstone(tombstones: list[dict], text: str, now: str, cap: int) -> list[dict]:
    kept, _ = _without(tombstones, text_hash(text))
    kept.append({"text": text, "done_at": now})
    return _rotate_oldest(kept, "done_at", cap)[0]


def add_next_action(session: dict, *, text: str, stamp: Stamp, caps: dict = DEFAULT_CAPS) -> tuple[dict, list[str]]:
    key = _identity(text)
    session = _begin(session, stamp)
    current = session["current"]
    log: list[str] = []
    if any(item_key(a) == key for a in current["next_actions"]):
        return session, [f"already a next action: {text!r}"]
    current["parked_actions"], parked = _without(current["parked_actions"], key)
    if parked:
        # Back to live with a fresh `added`, so that it stays live (AMB-READD-PARKED).
        action = {k: v for k, v in parked[0].items() if k != "parked_at"} | {"added": stamp.now}
        log.append(f"returned parked action to live: {text!r}")
    else:
        action = {"text": text, "machine_id": stamp.machine_id, "added": stamp.now}
    current["next_actions"].append(action)
    current["next_actions"], overflow = _rotate_oldest(current["next_actions"], "added", caps["next_actions"])
    # Rotation out of next_actions goes to parked_actions, never to nowhere (4.1, v0.1.2).
    current["parked_actions"].extend({**a, "parked_at": stamp.now} for a in overflow)
    current["parked_actions"], dropped = _rotate_oldest(current["parked_actions"], "added", caps["parked_actions"])
    log.extend(f"parked list full, dropped: {a['text']!r}" for a in dropped)
    return session, log


def _complete(session: dict, text: str, stamp: Stamp, open_lists: tuple[str, ...], tombstones: str, cap: int,
              date_field: str):
    """Remove the identity from its open lists AND record the temporal tombstone
    (5.3.2): removal alone would be undone by the next merge with a stale replica.
    `done_at` is now, or the date of a completed copy dated after the clock, so
    that the tombstone suppresses the very copy it completes (AMB-FUTURE-DATED)."""
    key = _identity(text)
    session = _begin(session, stamp)
    current = session["current"]
    found: list[dict] = []
    for name in open_lists:
        current[name], removed = _without(current[name], key)
        found.extend(removed)
    # An undated or unparseable copy sorts as the epoch (5.2), so now wins over it.
    done_at = max([stamp.now, *(item.get(date_field) for item in found)], key=dates.sort_key)
    current[tombstones] = _record_tombstone(current[tombstones], found[0]["text"] if found else text, done_at, cap)
    return session, [] if found else [f"not open here, tombstone recorded anyway: {text!r}"]


def complete_next_action(session: dict, *, text: str, stamp: Stamp, caps: dict = DEFAULT_CAPS):
    """A live or parked action alike (4.1: a parked action MUST be completable)."""
    return _complete(session, text, stamp, ("next_actions", "parked_actions"), "completed_actions",
                     caps["completed_actions"], "added")


def add_goal(session: dict, *, text: str, stamp: Stamp, caps: dict = DEFAULT_CAPS):
    key = _identity(text)
    session = _begin(session, stamp)
    goals = session["current"]["goals"]
    if any(item_key(g) == key for g in goals):
        return session, [f"already a goal: {text!r}"]
    goals.append({"text": text, "machine_id": stamp.machine_id, "set_on": stamp.now})
    session["current"]["goals"], dropped = _rotate_oldest(goals, "set_on", caps["goals"])
    return session, [f"goal cap reached, rotated out: {g['text']!r}" for g in dropped]


def complete_goal(session: dict, *, text: str, stamp: Stamp, caps: dict = DEFAULT_CAPS):
    """Records a completed_goals tombstone (5.3.2, v0.1.2)."""
    return _complete(session, text, stamp, ("goals",), "completed_goals", caps["completed_goals"], "set_on")


def add_question(session: dict, *, text: str, stamp: Stamp, caps: dict = DEFAULT_CAPS):
    key = _identity(text)
    session = _begin(session, stamp)
    questions = session["current"]["open_questions"]
    if any(item_key(q) == key for q in questions):
        return session, [f"already an open question: {text!r}"]
    questions.append({"text": text, "machine_id": stamp.machine_id, "asked": stamp.now})
    session["current"]["open_questions"], dropped = _rotate_oldest(questions, "asked", caps["open_questions"])
    return session, [f"question cap reached, rotated out: {q['text']!r}" for q in dropped]


def add_decision(
    session: dict, *, text: str, stamp: Stamp, why: str | None = None, rejected: str | None = None,
    caps: dict = DEFAULT_CAPS,
):
    key = _identity(text)
    session = _begin(session, stamp)
    decisions, existing = _without(session["current"]["decisions"], key)
    if any(d.get("hidden") is True for d in existing):
        # An absolute tombstone suppresses the identity for good (5.3.1).
        session["current"]["decisions"] = decisions + existing
        return session, [f"decision is hidden and stays hidden: {text!r}"]
    decision = {**(existing[0] if existing else {}), "text": text, "machine_id": stamp.machine_id, "date": stamp.now}
    for field, value in (("why", why), ("rejected", rejected)):
        if value is not None:
            decision[field] = value
    decisions.append(decision)
    hidden = [d for d in decisions if d.get("hidden") is True]
    visible, dropped = _rotate_oldest([d for d in decisions if d.get("hidden") is not True], "date", caps["decisions"])
    session["current"]["decisions"] = hidden + visible
    return session, [f"decision cap reached, rotated out: {d['text']!r}" for d in dropped]


def hide_decision(session: dict, *, text: str, stamp: Stamp, purge: bool = False, caps: dict = DEFAULT_CAPS):
    """Absolute tombstone (5.3.1); with `purge` the text itself leaves the file."""
    key = _identity(text)
    decisions, found = _without(session["current"]["decisions"], key)
    if not found:
        raise WriterError(f"no decision with this text to hide: {text!r}")  # AMB-HIDE-MISSING
    session = _begin(session, stamp)
    earlier = [d for d in found if d.get("hidden") is True and "hidden_at" in d]
    tombstone = max(found, key=lambda d: (d.get("hidden") is True, dates.sort_key(d.get("date"))))
    tombstone = {**tombstone, "hidden": True, "hidden_at": earlier[0]["hidden_at"] if earlier else stamp.now}
    if purge:
        tombstone = {k: v for k, v in tombstone.items() if k not in ("why", "rejected")}
        tombstone.update(text=PURGED_TEXT, text_hash=key)
    session["current"]["decisions"] = decisions + [tombstone]
    return session, []


def record_session(
    session: dict, *, summary: str, stamp: Stamp, session_id: str | None = None,
    files_touched: list[str] | None = None, duration_min: int | None = None, caps: dict = DEFAULT_CAPS,
):
    """A history row; the same session_id updates its row in place (4.1, v0.1.2)."""
    if not isinstance(summary, str) or not summary.strip():
        raise WriterError("summary must be a non-empty string")
    session = _begin(session, stamp)
    row = {"date": stamp.now, "machine_id": stamp.machine_id, "summary": summary}
    if files_touched is not None:
        row["files_touched"] = files_touched
    if duration_min is not None:
        row["duration_min"] = duration_min
    history = session["history"]
    if session_id is not None:
        row["session_id"] = session_id
        history = [r for r in history if r.get("session_id") != session_id]
    rows = [row] + [r for r in history if (r.get("date"), r.get("machine_id"), r.get("summary")) != (
        row["date"], row["machine_id"], row["summary"])]
    # Newest first by date, whatever order the file kept them in, so that the
    # cap rotates the oldest out (4.1); the sort is stable for equal dates.
    rows.sort(key=lambda r: dates.sort_key(r.get("date") if isinstance(r, dict) else None), reverse=True)
    session["history"] = rows[: caps["history"]]
    return session, []


SESSION_OPS = {
    "add_goal": add_goal,
    "complete_goal": complete_goal,
    "add_next_action": add_next_action,
    "complete_next_action": complete_next_action,
    "add_question": add_question,
    "add_decision": add_decision,
    "hide_decision": hide_decision,
    "record_session": record_session,
}
