#!/usr/bin/env python3
"""Mutant 10: unknown top-level keys dropped by merge.

Breaks spec 5.4 (v0.1.2: a merge MUST carry every top-level key that it
does not recognise), requirement S5.4-unknown-top-level-keys-pass-through.
Level: full.

The merged session is rebuilt from the top-level keys this merger knows.
"""

from __future__ import annotations

from _mutant import serve_mutant, wrap


def mutate() -> None:
    from conformance.model import merge
    from conformance.model.session import KNOWN_TOP_LEVEL

    def merge_sessions(original, local, remote, caps=None):
        """merge_sessions rebuilt from the known top-level keys only"""
        merged = original(local, remote, caps)
        return {key: value for key, value in merged.items() if key in KNOWN_TOP_LEVEL}

    wrap(merge, "merge_sessions", merge_sessions)


if __name__ == "__main__":
    raise SystemExit(serve_mutant(__file__, mutate))
