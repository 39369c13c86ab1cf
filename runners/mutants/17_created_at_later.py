#!/usr/bin/env python3
"""Mutant 17: created_at takes the later of the two values.

Breaks spec 5.2 step 5 (`created_at` takes the earlier of the two;
`updated_at` the later), requirement S5.2-created-at-earlier. Level: full.
"""

from __future__ import annotations

from _mutant import serve_mutant, wrap


def mutate() -> None:
    from conformance.model import merge

    def pick_stamp(original, values, latest):
        """every session stamp takes the later value"""
        return original(values, latest=True)

    wrap(merge, "pick_stamp", pick_stamp)


if __name__ == "__main__":
    raise SystemExit(serve_mutant(__file__, mutate))
