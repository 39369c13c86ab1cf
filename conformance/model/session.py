"""The session state file: loading, migration, rendering (spec 4, 6).

`load_session_text` is the one way in: it never throws. Unparseable JSON,
a document that is not a session, or a version newer than `KNOWN_VERSION`
all give status "degraded" and an empty valid state (quarantining the
original bytes is the caller's job: see `store.py`). Older versions climb
the migration ladder one pure step at a time.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Callable, Literal

from conformance.model import dates
from conformance.model.identity import item_key

KNOWN_VERSION = 1

DEFAULT_CAPS = {
    "goals": 3,
    "next_actions": 8,
    "parked_actions": 20,
    "open_questions": 5,
    "decisions": 10,
    "completed_actions": 50,
    "completed_goals": 50,
    "history": 30,
}

# The date field of each list under `current`: the merge recency key (spec 5.2).
DATE_FIELD = {
    "goals": "set_on",
    "next_actions": "added",
    "parked_actions": "added",
    "open_questions": "asked",
    "decisions": "date",
    "completed_actions": "done_at",
    "completed_goals": "done_at",
}
KNOWN_LISTS = tuple(DATE_FIELD)
KNOWN_TOP_LEVEL = ("version", "created_at", "updated_at", "machines", "current", "history")
RENDERED_LISTS = ("goals", "next_actions", "parked_actions", "open_questions", "decisions")

Status = Literal["ok", "absent", "degraded"]


@dataclass(frozen=True)
class LoadedSession:
    status: Status
    session: dict
    reason: str | None = None  # why it degraded: "unparseable", "malformed", "newer-version"


def empty_session() -> dict:
    return {"version": KNOWN_VERSION, "machines": {}, "current": {name: [] for name in KNOWN_LISTS}, "history": []}


def load_session_text(text: str | None) -> LoadedSession:
    if text is None:
        return LoadedSession("absent", empty_session())
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return LoadedSession("degraded", empty_session(), "unparseable")
    return load_session_data(data)


def load_session_data(data: object) -> LoadedSession:
    if not isinstance(data, dict):
        return LoadedSession("degraded", empty_session(), "malformed")
    version = data.get("version", 0)
    if isinstance(version, bool) or not isinstance(version, int) or version < 0:
        return LoadedSession("degraded", empty_session(), "malformed")
    if version > KNOWN_VERSION:
        return LoadedSession("degraded", empty_session(), "newer-version")
    return LoadedSession("ok", migrate(data, version))


def _v0_to_v1(data: dict) -> dict:
    """Version 0: files written before `version` existed. Same shape, no version."""
    return {**data, "version": 1}


# The ladder: MIGRATIONS[n] takes version n to n + 1 (spec 6, "Backward").
MIGRATIONS: dict[int, Callable[[dict], dict]] = {0: _v0_to_v1}


def migrate(data: dict, version: int) -> dict:
    while version < KNOWN_VERSION:
        data = MIGRATIONS[version](data)
        version += 1
    return sanitize(data)


def sanitize(data: dict) -> dict:
    """Fill defaults and drop what cannot be an item, so that every later
    step sees the shape spec 4.1 describes. Unknown keys are kept."""
    session = dict(data)
    current = session.get("current")
    current = dict(current) if isinstance(current, dict) else {}
    for name in KNOWN_LISTS:
        current[name] = _items(current.get(name))
    session["current"] = current
    machines = session.get("machines")
    session["machines"] = {
        str(uuid): dict(entry) for uuid, entry in (machines.items() if isinstance(machines, dict) else ())
        if isinstance(entry, dict)
    }
    history = session.get("history")
    session["history"] = [dict(row) for row in history if isinstance(row, dict)] if isinstance(history, list) else []
    for stamp in ("created_at", "updated_at"):
        if stamp in session and not isinstance(session[stamp], str):
            del session[stamp]
    return session


def _items(value: object) -> list[dict]:
    """Items with an identity; anything else cannot take part in a merge (AMB-MALFORMED-ITEMS)."""
    if not isinstance(value, list):
        return []
    return [dict(item) for item in value if isinstance(item, dict) and item_key(item) is not None]


def is_suppressed(item: dict, tombstones: dict[str, dict], date_field: str) -> bool:
    """A temporal tombstone suppresses every copy not added after it (spec 5.3.2)."""
    tombstone = tombstones.get(item_key(item))
    if tombstone is None:
        return False
    return dates.sort_key(item.get(date_field)) <= dates.sort_key(tombstone.get("done_at"))


def tombstone_index(tombstones: list[dict]) -> dict[str, dict]:
    """Identity -> the newest tombstone of that identity."""
    index: dict[str, dict] = {}
    for tombstone in tombstones:
        key = item_key(tombstone)
        held = index.get(key)
        if held is None or dates.sort_key(tombstone.get("done_at")) > dates.sort_key(held.get("done_at")):
            index[key] = tombstone
    return index


def render(session: dict) -> dict[str, list[str]]:
    """The live view a reader presents (spec 4.1, 5.3, 8): no hidden decision,
    no completed action or goal; parked actions are open and rendered."""
    current = session.get("current", {})
    done_actions = tombstone_index(current.get("completed_actions", []))
    done_goals = tombstone_index(current.get("completed_goals", []))
    # A tombstone suppresses every copy of its identity, a purged one by hash (5.3.1).
    hidden = {item_key(d) for d in current.get("decisions", []) if d.get("hidden") is True}
    view = {
        "goals": [g for g in current.get("goals", []) if not is_suppressed(g, done_goals, "set_on")],
        "next_actions": [a for a in current.get("next_actions", []) if not is_suppressed(a, done_actions, "added")],
        "parked_actions": [a for a in current.get("parked_actions", []) if not is_suppressed(a, done_actions, "added")],
        "open_questions": list(current.get("open_questions", [])),
        "decisions": [d for d in current.get("decisions", []) if item_key(d) not in hidden],
    }
    return {name: [item["text"] for item in items if isinstance(item.get("text"), str)] for name, items in view.items()}
