"""Checks of a session file (spec 4, 5, 6).

First the shape: well-formed JSON, then schema/session.schema.json through
jsonschema. Then the meaning, which no schema can say: identities (5.1)
repeated in one list, an action both live and parked, a live item its own
tombstone suppresses (5.3.2), the purged form of a decision tombstone
(5.3.1), dates that are missing or name no real day, lists beyond the
reference caps, and a version newer than this kit knows (6), after which
nothing is interpreted.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache

from conformance.model import dates
from conformance.model.identity import PURGED_TEXT, item_key, text_hash
from conformance.validator.memoir import rules
from conformance.validator.core.findings import Diagnostic, diagnostic
from conformance.validator.memoir.jsonpos import JsonPlaces, pointer

KNOWN_VERSION = 1
# The date field of each list (5.2) and the reference implementation's caps (4.1).
DATE_FIELD = {
    "goals": "set_on", "next_actions": "added", "parked_actions": "added", "open_questions": "asked",
    "decisions": "date", "completed_actions": "done_at", "completed_goals": "done_at",
}
REFERENCE_CAPS = {
    "goals": 3, "next_actions": 8, "parked_actions": 20, "open_questions": 5, "decisions": 10,
    "completed_actions": 50, "completed_goals": 50, "history": 30,
}
_OTHER_DATE_FIELDS = ("hidden_at", "parked_at", "done_at")
_HASH = re.compile(r"[0-9a-f]{64}")


MAX_DEPTH = 64  # a session nests 5 levels; past this nothing is a session


def _deeper_than(data: object, limit: int) -> bool:
    """Whether JSON data nests deeper than `limit` (iteratively: no recursion)."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(value, dict):
            stack.extend((item, depth + 1) for item in value.values())
        elif isinstance(value, list):
            stack.extend((item, depth + 1) for item in value)
    return False


def _reject_constant(name: str) -> object:
    raise ValueError(f"{name} is not JSON")


@lru_cache(maxsize=1)
def _session_validator():
    from jsonschema import Draft202012Validator

    from conformance.resources import load_schema

    schema = load_schema("session.schema.json")
    return Draft202012Validator(schema), schema["$defs"]["date"]["pattern"]


def check_session(display: str, text: str) -> list[Diagnostic]:
    """Every finding about one session file."""
    try:
        data = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as error:
        return [diagnostic(
            rules.SESSION_JSON, display,
            f"not JSON ({error.msg}), so readers set the file aside and start from an empty session; correct the "
            "JSON", error.lineno, error.colno)]
    except (ValueError, RecursionError) as error:
        return [diagnostic(
            rules.SESSION_JSON, display,
            f"not JSON ({str(error) or 'nested too deeply'}), so readers set the file aside and start from an empty "
            "session; correct the JSON")]
    if _deeper_than(data, MAX_DEPTH):
        return [diagnostic(
            rules.SESSION_SCHEMA, display,
            f"values nested more than {MAX_DEPTH} levels deep, which no session has, so readers set the file aside; "
            "it was not checked further",
            1, 1)]
    found: list[Diagnostic] = []

    places = JsonPlaces(text)
    at = places.locate

    if isinstance(data, dict):
        version = data.get("version")
        if isinstance(version, int) and not isinstance(version, bool) and version > KNOWN_VERSION:
            return [diagnostic(
                rules.SESSION_VERSION_NEWER, display,
                f"version {version} is newer than {KNOWN_VERSION}: readers set the file aside unread, start from an "
                "empty session and merge nothing from it (spec 6), and it was not checked further; read it with a "
                "tool that knows that version", *at(("version",)))]

    validator, date_pattern = _session_validator()
    bad_dates: set[tuple] = set()
    for error in sorted(validator.iter_errors(data), key=lambda e: [str(part) for part in e.absolute_path]):
        path = tuple(error.absolute_path)
        if error.validator == "pattern" and error.validator_value == date_pattern:
            bad_dates.add(path)
            found.append(diagnostic(
                rules.SESSION_DATE, display,
                f"{pointer(path)} {_show(error.instance)} is not an ISO 8601 date or date-time, so merges compare "
                "it as the oldest date of all; write YYYY-MM-DD or YYYY-MM-DDThh:mm:ssZ", *at(path)))
            continue
        found.append(diagnostic(rules.SESSION_SCHEMA, display, f"{pointer(path)}: {_schema_message(error)}", *at(path)))
    if not isinstance(data, dict):
        return found

    for key in ("created_at", "updated_at"):
        found.extend(_calendar(display, data, (key,), bad_dates, at))
    machines = data.get("machines")
    if isinstance(machines, dict):
        for machine_id, machine in machines.items():
            found.extend(_calendar(display, machine, ("machines", machine_id, "last_seen"), bad_dates, at))
    current = data.get("current")
    if isinstance(current, dict):
        found.extend(_check_current(display, current, bad_dates, at))
    history = data.get("history")
    if isinstance(history, list):
        found.extend(_check_history(display, history, bad_dates, at))
    return found


