"""Hypothesis strategies for memoir sessions, built to collide.

Small pieces that compose: identities drawn from a tiny alphabet with case
and whitespace variants of the same text, dates drawn from a handful of
instants written several ways (date-only, offsets, missing, unparseable),
items per session list, tombstones, whole replicas, and now and then a
replica that must contribute nothing (newer version, unparseable bytes).
Merges of such replicas hit every rule of spec 5 within a few examples.
"""

from __future__ import annotations

import functools
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


@functools.cache
def sessions(max_items: int = 4) -> st.SearchStrategy[dict]:
    """A version-1 session object (as `json.loads` would give it).

    Cached: strategies are immutable, and building this one is costly enough
    to matter when a composite strategy draws from it on every example."""
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


# --- crowding: more items than the declared caps hold ------------------------
#
# The identity alphabet above has six texts, fewer than most caps, so cap
# rotation, parking and re-splitting (spec 4.1, 5.2) would never happen.
# Fillers are numbered items with distinct dates, drawn as one count so that
# they shrink away whole. Both replicas draw from the same numbered names, so
# crowded lists collide too.

FILLER_TEXT = {
    "goals": "goal {n:02d}",
    "next_actions": "task {n:02d}",
    "parked_actions": "task {n:02d}",
    "completed_actions": "task {n:02d}",
    "completed_goals": "goal {n:02d}",
    "open_questions": "question {n:02d}",
    "decisions": "decision {n:02d}",
}
CROWDABLE = (*FILLER_TEXT, "history")


def filler_date(n: int) -> str:
    """Distinct instants a minute apart, between the INSTANTS above."""
    return f"2026-02-01T{n // 60:02d}:{n % 60:02d}:00.000Z"


def crowd_limit(name: str, caps: dict) -> int:
    """Enough items to overflow the list's cap (for actions: live and parked together)."""
    if name in ("next_actions", "parked_actions"):
        return caps["next_actions"] + caps["parked_actions"] + 2
    if name == "history":
        return caps["history"] + 2
    return caps[name] + 2


def filler_items(name: str, count: int, offset: int, machine_id: str) -> list[dict]:
    """`count` numbered items of list `name`, dated from `offset` minutes on."""
    if name == "history":
        return [{"date": filler_date(offset + n), "machine_id": machine_id, "summary": f"session {n:02d}"}
                for n in range(count)]
    from conformance.model.session import DATE_FIELD

    field = DATE_FIELD[name]
    items = []
    for n in range(count):
        item = {"text": FILLER_TEXT[name].format(n=n), field: filler_date(offset + n)}
        if name not in ("completed_actions", "completed_goals"):
            item["machine_id"] = machine_id
        if name == "parked_actions":
            item["parked_at"] = filler_date(offset + n + 1)
        items.append(item)
    return items


def fillers(name: str, limit: int) -> st.SearchStrategy[list[dict]]:
    return st.builds(filler_items, st.just(name), st.integers(0, limit), st.integers(0, 5), machine_ids())


def default_caps(caps: dict | None = None) -> dict:
    from conformance.model.session import DEFAULT_CAPS

    return {**DEFAULT_CAPS, **(caps or {})}


def crowded_sessions(caps: dict | None = None, max_items: int = 4) -> st.SearchStrategy[dict]:
    """`sessions()`, and about one time in four some lists crowded past their caps."""
    return _crowded_sessions(tuple(sorted(default_caps(caps).items())), max_items)


@functools.cache
def _crowded_sessions(caps_items: tuple, max_items: int) -> st.SearchStrategy[dict]:
    caps = dict(caps_items)
    base = sessions(max_items)
    crowd = {name: fillers(name, crowd_limit(name, caps)) for name in CROWDABLE}
    which = st.lists(st.sampled_from(CROWDABLE), min_size=1, max_size=3, unique=True)
    one_in_four = st.integers(0, 3)

    @st.composite
    def build(draw) -> dict:
        session = draw(base)
        if draw(one_in_four) != 0:
            return session
        session = {**session, "current": dict(session["current"])}
        for name in draw(which):
            extra = draw(crowd[name])
            if name == "history":
                session["history"] = list(session.get("history", [])) + extra
            else:
                session["current"][name] = list(session["current"].get(name, [])) + extra
        return session

    return build()


def as_text(session: dict) -> str:
    return json.dumps(session, indent=2)


