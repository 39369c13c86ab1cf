"""Realistic mistakes at the edge of a rule, each caught by the boundary vector written for it.

Each test is the reference model with one mistake an implementer outside the
project could make on an ordinary library, at an edge the corpus once had no
vector for; it must lose a level, and the vector named must be the one that
shows it. (The planted mutants of runners/mutants/ are scored by
`memoir-conform mutants`; these guard the vectors against being weakened.)
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from conformance.model import entry as model_entry
from conformance.model import identity as model_identity
from conformance.model import store as model_store
from conformance.model import writer as model_writer
from conformance.model.identity import item_key
from conformance.runner.implementations import ModelImplementation

from verdict_support import failing, graded_run


def run(corpus, reference_results, tmp_path, ops):
    return graded_run(corpus, reference_results, ModelImplementation(), ops, tmp_path)


def test_identities_normalised_to_nfc_lose_full(corpus, reference_results, tmp_path, monkeypatch):
    # 5.1: trimmed and case-folded, nothing more; a purged hash of the NFD text no longer matches.
    monkeypatch.setattr(model_identity, "normalize", lambda text: unicodedata.normalize("NFC", text).strip().casefold())
    graded, result = run(corpus, reference_results, tmp_path, ["read_store", "merge_sessions"])
    assert result.earned is None
    assert {"read.canonical-equivalent.purged-hash-of-decomposed-text",
            "merge.canonical-equivalent.precomposed-and-decomposed-are-two-items"} <= set(failing(graded))


def _updates_then_rewrites(monkeypatch, rewrite):
    """update_entry as the model does it, then the entry file's text passed through `rewrite`."""
    update = model_store.update_entry

    def update_entry(store, link, *args):
        update(store, link, *args)
        path = Path(store) / "memory" / f"{link}.md"
        path.write_text(rewrite(path.read_text(encoding="utf-8")), encoding="utf-8")

    monkeypatch.setattr(model_store, "update_entry", update_entry)


def _last_line_popped(text):
    lines = text.split("\n")
    lines.pop()  # meant for the empty string after a final newline
    return "\n".join(lines) + "\n"


def _origin_keeps_known_keys(text):
    kept, in_origin = [], False
    for line in text.splitlines(keepends=True):
        if not line.startswith(" "):
            in_origin = line.startswith("origin:")
        elif in_origin and not line.strip().startswith(("tool:", "session_id:", "machine_id:")):
            continue
        kept.append(line)
    return "".join(kept)


@pytest.mark.parametrize("rewrite, vector_id", [
    (_last_line_popped, "write.entry-edit.body-without-final-newline-kept"),
    # 3.2: writers MUST preserve fields they do not recognise, inside a known mapping too.
    (_origin_keeps_known_keys, "write.entry-edit.unknown-key-in-known-mapping-kept"),
])
def test_an_update_that_loses_what_it_was_not_asked_to_change_loses_writer(corpus, reference_results, tmp_path,
                                                                           monkeypatch, rewrite, vector_id):
    _updates_then_rewrites(monkeypatch, rewrite)
    graded, result = run(corpus, reference_results, tmp_path, ["update_entry"])
    assert result.earned == "reader"
    assert failing(graded) == [vector_id]


def test_a_readded_parked_action_that_rotation_parks_again_loses_writer(corpus, reference_results, tmp_path,
                                                                       monkeypatch):
    # 4.1: adding a parked identity MUST return it to next_actions, even when it is older than every live one.
    def add_next_action(session, *, text, stamp, caps):
        key = model_writer._identity(text)
        parked = [action for action in session["current"]["parked_actions"] if item_key(action) == key]
        if not parked:
            return add(session, text=text, stamp=stamp, caps=caps)
        session = model_writer._begin(session, stamp)
        current = session["current"]
        current["parked_actions"] = [action for action in current["parked_actions"] if item_key(action) != key]
        current["next_actions"].append({k: v for k, v in parked[0].items() if k != "parked_at"})
        current["next_actions"], overflow = model_writer._rotate_oldest(current["next_actions"], "added",
                                                                       caps["next_actions"])
        current["parked_actions"] += [{**action, "parked_at": stamp.now} for action in overflow]
        return session, []

    add = model_writer.SESSION_OPS["add_next_action"]
    monkeypatch.setitem(model_writer.SESSION_OPS, "add_next_action", add_next_action)
    graded, result = run(corpus, reference_results, tmp_path, ["add_next_action"])
    assert result.earned == "reader"
    assert "write.cap-size.readd-oldest-parked-with-live-at-cap" in failing(graded)


def test_entry_files_merged_by_updated_as_text_lose_full(corpus, reference_results, tmp_path, monkeypatch):
    # 5.2: dates compare as instants; 09:00Z is later than 10:00+02:00, though it sorts first as text.
    def newest_entry(readings):
        def updated(reading):
            value = reading[0].get("updated") or reading[0].get("created")
            return value if isinstance(value, str) else ""
        return max(readings, key=lambda reading: (updated(reading), reading[1]))[1]

    monkeypatch.setattr(model_store, "_newest_entry", newest_entry)
    graded, result = run(corpus, reference_results, tmp_path, ["merge_stores"])
    assert result.earned == "writer"
    assert "merge.entry-recency.offset-updated-compared-as-instant" in failing(graded)


def test_a_done_goal_entry_without_set_on_shown_live_loses_reader(corpus, reference_results, tmp_path, monkeypatch):
    # 5.2: a missing date compares as the epoch, so a goal entry with done_at and no set_on is done (5.3.2, 8).
    is_live = model_entry.is_live

    def shown_live_when_undated(entry):
        field = model_entry.TEMPORAL_DATE_FIELDS.get(entry["type"])
        if field and "done_at" in entry["fields"] and field not in entry["fields"]:
            return True
        return is_live(entry)

    monkeypatch.setattr(model_store, "is_live", shown_live_when_undated)
    graded, result = run(corpus, reference_results, tmp_path, ["read_store"])
    assert result.earned is None
    assert "read.entry-visibility.goal-entry-done-without-set-on" in failing(graded)
