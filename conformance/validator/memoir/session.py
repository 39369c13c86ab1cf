"""Checks of a session file (spec 4, 5, 6).

First the shape: well-formed JSON, then schema/session.schema.json (through
jsonschema, for a session with departures), with `version` the one key it
requires: spec 6 makes it the only key a session MUST carry, and 4.1 lets
readers take an absent list as empty. Then the meaning, which no
schema can say: identities (5.1) repeated in one list, an action both live
and parked, a live item its own tombstone suppresses (5.3.2), the purged
form of a decision tombstone (5.3.1), dates that are missing or name no real
day, lists beyond the reference caps, and a version newer than this kit
knows (6), after which nothing is interpreted.
"""

from __future__ import annotations

import json
from functools import lru_cache
from itertools import islice
from typing import Callable

from conformance import linear_schema
from conformance.model import dates
from conformance.model.identity import PURGED_TEXT, item_key, text_hash
from conformance.schema_errors import error_finder
from conformance.validator.memoir import rules
from conformance.validator.core.findings import MAX_PER_RULE, Diagnostic, diagnostic
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
_HEX_DIGITS = "0123456789abcdef"


def _is_sha256(value: str) -> bool:
    """64 lowercase hex digits (what ``[0-9a-f]{64}`` fullmatches)."""
    return len(value) == 64 and not value.strip(_HEX_DIGITS)


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


def _only_version_required(schema: object, top: bool = True) -> object:
    """A copy of the session schema whose one `required` key is the top-level `version`.

    The schema file stays as it is: the runner holds replicas to all of it
    (conformance/runner/invariants.py). An item without its text, or without
    its list's date, is a warning of its own here (SESSION_NO_TEXT,
    SESSION_MISSING_DATE)."""
    if isinstance(schema, list):
        return [_only_version_required(item, False) for item in schema]
    if not isinstance(schema, dict):
        return schema
    relaxed = {key: _only_version_required(value, False) for key, value in schema.items() if key != "required"}
    if top:
        relaxed["required"] = ["version"]
    return relaxed


@lru_cache(maxsize=1)
def _session_schema() -> tuple[dict, Callable[[object], list | None]]:
    from conformance.resources import load_schema

    schema = _only_version_required(load_schema("session.schema.json"))
    return schema, error_finder(schema)


@lru_cache(maxsize=1)
def _session_validator():
    """jsonschema's validator of the session schema, for a session with departures: its errors are reported."""
    schema = _session_schema()[0]
    return linear_schema.validator(schema), schema["$defs"]["date"]["pattern"]


def _schema_departures(data: object) -> tuple[list, str | None]:
    """jsonschema's errors on `data` (one more than are reported, at most) and the schema's date pattern;
    none, and jsonschema not asked, when the schema's error finder is sure there is none."""
    if _session_schema()[1](data) == []:
        return [], None
    validator, date_pattern = _session_validator()
    # A hostile session has a million errors: the first ones are enough to say so.
    return list(islice(validator.iter_errors(data), MAX_PER_RULE + 1)), date_pattern


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
    report = _Findings(display, JsonPlaces(text))

    if isinstance(data, dict):
        version = data.get("version")
        if isinstance(version, int) and not isinstance(version, bool) and version > KNOWN_VERSION:
            report.add(rules.SESSION_VERSION_NEWER,
                       f"version {version} is newer than {KNOWN_VERSION}: readers set the file aside unread, start "
                       "from an empty session and merge nothing from it (spec 6), and it was not checked further; "
                       "read it with a tool that knows that version", ("version",))
            return report.found

    bad_dates: set[tuple] = set()
    errors, date_pattern = _schema_departures(data)
    if len(errors) > MAX_PER_RULE:
        errors.pop()
        report.add(rules.SESSION_SCHEMA, f"more than {MAX_PER_RULE} departures from the schema: the rest were not "
                                         "looked for; fix these and check again")
    for error in sorted(errors, key=lambda e: [str(part) for part in e.absolute_path]):
        path = tuple(error.absolute_path)
        if error.validator == "pattern" and error.validator_value == date_pattern:
            bad_dates.add(path)
            report.add(rules.SESSION_DATE,
                       f"{pointer(path)} {_show(error.instance)} is not an ISO 8601 date or date-time, so merges "
                       "compare it as the oldest date of all; write YYYY-MM-DD or YYYY-MM-DDThh:mm:ssZ", path)
            continue
        report.add(rules.SESSION_SCHEMA, f"{pointer(path)}: {_schema_message(error)}", path)
    if not isinstance(data, dict):
        return report.result()

    for key in ("created_at", "updated_at"):
        _calendar(report, data, (key,), bad_dates)
    machines = data.get("machines")
    if isinstance(machines, dict):
        for machine_id, machine in machines.items():
            path = ("machines", machine_id)
            if isinstance(machine, dict) and "last_seen" not in machine:
                _missing_date(report, path, repr(machine_id), "last_seen")
            _calendar(report, machine, path + ("last_seen",), bad_dates)
    current = data.get("current")
    if isinstance(current, dict):
        _check_current(report, current, bad_dates)
    history = data.get("history")
    if isinstance(history, list):
        _check_history(report, history, bad_dates)
    return report.result()


