#!/usr/bin/env python3
"""Mutant 44: identity keys are cut at 100 characters.

Breaks spec 5.1 (the identity is the whole text, trimmed and case-folded),
requirements S5.1-same-identity-same-item and S8-reader-tombstone-visibility.
Level: reader.

A key column sized VARCHAR(100), or an index that truncates: two long
texts that share their first 100 characters are one item, so completing one
suppresses the other and a merge keeps only one of them.
"""

from __future__ import annotations

from _mutant import replace, serve_mutant


def mutate() -> None:
    from conformance.model import identity

    original = identity.normalize

    def normalize(text):
        """trimmed, case-folded, cut at 100 characters"""
        return original(text)[:100]

    replace(identity, "normalize", normalize)


if __name__ == "__main__":
    raise SystemExit(serve_mutant(__file__, mutate))
