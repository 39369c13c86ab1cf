#!/usr/bin/env python3
"""Mutant 18: the reader renders hidden decisions.

Breaks spec 5.3.1 (hidden decisions are excluded from rendering) and spec 8
(a Reader MUST honor tombstone visibility: never display `hidden` decisions
as live), requirements S5.3.1-hidden-not-rendered and
S8-reader-tombstone-visibility. Level: reader.
"""

from __future__ import annotations

import copy

from _mutant import serve_mutant, wrap


def mutate() -> None:
    from conformance.model import session

    def render(original, loaded):
        """render that does not look at `hidden`"""
        loaded = copy.deepcopy(loaded)
        for decision in loaded.get("current", {}).get("decisions", []):
            decision.pop("hidden", None)
        return original(loaded)

    wrap(session, "render", render)


if __name__ == "__main__":
    raise SystemExit(serve_mutant(__file__, mutate))
