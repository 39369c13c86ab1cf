#!/usr/bin/env python3
"""Mutant 40: completing an identity that already has a tombstone appends a second one.

Breaks spec 5.3.2 (completing records `{ text, done_at }`; the tombstones
of one identity are one, keeping the newest `done_at`) and spec 5.1 (two
items with the same normalized text are the same item), requirements
S5.3.2-complete-removes-and-records and S5.1-same-identity-same-item.
Level: writer.

`completed_actions.push(...)` without looking: an action (or goal) done,
re-added and done again holds two tombstones of one identity.
"""

from __future__ import annotations

from _mutant import replace, serve_mutant


def mutate() -> None:
    from conformance.model import writer

    def _record_tombstone(tombstones, text, now, cap):
        return writer._rotate_oldest(list(tombstones) + [{"text": text, "done_at": now}], "done_at", cap)[0]

    replace(writer, "_record_tombstone", _record_tombstone)


if __name__ == "__main__":
    raise SystemExit(serve_mutant(__file__, mutate))
