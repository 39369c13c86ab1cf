#!/usr/bin/env python3
"""Mutant 32: a full tombstone list keeps its first entries and drops the new tombstone.

Breaks spec 5.3.2 (completing records `{ text, done_at }` in
`completed_actions`; tombstones are capped newest-first), requirements
S5.3.2-complete-removes-and-records and S5.3.2-completed-union-newest-done-at.
Level: writer.

The writer appends the tombstone and then cuts the list to its cap from the
front (`slice(0, cap)`): once `completed_actions` or `completed_goals` is
full, a completion removes the item and records nothing, and the next merge
with a stale replica resurrects it.
"""

from __future__ import annotations

from _mutant import replace, serve_mutant


def mutate() -> None:
    from conformance.model import writer
    from conformance.model.identity import text_hash

    def _record_tombstone(tombstones, text, now, cap):
        kept, _ = writer._without(tombstones, text_hash(text))
        return (kept + [{"text": text, "done_at": now}])[:cap]

    replace(writer, "_record_tombstone", _record_tombstone)


if __name__ == "__main__":
    raise SystemExit(serve_mutant(__file__, mutate))