class _Findings:
    """The findings of one session file. A hostile session repeats one mistake
    100,000 times: past `MAX_PER_RULE` of a rule, a finding is only counted, so
    neither its message nor its place (a walk of the JSON text) is worked out."""

    def __init__(self, display: str, places: JsonPlaces):
        self.display = display
        self.places = places
        self.found: list[Diagnostic] = []
        self._counts: dict[str, int] = {}

    def wants(self, rule) -> bool:
        """Count one finding of `rule`; whether it is to be written out."""
        count = self._counts[rule.id] = self._counts.get(rule.id, 0) + 1
        return count <= MAX_PER_RULE

    def add(self, rule, message: str, path: tuple | None = None) -> None:
        line, column = self.places.locate(path) if path is not None else (0, 0)
        self.found.append(diagnostic(rule, self.display, message, line, column))

    def result(self) -> list[Diagnostic]:
        for rule_id, count in self._counts.items():
            if count > MAX_PER_RULE:
                rule = rules.RULES_BY_ID[rule_id]
                self.add(rule, f"{count - MAX_PER_RULE} more findings of this rule in this file are not listed (the "
                               f"first {MAX_PER_RULE} are); fix those and check again")
        return self.found


def _calendar(report: _Findings, container: object, path: tuple, bad_dates: set) -> None:
    """A date that has the ISO 8601 shape but names no real day or time."""
    value = container.get(path[-1]) if isinstance(container, dict) else None
    if (isinstance(value, str) and path not in bad_dates and dates.parse_date(value) is None
            and report.wants(rules.SESSION_DATE)):
        report.add(rules.SESSION_DATE,
                   f"{pointer(path)} {value!r} has the shape of a date but names no real day or time, so merges "
                   "compare it as the oldest date of all; correct it", path)


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


def _check_current(report: _Findings, current: dict, bad_dates: set) -> None:
    keys: dict[str, dict[str, int]] = {}
    for name, date_field in DATE_FIELD.items():
        seen: dict[str, int] = {}
        for index, item in _items(current, name):
            path = ("current", name, index)
            key = item_key(item)
            if key is not None:
                if key not in seen:
                    seen[key] = index
                elif report.wants(rules.SESSION_DUPLICATE):
                    report.add(rules.SESSION_DUPLICATE,
                               f"{pointer(path)} {_label(item)} has the identity (trimmed, case-folded text) of "
                               f"{pointer(('current', name, seen[key]))}, so readers and merges keep only one; "
                               "remove one", path)
            if "text" not in item and "text_hash" not in item and report.wants(rules.SESSION_NO_TEXT):
                report.add(rules.SESSION_NO_TEXT,
                           f"{pointer(path)} has no text, its identity (5.1), so no merge can match it and readers "
                           "leave it out; add text", path)
            if date_field not in item:
                _missing_date(report, path, _label(item), date_field)
            else:
                _calendar(report, item, path + (date_field,), bad_dates)
            for other in _OTHER_DATE_FIELDS:
                if other != date_field and other in item:
                    _calendar(report, item, path + (other,), bad_dates)
            if name == "decisions":
                _check_decision(report, item, path)
        keys[name] = seen
        cap = REFERENCE_CAPS.get(name)
        length = len(current[name]) if isinstance(current.get(name), list) else 0
        if cap is not None and length > cap and report.wants(rules.SESSION_OVER_CAP):
            report.add(rules.SESSION_OVER_CAP,
                       f"current.{name} holds {length} items, more than the reference implementation's cap of {cap}: "
                       "it rotates the oldest out on its next write; prune the list if the oldest matter",
                       ("current", name))

    for index, item in _items(current, "parked_actions"):
        key = item_key(item)
        if key is not None and key in keys.get("next_actions", {}) and report.wants(rules.SESSION_LIVE_AND_PARKED):
            live = keys["next_actions"][key]
            report.add(rules.SESSION_LIVE_AND_PARKED,
                       f"current.parked_actions[{index}] {_label(item)} is also live as current.next_actions[{live}]: "
                       "an action is live or parked, not both; remove one", ("current", "parked_actions", index))

    for live_list, tombstone_list in (("next_actions", "completed_actions"), ("parked_actions", "completed_actions"),
                                      ("goals", "completed_goals")):
        tombstones = _tombstones(current, tombstone_list)
        date_field = DATE_FIELD[live_list]
        for index, item in _items(current, live_list):
            key = item_key(item)
            if key is None or key not in tombstones:
                continue
            done_at, tombstone_index = tombstones[key]
            if dates.sort_key(item.get(date_field)) <= done_at and report.wants(rules.SESSION_SUPPRESSED):
                report.add(rules.SESSION_SUPPRESSED,
                           f"current.{live_list}[{index}] {_label(item)} is suppressed by its own tombstone "
                           f"current.{tombstone_list}[{tombstone_index}] ({date_field} not later than done_at), so "
                           f"readers do not show it; remove it, or give it a later {date_field} if it was added again",
                           ("current", live_list, index))


