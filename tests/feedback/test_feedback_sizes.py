"""The smallest vector of a cause: fewest steps, then files, then bytes, as the corpus holds it."""

from __future__ import annotations

from conformance import resources
from conformance.feedback.sizes import Sizer
from feedback_helpers import cached_corpus

CORPUS = cached_corpus((resources.vectors_dir(),))
BY_ID = {vector.id: vector for vector in CORPUS.vectors}


def reported(vector_id: str, sent: list[dict] | None = None, digest: str | None = None) -> dict:
    """A vector as a run report shows it (the fields the sizer reads)."""
    held = BY_ID.get(vector_id)
    return {"id": vector_id, "digest": digest or (held.digest if held else "0" * 64),
            "sent": sent if sent is not None else [{"op": "read_store", "args": {"store": "<scratch>/store"}}]}


def test_a_vector_is_measured_as_expanded_with_the_declared_caps():
    # Its store holds a live list twice the cap long.
    vector = reported("write.cap-size.next-actions-twice-the-cap")
    small, large = Sizer(CORPUS.vectors, {"next_actions": 2}), Sizer(CORPUS.vectors, {"next_actions": 20})
    assert (small.size(vector).steps, small.size(vector).files) == (1, 1)
    assert small.size(vector).bytes < large.size(vector).bytes
    assert not small.size(vector).from_sent


def test_caps_beyond_reason_are_not_expanded():
    vector = reported("write.cap-size.next-actions-twice-the-cap")
    unexpanded = Sizer(CORPUS.vectors, {})
    unexpanded.expands = False
    huge = Sizer(CORPUS.vectors, {"next_actions": 10**12})
    assert not huge.expands
    assert huge.size(vector) == unexpanded.size(vector)


def test_store_files_count_and_a_golden_store_is_larger_than_one_file():
    sizer = Sizer(CORPUS.vectors, {})
    golden = [vector for vector in CORPUS.vectors if vector.op == "read_store" and "dir" in vector.input["store"]]
    single = [vector for vector in CORPUS.vectors if vector.op == "read_store"
              and set(vector.input["store"]) == {"files"} and len(vector.input["store"]["files"]) == 1]
    assert golden and single
    assert sizer.size(reported(single[0].id)).files == 1
    assert sizer.size(reported(golden[0].id)).files > 1
    assert sizer.smallest([reported(golden[0].id), reported(single[0].id)])["id"] == single[0].id


def test_a_vector_the_corpus_does_not_hold_is_measured_from_what_was_sent_and_ranks_last():
    sizer = Sizer(CORPUS.vectors, {})
    changed = reported("read.entry.fact", digest="f" * 64)
    unknown = reported("my.regression", sent=[])
    assert sizer.size(changed).from_sent and sizer.size(unknown).from_sent
    assert sizer.size(unknown).steps == 0
    biggest_held = max((reported(vector.id) for vector in CORPUS.vectors if vector.op == "read_store"),
                       key=sizer.size)
    assert sizer.smallest([unknown, changed, biggest_held])["id"] == biggest_held["id"]
    assert sizer.smallest([changed, unknown])["id"] == "my.regression"


def test_fewer_steps_win_over_fewer_bytes():
    sizer = Sizer(CORPUS.vectors, {})
    steps = {vector.id: sizer.size(reported(vector.id)) for vector in CORPUS.vectors if vector.op == "write"}
    many = max(steps, key=lambda vector_id: (steps[vector_id].steps, -steps[vector_id].bytes))
    one = max((vector_id for vector_id, size in steps.items() if size.steps == 1), key=lambda v: steps[v].bytes)
    assert steps[many].steps > 1 and steps[one].bytes > steps[many].bytes
    assert sizer.smallest([reported(many), reported(one)])["id"] == one
