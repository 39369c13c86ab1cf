"""A shrunk counterexample as a ready vector file (docs/architecture.md, "Vector files").

A merge counterexample becomes a `merge_sessions` vector of the two
replicas, a writer counterexample a `write` vector of the store before the
failing op and that op. The expectations are the reference model's result,
stated with the corpus' check keywords: the identities of every rendered
list, the tombstones and hidden decisions, and, for the part of the session
where the implementation went wrong (the counterexample's `focus`), the
values there. Values that depend on which of two equally dated copies wins
(AMB-TIE) are left out.

`save` writes the file and replays it through the runner's own executor:
it must pass against the reference model (else it is not written) and
should fail against the implementation that produced it.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from dataclasses import dataclass
from pathlib import Path

from conformance import resources
from conformance.fuzz.counterexample import Counterexample, MergeCase, WriteCase
from conformance.fuzz.views import loaded
from conformance.model import dates
from conformance.model.identity import is_purged, item_key
from conformance.model.merge import merge_session_texts
from conformance.model.session import DATE_FIELD, KNOWN_LISTS, KNOWN_TOP_LEVEL, RENDERED_LISTS, render
from conformance.runner.adapter_files import remove_tree
from conformance.runner.checks import join_pointer
from conformance.runner.execute import FAIL, PASS, run_vector
from conformance.runner.implementations import Implementation, ModelImplementation
from conformance.runner.requirements import load_requirements
from conformance.runner.vectors import load_vector_file

TAG = "fuzz"
TOMBSTONE_LISTS = ("completed_actions", "completed_goals")


# --- expectations ------------------------------------------------------------------

def _identity_spec(item: dict) -> str:
    return f"sha256:{item_key(item)}" if is_purged(item) else item["text"]


def _copies(sessions: list[dict], name: str) -> list[dict]:
    return [item for session in sessions for item in session["current"][name]]


def _unambiguous_date(item: dict, field: str, copies: list[dict]) -> bool:
    """The winner's date spelling is the only one among copies at its instant (AMB-TIE, AMB-DATES)."""
    key, moment = item_key(item), dates.sort_key(item.get(field))
    spellings = {json.dumps(c.get(field)) for c in copies if item_key(c) == key and dates.sort_key(c.get(field)) == moment}
    return len(spellings) == 1


def base_checks(session: dict) -> list[dict]:
    """Identities of every rendered list, of the tombstone lists, and the hidden decisions."""
    state = loaded(session)
    live = render(state)
    checks = [{"path": f"/live/{name}", "identities": live[name]} for name in RENDERED_LISTS]
    current = state["current"]
    for name in TOMBSTONE_LISTS:
        checks.append({"path": f"/session/current/{name}", "identities": [t["text"] for t in current[name]]})
    checks.append({"path": "/session/current/decisions", "identities": [_identity_spec(d) for d in current["decisions"]]})
    hidden = []
    for decision in current["decisions"]:
        if is_purged(decision):
            hidden.append({"text_hash": item_key(decision), "text": decision["text"], "hidden": True})
        elif decision.get("hidden") is True:
            hidden.append({"text": decision["text"], "hidden": True})
    if hidden:
        checks.append({"path": "/session/current/decisions", "contains": hidden,
                       "note": "hidden and purged decisions stay so (spec 5.3.1)"})
    return checks


