#!/usr/bin/env python3
"""Mutant 27: a temporal tombstone suppresses only copies added strictly before done_at.

Breaks spec 5.3.2 (an action is suppressed when its `added` is *not later*
than the tombstone's `done_at`: equal is suppressed), requirement
S5.3.2-suppress-not-later-than-done. Level: full.

The comparison is `<` where the spec says "not later than" (`<=`): a stale
copy added at the very instant its completion was recorded comes back.
The reader's render shares the comparison.
"""

from __future__ import annotations

from _mutant import replace, serve_mutant


def mutate() -> None:
    from conformance.model import dates, session
    from conformance.model.identity import item_key

    def is_suppressed(item, tombstones, date_field):
        tombstone = tombstones.get(item_key(item))
        if tombstone is None:
            return False
        return dates.sort_key(item.get(date_field)) < dates.sort_key(tombstone.get("done_at"))

    replace(session, "is_suppressed", is_suppressed)


if __name__ == "__main__":
    raise SystemExit(serve_mutant(__file__, mutate))
