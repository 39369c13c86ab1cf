#!/usr/bin/env python3
"""Mutant 08: completed_goals ignored in merge.

Breaks spec 5.3.2 (v0.1.2: the temporal-tombstone rule applies to the
session's `goals` against `completed_goals`, compared on `set_on`),
requirement S5.3.2-goals-completed-goals. Level: full.

A merge written before `completed_goals` existed: it neither unions the
goal tombstones nor applies them, and carries the local list through
untouched, so a retired goal returns from any replica still holding it.
"""

from __future__ import annotations

from _mutant import serve_mutant, wrap


def mutate() -> None:
    from conformance.model import merge

    def merge_current(original, local, remote, caps, parked_at):
        """merge_current blind to completed_goals"""
        merged = original({**local, "completed_goals": []}, {**remote, "completed_goals": []}, caps, parked_at)
        merged["completed_goals"] = list(local["completed_goals"])
        return merged

    wrap(merge, "merge_current", merge_current)


if __name__ == "__main__":
    raise SystemExit(serve_mutant(__file__, mutate))