def focus_checks(session: dict, focus: tuple[str, ...], inputs: list[dict], result_kind: str) -> list[dict]:
    """Checks that pin the part of the session where the implementation went wrong."""
    state = loaded(session)
    raw = session if isinstance(session, dict) else {}
    checks: list[dict] = []
    for component in focus:
        if component.startswith("lists/"):
            name = component.split("/", 1)[1]
            if name not in KNOWN_LISTS:
                continue
            field = DATE_FIELD[name]
            copies = _copies(inputs, name) + (_copies(inputs, "next_actions" if name == "parked_actions" else "parked_actions")
                                              if name in ("next_actions", "parked_actions") else [])
            specs = []
            for item in state["current"][name]:
                spec = {"text_hash": item_key(item)} if is_purged(item) else {"text": item["text"]}
                if _unambiguous_date(item, field, copies):
                    spec[field] = item.get(field)   # None: the field must be absent
                specs.append(spec)
            checks.append({"path": f"/session/current/{name}", "identities": [_identity_spec(i) for i in state["current"][name]]})
            if any(len(spec) > 1 for spec in specs):
                checks.append({"path": f"/session/current/{name}", "contains": specs,
                               "note": f"each identity's winning copy, by its `{field}` (spec 5.2)"})
        elif component == "machines":
            entries = {}
            copies = [(uuid, entry) for s in inputs for uuid, entry in s["machines"].items()]
            for uuid, entry in state["machines"].items():
                moment = dates.sort_key(entry.get("last_seen"))
                spellings = {json.dumps(e.get("last_seen")) for u, e in copies
                             if u == uuid and dates.sort_key(e.get("last_seen")) == moment}
                if len(spellings) == 1:
                    entries[uuid] = {"last_seen": entry.get("last_seen")}
            checks.append({"path": "/session/machines", "count": len(state["machines"])})
            if entries:
                checks.append({"path": "/session/machines", "matches": entries,
                               "note": "per machine, the newer last_seen (spec 5.2 step 3)"})
        elif component == "history":
            checks.append({"path": "/session/history", "count": len(state["history"]),
                           "note": "history rows after deduplication (spec 4.1, 5.2 step 4)"})
        elif component in ("created_at", "updated_at"):
            if component in raw:
                checks.append({"path": f"/session/{component}", "equals": raw[component]})
            else:
                checks.append({"path": f"/session/{component}", "absent": True})
        elif component in ("unknown_top_level", "unknown_current"):
            checks += unknown_key_checks(raw, inputs, component)
        elif component == "quarantine":
            checks.append({"path": "/files/session.json", "preserved": True,
                           "note": "the unparseable original is kept, in place or in a copy (spec 4.1, 6)"})
        elif component == "version":
            checks.append({"path": "/session", "matches": {"version": raw.get("version", 1)}})
        elif component.startswith("stamped/"):
            name = component.split("/", 1)[1]
            if state["current"].get(name):
                checks.append({"path": f"/session/current/{name}", "stamped": [DATE_FIELD[name], "machine_id"]})
        elif component == "item_fields":
            for name in ("next_actions", "parked_actions"):
                specs = [{"text": i["text"], **{k: v for k, v in i.items() if k.startswith("x_")}}
                         for i in state["current"][name] if any(k.startswith("x_") for k in i)]
                if specs:
                    checks.append({"path": f"/session/current/{name}", "contains": specs})
    return checks


def unknown_key_checks(raw: dict, inputs: list[dict], component: str) -> list[dict]:
    if component == "unknown_current":
        container = raw.get("current", {}) if isinstance(raw.get("current"), dict) else {}
        known, prefix = KNOWN_LISTS, "/session/current"
        seen = {k for s in inputs for k in s["current"] if k not in known}
    else:
        container, known, prefix = raw, KNOWN_TOP_LEVEL, "/session"
        seen = {k for s in inputs for k in s if k not in known}
    checks = []
    for key, value in container.items():
        if key not in known:
            checks.append({"path": join_pointer(prefix, key), "equals": value,
                           "note": "unknown keys pass through, the local copy winning (spec 5.4)"})
    for key in sorted(seen - set(container)):
        checks.append({"path": join_pointer(prefix, key), "absent": True})
    return checks


# --- vectors -----------------------------------------------------------------------

def _side(text: str | None) -> object:
    """A replica for the vector file: the object when the text is a JSON object, else the raw text."""
    if text is None:
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return {"$text": text}
    if isinstance(value, dict) and not any(key.startswith("$") for key in value):
        return value
    return {"$text": text}


def _fold_sensitive(texts: list[str]) -> bool:
    return any(char.casefold() != char.lower() for text in texts for char in text)


def _texts_in(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _texts_in(v)]
    if isinstance(value, list):
        return [t for v in value for t in _texts_in(v)]
    return []


def _known_requirements(ids: tuple[str, ...]) -> list[str]:
    index = load_requirements(resources.vectors_dir() / "requirements.json")
    known = [rid for rid in dict.fromkeys(ids) if index.get(rid) is not None]
    return known or ["S5-full-implements-section"]


def _sections(requirements: list[str]) -> list[str]:
    index = load_requirements(resources.vectors_dir() / "requirements.json")
    found = []
    for rid in requirements:
        requirement = index.get(rid)
        section = getattr(requirement, "section", None)
        if section and section not in found:
            found.append(section)
    return found or ["5.4"]


