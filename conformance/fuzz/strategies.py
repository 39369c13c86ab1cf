"""Hypothesis strategies for memoir sessions, built to collide.

Small pieces that compose: identities drawn from a tiny alphabet with case
and whitespace variants of the same text, dates drawn from a handful of
instants written several ways (date-only, offsets, missing, unparseable),
items per session list, tombstones, whole replicas, and now and then a
replica that must contribute nothing (newer version, unparseable bytes).
Merges of such replicas hit every rule of spec 5 within a few examples.

`sessions`, `replica_texts`, `degraded_replica_texts` and `json_values` are
the plain pieces (the model's own property tests use them). `memoir-conform fuzz` draws pairs
with `colliding_sessions` (two replicas drawn entry by entry, each item
with what the other replica holds of it), `crowding` (lists past their
caps), `degrade`, `stale_replicas`, and for the writer machine
`initial_session_texts` and `writer_texts` (docs/fuzzing.md).
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

# Every character but a surrogate: the alphabet of `st.text()`, which names it as
# `characters(codec="utf-8")`. Hypothesis works a codec's alphabet out by encoding
# all 1.1 million code points (seconds) unless its cache directory holds the result,
# and `memoir-conform fuzz` gives it a fresh one each run; by category it is instant.
TEXT = st.characters(exclude_categories=("Cs",))


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


def decision_form(item: dict, kind: str, hidden_at: str) -> dict:
    """A decision as it is (`visible`), tombstoned (`hidden`) or redacted (`purged`) (spec 5.3.1)."""
    if kind == "visible":
        return item
    hidden = {**item, "hidden": True, "hidden_at": hidden_at}
    if kind == "hidden":
        return hidden
    purged = {k: v for k, v in hidden.items() if k not in ("why", "rejected")}
    return {**purged, "text": PURGED_TEXT, "text_hash": text_hash(item["text"])}


def decisions() -> st.SearchStrategy[dict]:
    """Visible, hidden and purged decisions (spec 5.3.1)."""

    item = list_items("date", extra={"why": st.just("because"), "rejected": st.just("the other one")})
    return st.builds(decision_form, item, st.sampled_from(["visible", "visible", "hidden", "purged"]), dates(False))


# Integers a JSON implementation must keep exactly (RFC 7493, I-JSON): beyond
# 2**53 many parsers round, which says nothing about the memoir format.
SAFE_INTEGER = 2**53 - 1


@functools.cache
def interoperable_unknown_values() -> st.SearchStrategy[object]:
    """Values of keys a reader does not know, within I-JSON's number range."""
    integers = st.integers(-SAFE_INTEGER, SAFE_INTEGER)
    return st.one_of(integers, st.text(TEXT, max_size=5), st.lists(integers, max_size=2))


@functools.cache
def unknown_values() -> st.SearchStrategy[object]:
    return st.one_of(st.integers(), st.text(TEXT, max_size=5), st.lists(st.integers(), max_size=2))


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
    valid = _valid_texts(max_items)
    return st.one_of(valid, valid, valid, valid, *_degraded_texts(max_items))


def degraded_replica_texts(max_items: int = 4) -> st.SearchStrategy[str]:
    """The bytes of a session.json that must contribute nothing to a merge (spec 6)."""
    return st.one_of(*_degraded_texts(max_items))


def _valid_texts(max_items: int) -> st.SearchStrategy[str]:
    return sessions(max_items).map(lambda s: json.dumps(s, indent=2))


