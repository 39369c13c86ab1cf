"""What the fuzzer compares: normalised views of a session, and readable diffs.

Two merges that agree under the spec may still differ in ways the spec
leaves open: list order (5.4, "up to ordering"), which of two copies with
equal dates wins (AMB-TIE), how a date is spelled (AMB-DATES). The views
here keep only what the spec pins down: identities (5.1) per rendered list,
the instant of each winner's date field (5.2), tombstones (5.3), history
rows, machines, the session stamps and the unknown keys (5.4). Equal views
mean "renders identically"; a difference is shown as a unified diff of the
two views as pretty JSON.
"""

from __future__ import annotations

import difflib
import json

from conformance.model import dates
from conformance.model.identity import is_purged, item_key, normalize
from conformance.model.session import (
    DATE_FIELD,
    KNOWN_LISTS,
    KNOWN_TOP_LEVEL,
    RENDERED_LISTS,
    load_session_data,
    render,
)

MISSING_DATE = "epoch (missing or unparseable)"


def instant(value: object) -> str:
    """A date field as the instant it compares as (spec 5.2: missing is the epoch)."""
    parsed = dates.parse_date(value)
    return MISSING_DATE if parsed is None else dates.format_timestamp(parsed)


def loaded(session: object) -> dict:
    """A session object as the reference model reads it (sanitized, never raises)."""
    result = load_session_data(session)
    return result.session


def render_texts(session: dict) -> dict[str, list[str]]:
    """The live view as sorted texts per list: "renders identically, up to ordering" (5.4)."""
    return {name: sorted(texts) for name, texts in render(loaded(session)).items()}


def render_identities(session: dict) -> dict[str, list[str]]:
    """The live view as sorted normalized identities per list (5.1)."""
    return {name: sorted({normalize(text) for text in texts}) for name, texts in render(loaded(session)).items()}


def _label(item: dict) -> str:
    if is_purged(item):
        return f"sha256:{item_key(item)}"
    return normalize(item["text"])


def list_view(items: list[dict], name: str) -> dict[str, str]:
    """identity -> the instant of its date field; a repeated identity is shown as such."""
    field = DATE_FIELD[name]
    view: dict[str, str] = {}
    for item in items:
        label = _label(item)
        if label in view:
            label = f"{label} (again)"
        view[label] = instant(item.get(field))
    return view


def decision_flags(items: list[dict]) -> dict[str, str]:
    """identity -> visible | hidden | purged (spec 5.3.1)."""
    flags = {}
    for item in items:
        flag = "purged" if is_purged(item) else "hidden" if item.get("hidden") is True else "visible"
        flags[_label(item)] = flag
    return flags


def history_view(rows: list[dict]) -> list[list]:
    return sorted(
        [instant(row.get("date")), str(row.get("machine_id")), str(row.get("summary")), str(row.get("session_id", ""))]
        for row in rows
    )


def session_view(session: object) -> dict:
    """Everything of a merged session that spec 5 decides, order and tie-breaks aside."""
    state = loaded(session)
    current = state["current"]
    view: dict = {"live": render_identities(state)}
    view["lists"] = {name: list_view(current[name], name) for name in KNOWN_LISTS}
    view["decisions"] = decision_flags(current["decisions"])
    view["machines"] = {uuid: instant(entry.get("last_seen")) for uuid, entry in sorted(state["machines"].items())}
    view["history"] = history_view(state["history"])
    for stamp in ("created_at", "updated_at"):
        view[stamp] = instant(state.get(stamp)) if stamp in state else None
    view["unknown_top_level"] = unknown_keys(state, KNOWN_TOP_LEVEL)
    view["unknown_current"] = unknown_keys(current, KNOWN_LISTS)
    return view


def unknown_keys(container: dict, known) -> dict:
    return {key: value for key, value in container.items() if key not in known}


def pretty(value: object) -> str:
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)


def unified_diff(expected: object, actual: object, expected_label: str, actual_label: str) -> str:
    """A unified diff of two JSON values (pretty, sorted keys); empty when equal."""
    lines = difflib.unified_diff(
        pretty(expected).splitlines(), pretty(actual).splitlines(), expected_label, actual_label, lineterm="", n=3
    )
    return "\n".join(lines)


def first_difference(expected: object, actual: object, path: str = "") -> str | None:
    """The JSON path of the first place two views differ, for choosing a requirement id."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in sorted(set(expected) | set(actual), key=str):
            if key not in expected or key not in actual:
                return f"{path}/{key}"
            found = first_difference(expected[key], actual[key], f"{path}/{key}")
            if found is not None:
                return found
        return None
    if expected != actual:
        return path or "/"
    return None


def rendered_lists() -> tuple[str, ...]:
    return RENDERED_LISTS
