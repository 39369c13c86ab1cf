"""Merging two session replicas: spec section 5, exactly.

Every list merges the same way: pool the copies of both sides, group them
by identity (5.1), keep one winner per identity (5.2: newest date wins; for
decisions the purged form first and hidden sticky, 5.3.1), then apply the
temporal tombstones (5.3.2) and the caps. Winners are chosen by a total
order over the copies, so the result does not depend on which side is
local: merge is commutative except for unknown keys, where local wins
(5.4). Ties on equal dates are broken by the canonical JSON of the copies
(AMB-TIE).
"""

from __future__ import annotations

import json
from typing import Callable, Iterable

from conformance.model import dates
from conformance.model.identity import is_purged, item_key
from conformance.model.session import (
    DEFAULT_CAPS,
    KNOWN_LISTS,
    KNOWN_TOP_LEVEL,
    KNOWN_VERSION,
    empty_session,
    is_suppressed,
    load_session_text,
)


def canonical(value: object) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def by_date(field: str) -> Callable[[dict], tuple]:
    """The rank of a copy under newest-wins: its date (epoch when missing), then the tie-break."""
    return lambda item: (dates.sort_key(item.get(field)), canonical(item))


def decision_rank(item: dict) -> tuple:
    """The purged form beats any un-purged copy regardless of date (5.3.1).
    Of copies with equal dates a hidden one wins (AMB-TIE): a winner that
    only inherits the tombstone would change its own rank, and re-merging
    the result with an input would then pick the other copy (5.4, idempotent)."""
    date, tie_break = by_date("date")(item)
    return (is_purged(item), date, item.get("hidden") is True, tie_break)


def newest_per_identity(items: Iterable[dict], rank: Callable[[dict], tuple]) -> dict[str, dict]:
    winners: dict[str, dict] = {}
    for item in items:
        key = item_key(item)
        if key is not None and (key not in winners or rank(item) > rank(winners[key])):
            winners[key] = item
    return winners


def merge_decisions(copies: list[dict], cap: int) -> list[dict]:
    """Union, newest wins, hidden sticky (5.3.1); the visible cap never evicts a tombstone."""
    winners = newest_per_identity(copies, decision_rank)
    hidden_copies = newest_per_identity((d for d in copies if d.get("hidden") is True), decision_rank)
    merged = []
    for key, winner in winners.items():
        if winner.get("hidden") is not True and key in hidden_copies:
            tombstone = hidden_copies[key]
            winner = {**winner, "hidden": True}
            if "hidden_at" in tombstone:
                winner["hidden_at"] = tombstone["hidden_at"]
        merged.append(winner)
    hidden = [d for d in merged if d.get("hidden") is True]
    visible = oldest_out([d for d in merged if d.get("hidden") is not True], "date", cap)
    return chronological(hidden + visible, "date")


def chronological(items: list[dict], field: str) -> list[dict]:
    return sorted(items, key=lambda item: (dates.sort_key(item.get(field)), item_key(item)))


def oldest_out(items: list[dict], field: str, cap: int) -> list[dict]:
    """Cap rotation: the oldest by the list's date field leave first (4.1)."""
    ordered = chronological(items, field)
    return ordered[max(0, len(ordered) - cap):]


def merge_tombstones(copies: list[dict], cap: int) -> list[dict]:
    """Union by identity keeping the newest done_at, capped newest-first (5.3.2 step 1)."""
    winners = newest_per_identity(copies, by_date("done_at"))
    return oldest_out(list(winners.values()), "done_at", cap)


def tombstones_by_key(tombstones: list[dict]) -> dict[str, dict]:
    return {item_key(t): t for t in tombstones}


def merge_actions(local: dict, remote: dict, tombstones: list[dict], caps: dict, parked_at: str | None):
    """Pool live and parked of both sides, apply the tombstones, re-split (5.2, v0.1.2)."""
    pool = [*local["next_actions"], *local["parked_actions"], *remote["next_actions"], *remote["parked_actions"]]
    winners = newest_per_identity(pool, by_date("added"))
    parked_since = {}
    for item in pool:
        if isinstance(item.get("parked_at"), str):
            key = item_key(item)
            parked_since[key] = max(parked_since.get(key, item["parked_at"]), item["parked_at"], key=_stamp_rank)
    done = tombstones_by_key(tombstones)
    open_actions = [a for a in winners.values() if not is_suppressed(a, done, "added")]
    newest_first = sorted(open_actions, key=lambda a: (dates.sort_key(a.get("added")), item_key(a)), reverse=True)
    live = [{k: v for k, v in a.items() if k != "parked_at"} for a in newest_first[: caps["next_actions"]]]
    parked = []
    for action in newest_first[caps["next_actions"]:][: caps["parked_actions"]]:
        stamp = action.get("parked_at") or parked_since.get(item_key(action)) or parked_at
        parked.append({**action, "parked_at": stamp} if stamp is not None else action)
    return chronological(live, "added"), chronological(parked, "added")


