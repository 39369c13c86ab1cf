#!/usr/bin/env python3
"""Mutant 09: unknown keys under `current` dropped by merge.

Breaks spec 5.4 (v0.1.2: a merge MUST carry every key under `current` that
it does not recognise), requirement S5.4-unknown-current-keys-pass-through.
Level: full.

The merged `current` is rebuilt from the lists this merger knows.
"""

from __future__ import annotations

from _mutant import serve_mutant, wrap


def mutate() -> None:
    from conformance.model import merge
    from conformance.model.session import KNOWN_LISTS

    def merge_current(original, local, remote, caps, parked_at):
        """merge_current rebuilt from the known lists only"""
        merged = original(local, remote, caps, parked_at)
        return {key: value for key, value in merged.items() if key in KNOWN_LISTS}

    wrap(merge, "merge_current", merge_current)


if __name__ == "__main__":
    raise SystemExit(serve_mutant(__file__, mutate))