def _calendar(display: str, container: object, path: tuple, bad_dates: set, at) -> list[Diagnostic]:
    """A date that has the ISO 8601 shape but names no real day or time."""
    value = container.get(path[-1]) if isinstance(container, dict) else None
    if isinstance(value, str) and path not in bad_dates and dates.parse_date(value) is None:
        return [diagnostic(
            rules.SESSION_DATE, display,
            f"{pointer(path)} {value!r} has the shape of a date but names no real day or time, so merges compare it "
            "as the oldest date of all; correct it", *at(path))]
    return []


def _items(current: dict, name: str) -> list[tuple[int, dict]]:
    value = current.get(name)
    if not isinstance(value, list):
        return []
    return [(index, item) for index, item in enumerate(value) if isinstance(item, dict)]


def _label(item: dict) -> str:
    text = item.get("text")
    if item.get("hidden") is True and isinstance(item.get("text_hash"), str):
        return f"purged {item['text_hash'][:12]}…"
    return _show(text)


def _check_current(display: str, current: dict, bad_dates: set, at) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    keys: dict[str, dict[str, int]] = {}
    for name, date_field in DATE_FIELD.items():
        seen: dict[str, int] = {}
        for index, item in _items(current, name):
            path = ("current", name, index)
            key = item_key(item)
            if key is not None:
                if key in seen:
                    found.append(diagnostic(
                        rules.SESSION_DUPLICATE, display,
                        f"{pointer(path)} {_label(item)} has the identity (trimmed, case-folded text) of "
                        f"{pointer(('current', name, seen[key]))}, so readers and merges keep only one; remove one",
                        *at(path)))
                else:
                    seen[key] = index
            if date_field not in item:
                found.append(diagnostic(
                    rules.SESSION_MISSING_DATE, display,
                    f"{pointer(path)} {_label(item)} has no {date_field}, so it compares as the oldest and loses every "
                    f"newest-wins merge; add {date_field}", *at(path)))
            else:
                found.extend(_calendar(display, item, path + (date_field,), bad_dates, at))
            for other in _OTHER_DATE_FIELDS:
                if other != date_field and other in item:
                    found.extend(_calendar(display, item, path + (other,), bad_dates, at))
            if name == "decisions":
                found.extend(_check_decision(display, item, path, at))
        keys[name] = seen
        cap = REFERENCE_CAPS.get(name)
        length = len(current[name]) if isinstance(current.get(name), list) else 0
        if cap is not None and length > cap:
            found.append(diagnostic(
                rules.SESSION_OVER_CAP, display,
                f"current.{name} holds {length} items, more than the reference implementation's cap of {cap}: "
                "it rotates the oldest out on its next write; prune the list if the oldest matter",
                *at(("current", name))))

    for index, item in _items(current, "parked_actions"):
        key = item_key(item)
        if key is not None and key in keys.get("next_actions", {}):
            live = keys["next_actions"][key]
            found.append(diagnostic(
                rules.SESSION_LIVE_AND_PARKED, display,
                f"current.parked_actions[{index}] {_label(item)} is also live as current.next_actions[{live}]: "
                "an action is live or parked, not both; remove one", *at(("current", "parked_actions", index))))

    for live_list, tombstone_list in (("next_actions", "completed_actions"), ("parked_actions", "completed_actions"),
                                      ("goals", "completed_goals")):
        tombstones = _tombstones(current, tombstone_list)
        date_field = DATE_FIELD[live_list]
        for index, item in _items(current, live_list):
            key = item_key(item)
            if key is None or key not in tombstones:
                continue
            done_at, tombstone_index = tombstones[key]
            if dates.sort_key(item.get(date_field)) <= done_at:
                found.append(diagnostic(
                    rules.SESSION_SUPPRESSED, display,
                    f"current.{live_list}[{index}] {_label(item)} is suppressed by its own tombstone "
                    f"current.{tombstone_list}[{tombstone_index}] ({date_field} not later than done_at), so readers "
                    f"do not show it; remove it, or give it a later {date_field} if it was added again",
                    *at(("current", live_list, index))))
    return found