@functools.cache
def _degraded_texts(caps_items: tuple, max_items: int) -> st.SearchStrategy[str]:
    caps = dict(caps_items)
    newer = crowded_sessions(caps, max_items).map(lambda s: json.dumps({**s, "version": 2}))
    broken = crowded_sessions(caps, max_items).map(lambda s: as_text(s)[: len(as_text(s)) // 2])
    return st.one_of(newer, broken)


def degraded_texts(caps: dict | None = None, max_items: int = 4) -> st.SearchStrategy[str]:
    """A replica that must contribute nothing to a merge (spec 6): a newer version, or cut short."""
    return _degraded_texts(tuple(sorted(default_caps(caps).items())), max_items)


def crowded_replica_texts(caps: dict | None = None, max_items: int = 4) -> st.SearchStrategy[str]:
    """`replica_texts()` over crowded sessions: mostly valid, now and then degraded."""
    valid = crowded_sessions(caps, max_items).map(as_text)
    return st.one_of(valid, valid, valid, valid, degraded_texts(caps, max_items))


# --- stale replicas: copies that have not pulled the tombstones -------------

def _purged_texts() -> dict[str, str]:
    """text_hash -> a text with that identity, for un-purging the alphabet's decisions."""
    return {text_hash(text): text for text in BASE_TEXTS}


STALE_DATES = (None, "1999-12-31", "2026-01-01")


@st.composite
def stale_replicas(draw, replicas: list[dict]) -> dict:
    """A replica still holding un-hidden, un-purged and un-completed copies of
    what `replicas` tombstoned, with any dates (spec 5.3: the resurrection case),
    and none of the tombstones themselves."""
    purged = _purged_texts()
    decisions, actions, goals = [], [], []
    for replica in replicas:
        current = replica.get("current", {}) if isinstance(replica, dict) else {}
        for decision in current.get("decisions", []) if isinstance(current.get("decisions"), list) else []:
            if not isinstance(decision, dict) or decision.get("hidden") is not True:
                continue
            text = purged.get(decision.get("text_hash")) if "text_hash" in decision else decision.get("text")
            if not isinstance(text, str):
                continue
            copy = {"text": draw(st.sampled_from(text_variants(text))), "why": "stale copy"}
            decisions.append(with_date(copy, "date", draw(dates())))
        for name, field, target in (("completed_actions", "added", actions), ("completed_goals", "set_on", goals)):
            for tombstone in current.get(name, []) if isinstance(current.get(name), list) else []:
                if not isinstance(tombstone, dict) or not isinstance(tombstone.get("text"), str):
                    continue
                # A copy added no later than the completion: it must stay suppressed.
                added = draw(st.sampled_from((tombstone.get("done_at"), *STALE_DATES)))
                target.append(with_date({"text": draw(st.sampled_from(text_variants(tombstone["text"])))},
                                        field, added if isinstance(added, str) else None))
    extra = draw(sessions(max_items=2))
    current = {**extra["current"], "completed_actions": [], "completed_goals": []}
    current["decisions"] = draw(st.permutations(decisions)) + list(extra["current"].get("decisions", []))
    current["next_actions"] = draw(st.permutations(actions)) + list(extra["current"].get("next_actions", []))
    current["goals"] = goals + list(extra["current"].get("goals", []))
    return {**extra, "current": current}


# --- writer operations ----------------------------------------------------------

def writer_texts() -> st.SearchStrategy[str]:
    """Texts for writer ops: the colliding alphabet (spec 5.1), never blank."""
    return identity_texts()


def initial_session_texts() -> st.SearchStrategy[str | None]:
    """What a store holds before a writer touches it: nothing, a small valid
    session with unknown keys the writer must keep (spec 3.2, 6), or bytes
    that are not JSON and must be quarantined, never discarded (spec 4.1)."""
    known = st.fixed_dictionaries({
        "version": st.just(1),
        "x_top_level": unknown_values(),
        "current": st.fixed_dictionaries({
            "x_future_list": st.lists(unknown_values(), max_size=2),
            "next_actions": st.lists(
                st.builds(lambda item, extra: {**item, "x_item_field": extra}, list_items("added"), unknown_values()),
                max_size=2, unique_by=lambda item: text_hash(item["text"])),
        }),
    }).map(as_text)
    broken = st.sampled_from(['{"version": 1, "current": {', "not json at all\n"])
    return st.one_of(st.none(), known, known, broken)
