#!/usr/bin/env python3
"""Mutant 46: read_store shows hidden decision entries and completed goal / next_action entries as live.

Breaks spec 8 (a Reader MUST honor tombstone visibility: never display
hidden decisions or completed actions as live) and 5.3.2 (the done_at
comparison applies to goal and next_action entry files), requirements
S8-reader-tombstone-visibility and S5.3.1-hidden-not-rendered. Level: reader.

The reader applies the tombstones of session.json only; every entry file
it can read is shown as live.
"""

from __future__ import annotations

from _mutant import replace, serve_mutant


def mutate() -> None:
    from conformance.model import entry

    def is_live(read):
        """every interpreted entry is live"""
        return read["status"] != "quarantined"

    replace(entry, "is_live", is_live)


if __name__ == "__main__":
    raise SystemExit(serve_mutant(__file__, mutate))
