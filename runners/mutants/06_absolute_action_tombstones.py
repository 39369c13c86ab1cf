#!/usr/bin/env python3
"""Mutant 06: absolute tombstones for actions: a re-add after done_at stays suppressed.

Breaks spec 5.3.2 (the action tombstone is temporal on purpose: a copy whose
`added` postdates `done_at` MUST survive; implementations MUST NOT
substitute one tombstone class for the other), requirements
S5.3.2-readd-after-done-survives and S5.3.2-no-class-substitution.
Level: full.

A `completed_actions` entry suppresses its identity whatever the `added`
date, as a `hidden` decision would. Goals keep the temporal rule.
"""

from __future__ import annotations

from _mutant import serve_mutant, wrap


def mutate() -> None:
    from conformance.model import session
    from conformance.model.identity import item_key

    def is_suppressed(original, item, tombstones, date_field):
        """a completed action suppresses every copy, re-adds included"""
        if date_field == "added":
            return item_key(item) in tombstones
        return original(item, tombstones, date_field)

    wrap(session, "is_suppressed", is_suppressed)


if __name__ == "__main__":
    raise SystemExit(serve_mutant(__file__, mutate))