def build_vector(counterexample: Counterexample, caps: dict, origin: str) -> dict:
    """The counterexample as one vector (a dict ready for a vector file)."""
    case = counterexample.case
    if isinstance(case, MergeCase):
        op, level = "merge_sessions", "full"
        vector_input = {"local": _side(case.local), "remote": _side(case.remote)}
        result = merge_session_texts(case.local, case.remote, caps)
        inputs = [loaded(json.loads(t)) for t in (case.local, case.remote) if _is_ok(t)]
        expect = base_checks(result) + focus_checks(result, case.focus, inputs, "merge")
    elif isinstance(case, WriteCase):
        op, level = "write", "writer"
        files = {} if case.session_text is None else {"session.json": _side(case.session_text)}
        vector_input = {"steps": [dict(step) for step in case.steps]}
        if files:
            vector_input = {"store": {"files": files}, **vector_input}
        result = case.expected_session
        before = [loaded(json.loads(case.session_text))] if _is_ok(case.session_text) else []
        focus = tuple(dict.fromkeys((*case.focus, "unknown_top_level", "unknown_current", "history")))
        expect = base_checks(result) + focus_checks(result, focus, before + [loaded(result)], "write")
    else:
        raise ValueError("this counterexample has no case to save")
    expect = list({json.dumps(check, sort_keys=True): check for check in expect}.values())   # no check twice
    requirements = _known_requirements(counterexample.requirements)
    digest = hashlib.sha256(json.dumps({"op": op, "input": vector_input}, sort_keys=True, ensure_ascii=False)
                            .encode("utf-8")).hexdigest()[:12]
    vector = {
        "id": f"fuzz.{counterexample.property}.{digest}",
        "title": f"fuzz counterexample ({counterexample.property}): {counterexample.message}"[:300],
        "sections": _sections(requirements),
        "requirements": requirements,
        "level": level,
        "tags": [TAG],
        "note": (f"Found by `memoir-conform fuzz` ({origin}). Expectations are the reference model's result"
                 f" with the caps {json.dumps(caps, sort_keys=True)}."),
        "op": op,
        "input": vector_input,
        "expect": expect,
    }
    if _fold_sensitive(_texts_in(vector_input)):
        vector["tags"].append("ambiguous")
        vector["ambiguity"] = "AMB-CASEFOLD"
    return vector


def _is_ok(text: str | None) -> bool:
    from conformance.model.session import load_session_text

    return text is not None and load_session_text(text).status == "ok"


# --- saving and replaying -------------------------------------------------------------

@dataclass(frozen=True)
class Saved:
    """What became of one counterexample when saved."""

    path: Path | None
    vector_id: str
    reference_outcome: str          # the runner's outcome against the reference model
    implementation_outcome: str     # ... against the implementation that failed the property
    message: str


def save(counterexample: Counterexample, directory: Path, implementation: Implementation, caps: dict,
         origin: str) -> Saved:
    """Write the vector file to `directory`, replay it, and keep it only if the reference passes it."""
    vector = build_vector(counterexample, caps, origin)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{vector['id']}.json"
    document = {
        "description": f"A counterexample found by memoir-conform fuzz: {counterexample.property} "
                       f"({counterexample.requirement}, spec {counterexample.section}).",
        "vectors": [vector],
    }
    path.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    loaded_vectors, problems = load_vector_file(path, directory)
    if problems:
        path.unlink()
        return Saved(None, vector["id"], "error", "error",
                     "not saved: the vector is invalid (a bug in memoir-conform fuzz): " + "; ".join(map(str, problems)))
    workdir = Path(tempfile.mkdtemp(prefix="memoir-fuzz-replay-"))
    try:
        model = ModelImplementation()
        reference = run_vector(loaded_vectors[0], model, model.describe(), workdir / "reference")
        described = implementation.describe()
        theirs = run_vector(loaded_vectors[0], implementation, described, workdir / "implementation")
    finally:
        remove_tree(workdir)
    if reference.outcome != PASS:
        path.unlink()
        failures = "; ".join(f.message for f in reference.failures) or reference.detail or ""
        return Saved(None, vector["id"], reference.outcome, theirs.outcome,
                     f"not saved: the reference model does not pass the vector ({failures}); "
                     "a bug in memoir-conform fuzz, please report it")
    if theirs.outcome == FAIL:
        message = f"saved {path}: fails against the implementation, passes against the reference model"
    else:
        message = (f"saved {path}: passes against the reference model, but the implementation "
                   f"{'passes it too' if theirs.outcome == PASS else 'gives ' + theirs.outcome}: "
                   "the difference is one the vector's checks cannot state (ordering, a tie, a replay of state)")
    return Saved(path, vector["id"], reference.outcome, theirs.outcome, message)
