#!/usr/bin/env python3
"""Mutant 45: an unparseable session.json is quarantined under one fixed name.

Breaks spec 4.1 (readers encountering unparseable JSON MUST NOT discard the
file silently: quarantine the original), requirement
S4.1-unparseable-not-discarded. Level: writer.

The writer copies the bad file to `session.json.corrupt` before it
replaces it. The first corruption is kept; the second overwrites the copy,
and the first original is gone.
"""

from __future__ import annotations

from _mutant import replace, serve_mutant


def mutate() -> None:
    from conformance.model import store

    def quarantine(path, now):
        """a copy under a fixed name, overwritten by the next one"""
        target = path.with_name(path.name + ".corrupt")
        store.atomic_write(target, path.read_bytes())
        return target

    replace(store, "quarantine", quarantine)


if __name__ == "__main__":
    raise SystemExit(serve_mutant(__file__, mutate))