def merge_goals(local: dict, remote: dict, tombstones: list[dict], cap: int) -> list[dict]:
    winners = newest_per_identity([*local["goals"], *remote["goals"]], by_date("set_on"))
    done = tombstones_by_key(tombstones)
    return oldest_out([g for g in winners.values() if not is_suppressed(g, done, "set_on")], "set_on", cap)


def merge_current(local: dict, remote: dict, caps: dict, parked_at: str | None) -> dict:
    completed_actions = merge_tombstones(
        local["completed_actions"] + remote["completed_actions"], caps["completed_actions"]
    )
    completed_goals = merge_tombstones(local["completed_goals"] + remote["completed_goals"], caps["completed_goals"])
    next_actions, parked_actions = merge_actions(local, remote, completed_actions, caps, parked_at)
    questions = newest_per_identity([*local["open_questions"], *remote["open_questions"]], by_date("asked"))
    merged = {
        "goals": merge_goals(local, remote, completed_goals, caps["goals"]),
        "next_actions": next_actions,
        "parked_actions": parked_actions,
        "completed_actions": completed_actions,
        "completed_goals": completed_goals,
        "open_questions": oldest_out(list(questions.values()), "asked", caps["open_questions"]),
        "decisions": merge_decisions(local["decisions"] + remote["decisions"], caps["decisions"]),
    }
    return {**merged, **unknown_keys(local, remote, KNOWN_LISTS)}


def unknown_keys(local: dict, remote: dict, known: Iterable[str]) -> dict:
    """Keys this model does not recognise pass through, the local copy winning (5.4, v0.1.2)."""
    known = set(known)
    passed = {key: value for key, value in remote.items() if key not in known}
    passed.update({key: value for key, value in local.items() if key not in known})
    return passed


def merge_machines(local: dict, remote: dict) -> dict:
    """Per UUID, the entry with the newer last_seen (5.2 step 3)."""
    merged = dict(local)
    for uuid, entry in remote.items():
        if uuid not in merged or by_date("last_seen")(entry) > by_date("last_seen")(merged[uuid]):
            merged[uuid] = entry
    return merged


def history_key(row: dict) -> str:
    """session_id when present (4.1, v0.1.2), else (date, machine_id, summary) (5.2) (AMB-HISTORY-KEY)."""
    session_id = row.get("session_id")
    if isinstance(session_id, str) and session_id:
        return canonical(["session_id", session_id])
    return canonical(["row", row.get("date"), row.get("machine_id"), row.get("summary")])


def merge_history(local: list[dict], remote: list[dict], cap: int) -> list[dict]:
    """Union, deduplicate, newest first, cap (5.2 step 4)."""
    rank = by_date("date")
    rows: dict[str, dict] = {}
    for row in [*local, *remote]:
        key = history_key(row)
        if key not in rows or rank(row) > rank(rows[key]):
            rows[key] = row
    return sorted(rows.values(), key=rank, reverse=True)[:cap]


def _stamp_rank(value: str) -> tuple:
    """Instants first; equal instants written differently by their text, so
    that the choice does not depend on which side is local (5.4)."""
    return dates.sort_key(value), value


def pick_stamp(values: Iterable[object], latest: bool) -> str | None:
    """created_at takes the earlier, updated_at the later (5.2 step 5); an
    absent or unparseable value never wins over a real one (AMB-CREATED-AT)."""
    values = [v for v in values if isinstance(v, str)]
    parsed = [v for v in values if dates.parse_date(v) is not None]
    chooser = max if latest else min
    if not parsed:
        return chooser(values) if values else None
    return chooser(parsed, key=_stamp_rank)


def merge_sessions(local: dict, remote: dict, caps: dict | None = None) -> dict:
    """Merge two loaded (sanitized) sessions. `local` wins only for unknown keys."""
    caps = {**DEFAULT_CAPS, **(caps or {})}
    merged: dict = {"version": KNOWN_VERSION}
    for field, latest in (("created_at", False), ("updated_at", True)):
        stamp = pick_stamp((local.get(field), remote.get(field)), latest)
        if stamp is not None:
            merged[field] = stamp
    merged["machines"] = merge_machines(local["machines"], remote["machines"])
    parked_at = pick_stamp((local.get("updated_at"), remote.get("updated_at")), latest=True)
    merged["current"] = merge_current(local["current"], remote["current"], caps, parked_at)
    merged["history"] = merge_history(local["history"], remote["history"], caps["history"])
    merged.update(unknown_keys(local, remote, KNOWN_TOP_LEVEL))
    return merged


def merge_session_texts(local_text: str | None, remote_text: str | None, caps: dict | None = None) -> dict:
    """Merge two replicas given as file contents. A side that is absent or
    degraded (unparseable, malformed, newer version) contributes nothing (spec 6)."""
    sides = []
    for text in (local_text, remote_text):
        loaded = load_session_text(text)
        sides.append(loaded.session if loaded.status == "ok" else empty_session())
    return merge_sessions(*sides, caps=caps)
