#!/usr/bin/env python3
"""Mutant 19: the reader renders completed actions.

Breaks spec 8 (a Reader MUST honor tombstone visibility: never display
completed actions as live) with the suppression rule of spec 5.3.2,
requirement S8-reader-tombstone-visibility. Level: reader.

The render ignores `completed_actions`: an action completed on this machine
but still present in `next_actions` (a stale copy) is shown as open.
"""

from __future__ import annotations

from _mutant import serve_mutant, wrap


def mutate() -> None:
    from conformance.model import session

    def render(original, loaded):
        """render that does not look at completed_actions"""
        current = {**loaded.get("current", {}), "completed_actions": []}
        return original({**loaded, "current": current})

    wrap(session, "render", render)


if __name__ == "__main__":
    raise SystemExit(serve_mutant(__file__, mutate))
