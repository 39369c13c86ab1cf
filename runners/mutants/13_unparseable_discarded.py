#!/usr/bin/env python3
"""Mutant 13: an unparseable session.json is discarded without a quarantine copy.

Breaks spec 4.1 (readers encountering unparseable JSON MUST NOT discard the
file silently: quarantine the original, then degrade to a safe empty state)
and spec 6 (the worst case is a fresh empty state, with the original
quarantined), requirement S4.1-unparseable-not-discarded. Level: writer.

The file is lost on the next write, which replaces it with a fresh session
and keeps no copy of the original bytes.
"""

from __future__ import annotations

from _mutant import replace, serve_mutant


def mutate() -> None:
    from conformance.model import store

    def quarantine(path, now):
        return path  # claims a quarantine, copies nothing

    replace(store, "quarantine", quarantine)


if __name__ == "__main__":
    raise SystemExit(serve_mutant(__file__, mutate))
