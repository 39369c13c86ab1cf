#!/usr/bin/env python3
"""Mutant 03: hidden is not sticky: the date winner drops the loser's tombstone.

Breaks spec 5.3.1 (stickiness rule: if any copy of an identity on either
side carries `hidden: true`, the merged copy does, regardless of the date
comparison), requirements S5.3.1-hidden-sticky and
S5.3.1-hidden-inherited-by-winner. Level: full.

Hiding is treated as just another field of whichever copy has the newer
`date`, so a newer un-hidden copy resurrects the decision.
"""

from __future__ import annotations

from _mutant import replace, serve_mutant


def mutate() -> None:
    from conformance.model import merge

    def merge_decisions(copies, cap):
        merged = list(merge.newest_per_identity(copies, merge.decision_rank).values())
        hidden = [d for d in merged if d.get("hidden") is True]
        visible = merge.oldest_out([d for d in merged if d.get("hidden") is not True], "date", cap)
        return merge.chronological(hidden + visible, "date")

    replace(merge, "merge_decisions", merge_decisions)


if __name__ == "__main__":
    raise SystemExit(serve_mutant(__file__, mutate))
