#!/usr/bin/env python3
"""Mutant 11: unknown keys: the remote copy wins over the local one.

Breaks spec 5.4 (v0.1.2: unknown keys pass through a merge, "taking the
local copy when both sides have one"), requirement
S5.4-unknown-keys-local-wins. Level: full.
"""

from __future__ import annotations

from _mutant import serve_mutant, wrap


def mutate() -> None:
    from conformance.model import merge

    def unknown_keys(original, local, remote, known):
        """unknown keys pass through, remote winning"""
        return original(remote, local, known)

    wrap(merge, "unknown_keys", unknown_keys)


if __name__ == "__main__":
    raise SystemExit(serve_mutant(__file__, mutate))
