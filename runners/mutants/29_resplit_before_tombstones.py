#!/usr/bin/env python3
"""Mutant 29: the next_actions re-split happens before the tombstones are applied.

Breaks spec 5.2 step 1 (for `next_actions` the union pools the live and
parked lists of both sides, *applies the tombstones, then* re-splits),
requirements S5.2-next-actions-pool-live-and-parked and
S5.2-resplit-newest-live. Level: full.

The newest N of the pool are made live, the rest parked, and only then are
completed actions filtered out: a stale copy of a finished action takes a
live slot and leaves it empty, and an open action stays parked.
"""

from __future__ import annotations

from _mutant import serve_mutant, wrap


def mutate() -> None:
    from conformance.model import merge, session

    def merge_actions(original, local, remote, tombstones, caps, parked_at):
        """merge_actions that filters the tombstones after the split"""
        live, parked = original(local, remote, [], caps, parked_at)
        done = merge.tombstones_by_key(tombstones)
        return ([a for a in live if not session.is_suppressed(a, done, "added")],
                [a for a in parked if not session.is_suppressed(a, done, "added")])

    wrap(merge, "merge_actions", merge_actions)


if __name__ == "__main__":
    raise SystemExit(serve_mutant(__file__, mutate))