def _missing_date(report: _Findings, path: tuple, label: str, date_field: str) -> None:
    if report.wants(rules.SESSION_MISSING_DATE):
        report.add(rules.SESSION_MISSING_DATE,
                   f"{pointer(path)} {label} has no {date_field}, so it compares as the oldest and loses every "
                   f"newest-wins merge; add {date_field}", path)


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


def _check_decision(report: _Findings, item: dict, path: tuple) -> None:
    if item.get("hidden") is True and not item.get("hidden_at") and report.wants(rules.SESSION_HIDDEN_AT):
        report.add(rules.SESSION_HIDDEN_AT, f"{pointer(path)} {_label(item)} is hidden without hidden_at; add it",
                   path)
    if "text_hash" not in item:
        return
    value = item["text_hash"]
    hash_path = path + ("text_hash",)
    if (not isinstance(value, str) or not _is_sha256(value)) and report.wants(rules.SESSION_TEXT_HASH):
        report.add(rules.SESSION_TEXT_HASH,
                   f"{pointer(hash_path)} {_show(value)} is not a lowercase hex SHA-256 (64 digits 0-9a-f), so it "
                   "matches no decision; write the SHA-256 of the normalized text", hash_path)
    if item.get("hidden") is not True:
        if report.wants(rules.SESSION_HASH_NOT_HIDDEN):
            report.add(rules.SESSION_HASH_NOT_HIDDEN,
                       f"{pointer(path)} has text_hash but is not hidden: purged without hiding, and the hash is no "
                       "identity for a live decision, which keys by its text (AMB-PURGE-UNHIDDEN); set hidden: true "
                       "and hidden_at", hash_path)
        return
    text = item.get("text")
    if text != PURGED_TEXT and report.wants(rules.SESSION_PURGED_TEXT):
        mismatch = ""
        if isinstance(text, str) and isinstance(value, str) and text_hash(text) != value.strip().lower():
            mismatch = "; and text_hash is not the hash of this text"
        report.add(rules.SESSION_PURGED_TEXT,
                   f"{pointer(path)} carries text_hash but its text is not {PURGED_TEXT!r}: the text it was meant to "
                   f"remove is still in the file{mismatch}; replace the text with {PURGED_TEXT}", path + ("text",))
    for removed in ("why", "rejected"):
        if removed in item and report.wants(rules.SESSION_PURGED_TEXT):
            report.add(rules.SESSION_PURGED_TEXT,
                       f"{pointer(path)} is purged but keeps {removed}, which the purged form removes; delete it",
                       path + (removed,))


def _check_history(report: _Findings, history: list, bad_dates: set) -> None:
    seen: dict[str, int] = {}
    for index, row in enumerate(history):
        if not isinstance(row, dict):
            continue
        if "date" not in row:
            _missing_date(report, ("history", index), _show(row.get("summary")), "date")
        _calendar(report, row, ("history", index, "date"), bad_dates)
        session_id = row.get("session_id")
        if isinstance(session_id, str):
            if session_id not in seen:
                seen[session_id] = index
            elif report.wants(rules.SESSION_HISTORY_DUPLICATE):
                report.add(rules.SESSION_HISTORY_DUPLICATE,
                           f"history[{index}] repeats session_id {session_id!r} of history[{seen[session_id]}]: a "
                           "session updates its own row; merge the two rows", ("history", index, "session_id"))
    if len(history) > REFERENCE_CAPS["history"] and report.wants(rules.SESSION_OVER_CAP):
        report.add(rules.SESSION_OVER_CAP,
                   f"history holds {len(history)} rows, more than the reference implementation's cap of "
                   f"{REFERENCE_CAPS['history']}", ("history",))


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
