"""What the derived invariants of spec 5.4 compare, and what of it decides.

What 5.4 states decides; what it does not state is reported as advisory
(docs/running.md, "Derived invariants"; AMB-CONVERGENCE):

- `~swapped`: merge(A, B) and merge(B, A) "render identically": the
  rendered view decides (each live list's items by identity with their
  rendered fields, and the identities tombstones hold); the whole data,
  keys the merge does not know excepted (local wins, 5.4), is advisory;
- `~idempotent`: "merging a replica with itself is a no-op": merge(M, M) = M
  decides; merge(M, A) = M and merge(M, B) = M (absorption) are advisory.

Both compare through the comparison rules (`conformance.runner.compare`)
with the rules of two runs (clock stamps never decide), report every
difference, and decide only where both inputs are replicas. Running the
merges is `conformance.runner.execute`'s.
"""

from __future__ import annotations

import functools
import json
from dataclasses import replace
from pathlib import Path

from conformance import linear_schema, resources, schema_errors
from conformance.model.identity import item_key, text_hash
from conformance.model.session import KNOWN_LISTS, KNOWN_TOP_LEVEL, load_session_data, render
from conformance.model.store import SESSION_FILE
from conformance.nesting import MAX_DEPTH, nesting_depth
from conformance.runner.checks import SHOWN_DIFFERENCES, CheckFailure
from conformance.runner.compare import Rules, differences
from conformance.runner.selection import newer_lists
from conformance.runner.vectors import Vector, store_files

FULL_DATA = "whole-data equality: 5.4 asks merge(A, B) and merge(B, A) to render identically"
ABSORPTION = "absorption: 5.4 states only that merging a replica with itself is a no-op"
MALFORMED_INPUT = "an input is not a schema-valid replica (schema/session.schema.json): 5.4 is about replicas"
ACROSS_RUNS = Rules(across_runs=True)
# Decision fields a reader renders besides the text (3.3.3: what was decided, why, what was rejected).
RENDERED_FIELDS = {"decisions": ("why", "rejected")}


def rendered_view(session: object, spec: str | None = None) -> dict:
    """What a merged session renders (spec 4.1, 5.3): each live list's items
    with their rendered fields, and the identities the tombstones hold; for
    an older `spec`, without the lists that version did not have."""
    loaded = load_session_data(session).session
    unknown = newer_lists(spec) if spec else frozenset()
    if unknown:
        loaded = {**loaded, "current": {name: items for name, items in loaded.get("current", {}).items()
                                        if name not in unknown}}
    current = loaded.get("current", {})
    live = render(loaded)
    view: dict = {"live": {}, "tombstones": {}}
    for name, texts in live.items():
        if name in unknown:
            continue
        shown = {text_hash(text) for text in texts}
        items = [item for item in current.get(name, []) if isinstance(item, dict)
                 and isinstance(item.get("text"), str) and text_hash(item["text"]) in shown]
        view["live"][name] = [{"text": item["text"], **{field: item[field] for field in RENDERED_FIELDS.get(name, ())
                                                         if field in item}} for item in items]
    hidden = [d for d in current.get("decisions", []) if isinstance(d, dict) and d.get("hidden") is True]
    view["tombstones"]["hidden"] = [_tombstone(item) for item in hidden]
    for name in sorted({"completed_actions", "completed_goals"} - unknown):
        view["tombstones"][name] = [_tombstone(item) for item in current.get(name, []) if isinstance(item, dict)]
    return view


def _tombstone(item: dict) -> dict:
    """A tombstone as the view holds it: its identity only."""
    key = item_key(item)
    if key is None:
        return {"text": None}
    return {"text": "[purged]", "text_hash": key, "hidden": True}


@functools.lru_cache(maxsize=1)
def _session_schema():
    return linear_schema.validator(resources.load_schema("session.schema.json"))