def _degraded_texts(max_items: int) -> tuple[st.SearchStrategy[str], ...]:
    """A newer version, and a valid file cut short."""
    newer = sessions(max_items).map(lambda s: json.dumps({**s, "version": 2}))
    broken = _valid_texts(max_items).map(lambda text: text[: len(text) // 2])
    return newer, broken


def json_values() -> st.SearchStrategy[object]:
    """Arbitrary JSON, for migration-never-throws properties."""
    scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(TEXT, max_size=8))
    return st.recursive(
        scalars,
        lambda inner: st.one_of(st.lists(inner, max_size=4),
                                st.dictionaries(st.text(TEXT, max_size=8), inner, max_size=4)),
        max_leaves=20,
    )


# --- crowding: more items than the declared caps hold ------------------------
#
# The identity alphabet above has six texts, fewer than most caps, so cap
# rotation, parking and re-splitting (spec 4.1, 5.2) would never happen.
# Fillers are numbered items with distinct dates, drawn as one choice of how
# many (just past the cap, first) so that the shrinker drops them whole by
# turning crowding off. Both replicas draw from the same numbered names at
# shifted dates, so crowded lists collide too.

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


def crowd_counts(name: str, caps: dict) -> tuple[int, ...]:
    """How many fillers to add: just past the list's cap first (for actions also
    just past live and parked together), where the cap rules act (4.1, 5.2)."""
    if name in ("next_actions", "parked_actions"):
        live, both = caps["next_actions"], caps["next_actions"] + caps["parked_actions"]
        return (live + 1, both + 1, live, both + 2, 1)
    cap = caps[name]
    return (cap + 1, cap, cap + 2, max(cap - 1, 0), 1)


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


def fillers(name: str, counts: tuple[int, ...]) -> st.SearchStrategy[list[dict]]:
    return st.builds(filler_items, st.just(name), st.sampled_from(counts), st.integers(0, 5), st.sampled_from(MACHINES))


def default_caps(caps: dict | None = None) -> dict:
    from conformance.model.session import DEFAULT_CAPS

    return {**DEFAULT_CAPS, **(caps or {})}


def crowded_sessions(caps: dict | None = None, max_items: int = 3) -> st.SearchStrategy[dict]:
    """`dense_sessions()`, now and then with some lists crowded past their caps."""
    return _crowded_sessions(tuple(sorted(default_caps(caps).items())), max_items)


@functools.cache
def _crowded_sessions(caps_items: tuple, max_items: int) -> st.SearchStrategy[dict]:
    base = dense_sessions(max_items)
    crowd = crowding(dict(caps_items))

    @st.composite
    def build(draw) -> dict:
        return draw(crowd(draw(base)))

    return build()


def crowding(caps: dict):
    """A function: session -> a strategy of that session, now and then (about
    one time in eight) with some of its lists crowded past their caps by fillers."""
    return _crowding(tuple(sorted(caps.items())))


@functools.cache
def _crowding(caps_items: tuple):
    # Cached (by the caps): `fuzz` asks for it on every example of a chain.
    caps = dict(caps_items)
    crowd = {name: fillers(name, crowd_counts(name, caps)) for name in CROWDABLE}
    which = st.fixed_dictionaries({name: st.booleans() for name in CROWDABLE})
    # Hypothesis favours 0 heavily, so crowding (the costly case) is the 3.
    one_in_four = st.integers(0, 3)

    @st.composite
    def crowded(draw, session: dict) -> dict:
        if draw(one_in_four) != 3:
            return session
        session = {**session, "current": dict(session["current"])}
        for name, chosen in draw(which).items():
            if not chosen:
                continue
            extra = draw(crowd[name])
            if name == "history":
                session["history"] = list(session.get("history", [])) + extra
            else:
                session["current"][name] = list(session["current"].get(name, [])) + extra
        return session

    return crowded


# --- dense replicas: cheap to draw, every rule in reach ----------------------------
#
# Drawing is most of the cost of a run, so these pieces draw an item in one
# or two choices: a (spelling, date) pair from a precomputed table. Tables
# list their simplest entries first, where hypothesis draws most often and
# shrinks to: the first spelling of the first text, a real date.

GOOD_DATES = tuple(spelling for instant in INSTANTS for spelling in instant)
# Real dates twice as often as missing or unparseable ones (None: no field).
DATE_CHOICES = GOOD_DATES + GOOD_DATES + (None, *BAD_DATES)
SPELLINGS = tuple(variant for text in BASE_TEXTS for variant in text_variants(text))
MACHINES = ("m-laptop", "m-desktop", "m-ci")


@functools.cache
def spelled_dates() -> st.SearchStrategy[tuple[str, str | None]]:
    """(text, date) in one draw: a spelling of an identity (5.1) and a date (5.2)."""
    return st.sampled_from([(text, date) for date in DATE_CHOICES for text in SPELLINGS])


@functools.cache
def variants_of(text: str) -> st.SearchStrategy[str]:
    return st.sampled_from(text_variants(text.strip()))


@functools.cache
def cheap_dates(allow_missing: bool = True) -> st.SearchStrategy[str | None]:
    return st.sampled_from(DATE_CHOICES if allow_missing else GOOD_DATES)


def _item(name: str, machine: str, pair: tuple[str, str | None]) -> dict:
    from conformance.model.session import DATE_FIELD

    text, date = pair
    item = {"text": text} if name in ("completed_actions", "completed_goals") else {"text": text, "machine_id": machine}
    return with_date(item, DATE_FIELD[name], date)


DECISION_KINDS = ("visible", "visible", "hidden", "purged")


def _decision(machine: str, pair: tuple[str, str | None], kind: str, hidden_at: str) -> dict:
    item = {**_item("decisions", machine, pair), "why": "because", "rejected": "the other one"}
    return decision_form(item, kind, hidden_at)


@functools.cache
def cheap_items(name: str, machine: str) -> st.SearchStrategy[dict]:
    """One item of list `name` under `current`, stamped by `machine`, in one to three draws."""
    if name == "decisions":
        return st.builds(_decision, st.just(machine), spelled_dates(), st.sampled_from(DECISION_KINDS),
                         cheap_dates(False))
    items = st.builds(_item, st.just(name), st.just(machine), spelled_dates())
    if name == "parked_actions":
        return st.builds(lambda item, at: {**item, "parked_at": at}, items, cheap_dates(False))
    return items


@functools.cache
def cheap_history_rows() -> st.SearchStrategy[dict]:
    def row(machine, summary, session_id, date):
        shaped = {"machine_id": machine, "summary": summary}
        if session_id is not None:
            shaped["session_id"] = session_id
        return with_date(shaped, "date", date)

    return st.sampled_from([row(m, s, i, d) for d in DATE_CHOICES for i in (None, "s-1", "s-2")
                            for s in ("refactor", "tests") for m in MACHINES])


@functools.cache
def cheap_machines() -> st.SearchStrategy[dict]:
    entry = st.sampled_from([with_date({"label": "a"}, "last_seen", d) for d in DATE_CHOICES])
    return st.dictionaries(st.sampled_from(MACHINES), entry, max_size=2)


CURRENT_LISTS = ("goals", "next_actions", "parked_actions", "completed_actions", "completed_goals",
                 "open_questions", "decisions")


@functools.cache
def dense_sessions(max_items: int = 3) -> st.SearchStrategy[dict]:
    """Like `sessions()`, but every list and both stamps are usually there, so
    that two replicas meet on many rules at once, and cheaper to draw. An
    empty list is sometimes left out: absent lists read as empty (spec 4.1)."""
    per_machine = {machine: {name: st.lists(cheap_items(name, machine), max_size=max_items) for name in CURRENT_LISTS}
                   for machine in MACHINES}
    machine_choice = st.sampled_from(MACHINES)
    stamp = st.sampled_from((*GOOD_DATES, None))
    keep = st.booleans()
    rows = st.lists(cheap_history_rows(), max_size=max_items)
    unknown = interoperable_unknown_values()

    @st.composite
    def build(draw) -> dict:
        # One replica is mostly one machine's writing (spec 4.1 machine_id).
        lists = per_machine[draw(machine_choice)]
        current: dict = {}
        for name in CURRENT_LISTS:
            items = draw(lists[name])
            if items or draw(keep):
                current[name] = items
        if draw(keep):
            current["x_future_list"] = [draw(unknown)]
        session: dict = {"version": 1, "current": current}
        for field in ("created_at", "updated_at"):
            value = draw(stamp)
            if value is not None:
                session[field] = value
        session["machines"] = draw(cheap_machines())
        session["history"] = draw(rows)
        if draw(keep):
            session["x_top_level"] = draw(unknown)
        return session

    return build()


# --- colliding pairs: two replicas drawn entry by entry ----------------------------
#
# Each entry of a list is drawn together with what the other replica holds
# of it (nothing, a copy in another spelling with another date, a
# completion, a parked, hidden or purged copy, a re-add), so that the
# shrinker deletes an item and its echo in one step.

PAIR_KINDS = {
    # the first kind is the one hypothesis draws most and shrinks to: nothing
    "goals": ("none", "copy", "copy", "completed"),
    "next_actions": ("none", "copy", "copy", "completed", "parked"),
    "parked_actions": ("none", "copy", "completed", "live"),
    "open_questions": ("none", "copy"),
    "decisions": ("none", "copy", "copy", "hidden", "purged"),
    "completed_actions": ("none", "readd", "readd at done_at"),
    "completed_goals": ("none", "readd", "readd at done_at"),
}
REVIVED = {"completed_actions": ("next_actions", "added"), "completed_goals": ("goals", "set_on")}


@functools.cache
def pair_entries(name: str, machine: str) -> st.SearchStrategy[tuple]:
    """(item of the first replica, what the second holds of it, spelling index, date, second date)."""
    return st.tuples(cheap_items(name, machine), st.sampled_from(PAIR_KINDS[name]), st.integers(0, 6),
                     cheap_dates(), cheap_dates(False))


def _identity_text(item: dict) -> str | None:
    if item.get("hidden") is True and isinstance(item.get("text_hash"), str):
        return _purged_texts().get(item["text_hash"])
    return item.get("text") if isinstance(item.get("text"), str) else None


def place_pair(first: dict, second: dict, name: str, entry: tuple, machine: str) -> None:
    """Put an entry's item in `first` and its echo, if any, in `second` (both `current` dicts)."""
    from conformance.model.session import DATE_FIELD

    item, kind, spelling, date, other_date = entry
    first.setdefault(name, []).append(item)
    text = _identity_text(item)
    if kind == "none" or text is None:
        return
    variant = text_variants(text.strip())[spelling]
    if name in REVIVED:
        live, field = REVIVED[name]
        when = item.get("done_at") if kind == "readd at done_at" else date
        second.setdefault(live, []).append(with_date({"text": variant, "machine_id": machine}, field, when))
        return
    copy = with_date({"text": variant, "machine_id": machine}, DATE_FIELD[name], date)
    if kind == "completed":
        target = "completed_goals" if name == "goals" else "completed_actions"
        second.setdefault(target, []).append(with_date({"text": variant}, "done_at", other_date))
    elif kind == "parked" or (kind == "copy" and name == "parked_actions"):
        second.setdefault("parked_actions", []).append({**copy, "parked_at": other_date})
    elif kind == "live":
        second.setdefault("next_actions", []).append(copy)
    elif kind in ("hidden", "purged"):
        hidden = {**copy, "hidden": True, "hidden_at": other_date}
        if kind == "purged":
            hidden = {**hidden, "text": PURGED_TEXT, "text_hash": text_hash(variant)}
        second.setdefault("decisions", []).append(hidden)
    else:
        second.setdefault(name, []).append(copy)


@functools.cache
def _colliding_sessions(caps_items: tuple, max_items: int) -> st.SearchStrategy[tuple[dict, dict]]:
    caps = dict(caps_items)
    crowd = crowding(caps)
    entries = {m: {name: st.lists(pair_entries(name, m), max_size=max_items) for name in CURRENT_LISTS}
               for m in MACHINES}
    machine = st.sampled_from(MACHINES)
    stamp = st.sampled_from((*GOOD_DATES, None))
    keep = st.booleans()
    unknown = interoperable_unknown_values()
    shared_kind = st.sampled_from(("none", "copy", "same key, other value"))
    machine_entries = st.lists(st.tuples(st.sampled_from(MACHINES), cheap_dates(), st.sampled_from(("none", "copy")),
                                         cheap_dates()), max_size=2, unique_by=lambda entry: entry[0])
    history_entries = st.lists(st.tuples(cheap_history_rows(), st.sampled_from(("none", "copy", "redated")),
                                         cheap_dates()), max_size=max_items)

    def unknown_pair(draw, first: dict, second: dict, key: str) -> None:
        kind = draw(shared_kind)
        if kind == "none" and not draw(keep):
            return
        first[key] = draw(unknown)
        if kind == "copy":
            second[key] = first[key]
        elif kind == "same key, other value":
            second[key] = draw(unknown)

    @st.composite
    def build(draw) -> tuple[dict, dict]:
        first_machine, second_machine = draw(machine), draw(machine)
        first_current: dict = {}
        second_current: dict = {}
        for name in CURRENT_LISTS:
            for entry in draw(entries[first_machine][name]):
                place_pair(first_current, second_current, name, entry, second_machine)
        for current in (first_current, second_current):
            for name in CURRENT_LISTS:
                # An absent list reads as empty (spec 4.1): leave some out.
                if name not in current and draw(keep):
                    current[name] = []
        unknown_pair(draw, first_current, second_current, "x_future_list")
        first = {"version": 1, "current": first_current}
        second = {"version": 1, "current": second_current}
        for session in (first, second):
            for field in ("created_at", "updated_at"):
                value = draw(stamp)
                if value is not None:
                    session[field] = value
        first["machines"], second["machines"] = {}, {}
        for uuid, seen, kind, seen_elsewhere in draw(machine_entries):
            first["machines"][uuid] = with_date({"label": "here"}, "last_seen", seen)
            if kind == "copy":
                second["machines"][uuid] = with_date({"label": "there"}, "last_seen", seen_elsewhere)
        first["history"], second["history"] = [], []
        for row, kind, other_date in draw(history_entries):
            first["history"].append(row)
            if kind == "copy":
                second["history"].append(dict(row))
            elif kind == "redated":
                second["history"].append(with_date({k: v for k, v in row.items() if k != "date"}, "date", other_date))
        unknown_pair(draw, first, second, "x_top_level")
        first, second = draw(crowd(first)), draw(crowd(second))
        return (second, first) if draw(keep) else (first, second)

    return build()


def colliding_sessions(caps: dict | None = None, max_items: int = 3) -> st.SearchStrategy[tuple[dict, dict]]:
    """Two session objects built to collide, entry by entry (`place_pair`); either may come first."""
    return _colliding_sessions(tuple(sorted(default_caps(caps).items())), max_items)


def degrade(session: dict, newer: bool) -> str:
    """The replica as bytes it must contribute nothing from (spec 6): a newer version, or cut short."""
    if newer:
        return json.dumps({**session, "version": 2}, indent=2)
    text = as_text(session)
    return text[: len(text) // 2]


@functools.cache
def _colliding_pairs(caps_items: tuple, max_items: int) -> st.SearchStrategy[tuple[str, str]]:
    sessions_ = colliding_sessions(dict(caps_items), max_items)
    # Hypothesis favours the simplest choice (0) heavily: 0 is valid, 7 degraded.
    side_kind = st.integers(0, 7)

    @st.composite
    def build(draw) -> tuple[str, str]:
        texts = []
        for session in draw(sessions_):
            texts.append(degrade(session, draw(st.booleans())) if draw(side_kind) == 7 else as_text(session))
        return texts[0], texts[1]

    return build()


def colliding_pairs(caps: dict | None = None, max_items: int = 3) -> st.SearchStrategy[tuple[str, str]]:
    """Two replica texts built to collide (`colliding_sessions`); now and then
    (about one side in sixteen) one is degraded (a newer version or cut short: spec 6)."""
    return _colliding_pairs(tuple(sorted(default_caps(caps).items())), max_items)


@functools.cache
def _one_side_degraded(caps_items: tuple, max_items: int) -> st.SearchStrategy[tuple[str, str]]:
    sessions_ = colliding_sessions(dict(caps_items), max_items)

    @st.composite
    def build(draw) -> tuple[str, str]:
        a, b = draw(sessions_)
        bad = degrade(b, draw(st.booleans()))
        return (as_text(a), bad) if draw(st.booleans()) else (bad, as_text(a))

    return build()


def one_side_degraded(caps: dict | None = None, max_items: int = 3) -> st.SearchStrategy[tuple[str, str]]:
    """Colliding replica texts of which exactly one is degraded (spec 6)."""
    return _one_side_degraded(tuple(sorted(default_caps(caps).items())), max_items)


def as_text(session: dict) -> str:
    return json.dumps(session, indent=2)


# --- stale replicas: copies that have not pulled the tombstones -------------

@functools.cache
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
            copy = {"text": draw(variants_of(text)), "why": "stale copy"}
            decisions.append(with_date(copy, "date", draw(cheap_dates())))
        for name, field, target in (("completed_actions", "added", actions), ("completed_goals", "set_on", goals)):
            for tombstone in current.get(name, []) if isinstance(current.get(name), list) else []:
                if not isinstance(tombstone, dict) or not isinstance(tombstone.get("text"), str):
                    continue
                # A copy added at or (mostly) before the completion: it must stay suppressed.
                added = draw(st.sampled_from((tombstone.get("done_at"), *STALE_DATES)))
                target.append(with_date({"text": draw(variants_of(tombstone["text"]))},
                                        field, added if isinstance(added, str) else None))
    extra = draw(dense_sessions(max_items=2))
    current = {**extra["current"], "completed_actions": [], "completed_goals": []}
    current["decisions"] = decisions + list(extra["current"].get("decisions", []))
    current["next_actions"] = actions + list(extra["current"].get("next_actions", []))
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
        "x_top_level": interoperable_unknown_values(),
        "current": st.fixed_dictionaries({
            "x_future_list": st.lists(interoperable_unknown_values(), max_size=2),
            "next_actions": st.lists(
                st.builds(lambda item, extra: {**item, "x_item_field": extra}, list_items("added"),
                          interoperable_unknown_values()),
                max_size=2, unique_by=lambda item: text_hash(item["text"])),
        }),
    }).map(as_text)
    broken = st.sampled_from(['{"version": 1, "current": {', "not json at all\n"])
    return st.one_of(st.none(), known, known, broken)
