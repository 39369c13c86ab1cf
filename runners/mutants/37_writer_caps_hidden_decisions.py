#!/usr/bin/env python3
"""Mutant 37: add_decision caps the decisions list with the hidden ones counted in.

Breaks spec 5.3.1 (hidden decisions are retained in the data so that the
tombstone keeps propagating) and spec 4.1 (a cap on the visible list is a
rendering budget, not permission to forget), requirement
S5.3.1-hidden-retained. Level: writer.

Adding a decision rotates the whole list, tombstones included, oldest
`date` out: once more decisions are hidden than the visible cap, adding
one forgets a hidden decision, and the next merge with a replica that still
holds it un-hidden brings it back.
"""

from __future__ import annotations

from _mutant import serve_mutant, wrap_session_op


def mutate() -> None:
    from conformance.model import writer

    def add_decision(original, session, *, caps, **kwargs):
        """add_decision, then one cap over hidden and visible alike"""
        session, log = original(session, caps=caps, **kwargs)
        current = session["current"]
        current["decisions"], _ = writer._rotate_oldest(current["decisions"], "date", caps["decisions"])
        return session, log

    wrap_session_op("add_decision", add_decision)


if __name__ == "__main__":
    raise SystemExit(serve_mutant(__file__, mutate))
