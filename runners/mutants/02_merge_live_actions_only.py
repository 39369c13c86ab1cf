#!/usr/bin/env python3
"""Mutant 02: merge unions only the live next_actions (parked not pooled, no re-split).

Breaks spec 5.2 step 1 (v0.1.2: the union pools the live *and* parked lists
of both sides, applies the tombstones, then re-splits), requirements
S5.2-next-actions-pool-live-and-parked and S5.2-resplit-newest-live.
Level: full.

The pre-v0.1.2 merge: live lists are unioned and capped (the overflow is
lost), the parked lists are not merged at all: the local one is kept as is.
"""

from __future__ import annotations

from _mutant import replace, serve_mutant


def mutate() -> None:
    from conformance.model import merge
    from conformance.model.session import is_suppressed

    def merge_actions(local, remote, tombstones, caps, parked_at):
        winners = merge.newest_per_identity([*local["next_actions"], *remote["next_actions"]], merge.by_date("added"))
        done = merge.tombstones_by_key(tombstones)
        live = [a for a in winners.values() if not is_suppressed(a, done, "added")]
        return merge.oldest_out(live, "added", caps["next_actions"]), list(local["parked_actions"])

    replace(merge, "merge_actions", merge_actions)


if __name__ == "__main__":
    raise SystemExit(serve_mutant(__file__, mutate))
