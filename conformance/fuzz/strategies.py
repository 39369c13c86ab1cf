"""Hypothesis strategies for memoir sessions, built to collide.

Small pieces that compose: identities drawn from a tiny alphabet with case
and whitespace variants of the same text, dates drawn from a handful of
instants written several ways (date-only, offsets, missing, unparseable),
items per session list, tombstones, whole replicas, and now and then a
replica that must contribute nothing (newer version, unparseable bytes).
Merges of such replicas hit every rule of spec 5 within a few examples.
"""

from __future__ import annotations

import json

from hypothesis import strategies as st

from conformance.model.identity import PURGED_TEXT, text_hash

BASE_TEXTS = ("fix the flaky test", "ship v1", "use sqlite", "rotate keys", "write docs", "Straße bauen")

# A few instants, each reachable in several spellings, so that equal and
# near-equal dates meet (spec 5.2; AMB-DATES).
INSTANTS = (
    ("2026-01-01", "2026-01-01T00:00:00Z", "2026-01-01T01:00:00+01:00"),
    ("2026-01-01T00:00:01Z",),
    ("2026-03-15T12:00:00.000Z", "2026-03-15T14:00:00+02:00", "2026-03-15T12:00:00"),
    ("2026-06-01T08:30:00Z",),
    ("2026-09-04T23:59:59.999Z",),
)
BAD_DATES = ("", "yesterday", "2026-13-45", "not a date")


def text_variants(text: str) -> list[str]:
    """Spellings of one identity: case and surrounding-whitespace variants (spec 5.1)."""
    return [text, text.upper(), text.title(), f" {text}", f"{text}\t", f"  {text.upper()} ", f"\n{text.title()}"]


def identity_texts(base=BASE_TEXTS) -> st.SearchStrategy[str]:
    """One of a few texts, in a random case and with random surrounding whitespace."""
    return st.sampled_from([variant for text in base for variant in text_variants(text)])


def dates(allow_missing: bool = True) -> st.SearchStrategy[str | None]:
    good = st.sampled_from([spelling for instant in INSTANTS for spelling in instant])
    if not allow_missing:
        return good
    return st.one_of(good, good, good, st.none(), st.sampled_from(BAD_DATES))


def machine_ids() -> st.SearchStrategy[str]:
    return st.sampled_from(["m-laptop", "m-desktop", "m-ci"])


def with_date(item: dict, field: str, value: str | None) -> dict:
    return item if value is None else {**item, field: value}


def list_items(date_field: str, extra: dict | None = None) -> st.SearchStrategy[dict]:
    """An item of a session list: text, machine_id and (maybe) its date field."""
    base = st.fixed_dictionaries({"text": identity_texts(), "machine_id": machine_ids()}, optional=extra or {})
    return st.builds(with_date, base, st.just(date_field), dates())


def tombstones() -> st.SearchStrategy[dict]:
    return st.builds(with_date, st.fixed_dictionaries({"text": identity_texts()}), st.just("done_at"), dates())


def parked_actions() -> st.SearchStrategy[dict]:
    return st.builds(
        lambda item, parked_at: {**item, "parked_at": parked_at},
        list_items("added"),
        dates(allow_missing=False),
    )


def decisions() -> st.SearchStrategy[dict]:
    """Visible, hidden and purged decisions (spec 5.3.1)."""

    def shape(item: dict, kind: str, hidden_at: str) -> dict:
        if kind == "visible":
            return item
        hidden = {**item, "hidden": True, "hidden_at": hidden_at}
        if kind == "hidden":
            return hidden
        purged = {k: v for k, v in hidden.items() if k not in ("why", "rejected")}
        return {**purged, "text": PURGED_TEXT, "text_hash": text_hash(item["text"])}

    item = list_items("date", extra={"why": st.just("because"), "rejected": st.just("the other one")})
    return st.builds(shape, item, st.sampled_from(["visible", "visible", "hidden", "purged"]), dates(False))


def unknown_values() -> st.SearchStrategy[object]:
    return st.one_of(st.integers(), st.text(max_size=5), st.lists(st.integers(), max_size=2))


def current_sections(max_items: int = 4) -> st.SearchStrategy[dict]:
    lists = {
        "goals": st.lists(list_items("set_on"), max_size=max_items),
        "next_actions": st.lists(list_items("added"), max_size=max_items),
        "parked_actions": st.lists(parked_actions(), max_size=max_items),
        "completed_actions": st.lists(tombstones(), max_size=max_items),
        "completed_goals": st.lists(tombstones(), max_size=max_items),
        "open_questions": st.lists(list_items("asked"), max_size=max_items),
        "decisions": st.lists(decisions(), max_size=max_items),
    }
    unknown = {"x_future_list": st.lists(unknown_values(), max_size=2), "x_retired": unknown_values()}
    return st.fixed_dictionaries({}, optional={**lists, **unknown})


def history_rows() -> st.SearchStrategy[dict]:
    row = st.fixed_dictionaries(
        {"machine_id": machine_ids(), "summary": st.sampled_from(["refactor", "tests", "docs"])},
        optional={"session_id": st.sampled_from(["s-1", "s-2", "s-3"])},
    )
    return st.builds(with_date, row, st.just("date"), dates())


def machines() -> st.SearchStrategy[dict]:
    entry = st.builds(
        lambda label, seen: with_date({"label": label}, "last_seen", seen), st.sampled_from(["a", "b"]), dates()
    )
    return st.dictionaries(machine_ids(), entry, max_size=3)


def sessions(max_items: int = 4) -> st.SearchStrategy[dict]:
    """A version-1 session object (as `json.loads` would give it)."""
    return st.fixed_dictionaries(
        {"version": st.just(1), "current": current_sections(max_items)},
        optional={
            "created_at": dates(False),
            "updated_at": dates(False),
            "machines": machines(),
            "history": st.lists(history_rows(), max_size=max_items),
            "x_top_level": unknown_values(),
        },
    )


def replica_texts(max_items: int = 4) -> st.SearchStrategy[str]:
    """The bytes of a replica's session.json: mostly valid, sometimes one that
    must contribute nothing to a merge (spec 6)."""
    valid = sessions(max_items).map(lambda s: json.dumps(s, indent=2))
    newer = sessions(max_items).map(lambda s: json.dumps({**s, "version": 2}))
    broken = valid.map(lambda text: text[: len(text) // 2])
    return st.one_of(valid, valid, valid, valid, newer, broken)


def json_values() -> st.SearchStrategy[object]:
    """Arbitrary JSON, for migration-never-throws properties."""
    scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=8))
    return st.recursive(
        scalars,
        lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)),
        max_leaves=20,
    )