def _tombstones(current: dict, name: str) -> dict:
    """Identity -> (newest done_at, index) of a tombstone list."""
    newest: dict = {}
    for index, item in _items(current, name):
        key = item_key(item)
        if key is None:
            continue
        done_at = dates.sort_key(item.get("done_at"))
        if key not in newest or done_at > newest[key][0]:
            newest[key] = (done_at, index)
    return newest


def _check_decision(display: str, item: dict, path: tuple, at) -> list[Diagnostic]:
    found = []
    if item.get("hidden") is True and not item.get("hidden_at"):
        found.append(diagnostic(
            rules.SESSION_HIDDEN_AT, display, f"{pointer(path)} {_label(item)} is hidden without hidden_at; add it",
            *at(path)))
    if "text_hash" not in item:
        return found
    value = item["text_hash"]
    hash_path = path + ("text_hash",)
    if not isinstance(value, str) or not _HASH.fullmatch(value):
        found.append(diagnostic(
            rules.SESSION_TEXT_HASH, display,
            f"{pointer(hash_path)} {_show(value)} is not a lowercase hex SHA-256 (64 digits 0-9a-f), so it matches "
            "no decision; write the SHA-256 of the normalized text", *at(hash_path)))
    if item.get("hidden") is not True:
        found.append(diagnostic(
            rules.SESSION_HASH_NOT_HIDDEN, display,
            f"{pointer(path)} has text_hash but is not hidden: purged without hiding, and the hash is no identity "
            "for a live decision, which keys by its text (AMB-PURGE-UNHIDDEN); set hidden: true and hidden_at",
            *at(hash_path)))
        return found
    text = item.get("text")
    if text != PURGED_TEXT:
        mismatch = ""
        if isinstance(text, str) and isinstance(value, str) and text_hash(text) != value.strip().lower():
            mismatch = "; and text_hash is not the hash of this text"
        found.append(diagnostic(
            rules.SESSION_PURGED_TEXT, display,
            f"{pointer(path)} carries text_hash but its text is not {PURGED_TEXT!r}: the text it was meant to remove "
            f"is still in the file{mismatch}; replace the text with {PURGED_TEXT}", *at(path + ("text",))))
    for removed in ("why", "rejected"):
        if removed in item:
            found.append(diagnostic(
                rules.SESSION_PURGED_TEXT, display,
                f"{pointer(path)} is purged but keeps {removed}, which the purged form removes; delete it",
                *at(path + (removed,))))
    return found


def _check_history(display: str, history: list, bad_dates: set, at) -> list[Diagnostic]:
    found = []
    seen: dict[str, int] = {}
    for index, row in enumerate(history):
        if not isinstance(row, dict):
            continue
        found.extend(_calendar(display, row, ("history", index, "date"), bad_dates, at))
        session_id = row.get("session_id")
        if isinstance(session_id, str):
            if session_id in seen:
                found.append(diagnostic(
                    rules.SESSION_HISTORY_DUPLICATE, display,
                    f"history[{index}] repeats session_id {session_id!r} of history[{seen[session_id]}]: a session "
                    "updates its own row; merge the two rows", *at(("history", index, "session_id"))))
            else:
                seen[session_id] = index
    if len(history) > REFERENCE_CAPS["history"]:
        found.append(diagnostic(
            rules.SESSION_OVER_CAP, display,
            f"history holds {len(history)} rows, more than the reference implementation's cap of "
            f"{REFERENCE_CAPS['history']}", *at(("history",))))
    return found


def _show(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, (set, tuple)) else repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def _schema_message(error) -> str:
    keyword = error.validator
    if keyword == "required":
        return error.message.replace("is a required property", "is missing; add it (schema/session.schema.json)")
    if keyword == "type":
        expected = error.validator_value if isinstance(error.validator_value, str) else " or ".join(error.validator_value)
        return f"is {_show(error.instance)} where the schema has {expected}; write it as {expected}"
    if keyword == "minimum":
        return f"is {error.instance}, less than {error.validator_value}; use {error.validator_value} or more"
    return error.message if len(error.message) <= 160 else error.message[:159] + "…"
