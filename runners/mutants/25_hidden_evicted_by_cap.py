#!/usr/bin/env python3
"""Mutant 25: hidden tombstones are evicted by the visible decisions cap.

Breaks spec 5.3.1 (hidden decisions are retained in the data so that the
tombstone keeps propagating; hiding suppresses permanently), spec 4.1 (a cap
on the visible list is a rendering budget, not permission to forget) and
spec 5.4 (monotone suppression), requirements S5.3.1-hidden-retained and
S5.4-monotone-suppression. Level: full.

A merge caps the decisions list as a whole, oldest `date` out, tombstones
included: an old hidden decision falls off the end, and the next merge with
a replica that still holds it un-hidden resurrects it.
"""

from __future__ import annotations

from _mutant import serve_mutant, wrap


def mutate() -> None:
    from conformance.model import merge

    def merge_decisions(original, copies, cap):
        """merge_decisions with one cap over hidden and visible alike"""
        return merge.oldest_out(original(copies, cap), "date", cap)

    wrap(merge, "merge_decisions", merge_decisions)


if __name__ == "__main__":
    raise SystemExit(serve_mutant(__file__, mutate))