@functools.lru_cache(maxsize=1)
def _session_errors():
    # jsonschema's verdict without its cost (a run asks this of every merge answer); None where not sure.
    return schema_errors.error_finder(resources.load_schema("session.schema.json"))


# What an abbreviated replica leaves out and a reader fills (absent lists are
# empty, 4.1; the stamps are the implementation's own, never compared across runs).
_FILLED_TOP = {"created_at": "1970-01-01T00:00:00Z", "updated_at": "1970-01-01T00:00:00Z", "machines": {},
               "history": [], "current": {}}
_FILLED_LISTS = ("goals", "next_actions", "open_questions", "decisions")


@functools.lru_cache(maxsize=1024)
def is_replica(text: str | None) -> bool:
    """A session text that is a schema-valid replica once the keys a reader
    fills are filled (absent counts: an empty store). Wrong types, bad dates,
    items without a text, text that is not JSON, JSON nested deeper than the
    kit walks (conformance.nesting) are not replicas. Remembered by text: the
    derived invariants ask it of each vector's inputs several times."""
    if text is None:
        return True
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return False
    if not isinstance(data, dict) or nesting_depth(data) > MAX_DEPTH:
        return False
    filled = {**_FILLED_TOP, **data}
    if isinstance(filled["current"], dict):
        filled["current"] = {**{name: [] for name in _FILLED_LISTS}, **filled["current"]}
    errors = _session_errors()(filled)
    return errors == [] if errors is not None else _session_schema().is_valid(filled)


def store_is_replica(spec: dict, root: Path) -> bool:
    data = store_files(spec, root).get(SESSION_FILE)
    return is_replica(None if data is None else data.decode("utf-8", errors="replace"))


def relation_failures(vector: Vector, check: str, expected: object, actual: object, path: str, what: str,
                       rules: Rules = ACROSS_RUNS, advisory: str | None = None) -> list[CheckFailure]:
    """Every difference of one relation (up to SHOWN_DIFFERENCES), deciding
    ones first, each made advisory when the relation or the rule says so."""
    found = list(differences(expected, actual, path, rules))
    failures = [CheckFailure(item.path, check, item.expected, item.actual, f"{what}: {item.message}",
                             requirements=vector.requirements, ambiguity=vector.ambiguity,
                             advisory=advisory or item.advisory)
                for item in found[:SHOWN_DIFFERENCES]]
    if len(found) > SHOWN_DIFFERENCES:
        failures[-1] = replace(failures[-1], message=f"{failures[-1].message} (and {len(found) - SHOWN_DIFFERENCES} "
                                                     "more differences, not shown)")
    return failures


def demoted(failures: list[CheckFailure], replicas: bool) -> list[CheckFailure]:
    """Derived checks decide only on schema-valid replicas."""
    if replicas:
        return failures
    return [failure if failure.advisory else replace(failure, advisory=MALFORMED_INPUT) for failure in failures]


def without_unknown_keys(session: object, spec: str | None = None) -> object:
    """A session without the keys the merge does not know (those are the
    local copy's by rule, 5.4, so merge(A, B) and merge(B, A) differ there),
    nor, for an older `spec`, the lists that version did not have."""
    if not isinstance(session, dict):
        return session
    known = set(KNOWN_LISTS) - (newer_lists(spec) if spec else frozenset())
    kept = {key: value for key, value in session.items() if key in KNOWN_TOP_LEVEL}
    if isinstance(kept.get("current"), dict):
        kept["current"] = {name: items for name, items in kept["current"].items() if name in known}
    return kept


def as_of(session: object, spec: str | None) -> object:
    """A session as spec version `spec` compares it: whole, for the latest
    version; for an older one, only what that version knew (unknown keys
    pass through merges only since v0.1.2, 5.4)."""
    return without_unknown_keys(session, spec) if spec else session


def store_as_of(view: dict, spec: str | None) -> dict:
    return {**view, "session": as_of(view["session"], spec)}
