#!/usr/bin/env python3
"""Mutant 05: purged tombstones matched by raw text instead of text_hash.

Breaks spec 5.1 and 5.3.1 (a purged tombstone carries the identity as
`text_hash` and MUST match every decision whose identity hashes to it),
requirements S5.1-purged-identity-text-hash and S5.3.1-purged-matches-hash.
Level: full.

Every item is keyed by its `text`, so a purged tombstone is the item
`[purged]`: it meets no copy of the decision it replaced, and a stale
replica's copy comes back live beside it.
"""

from __future__ import annotations

from _mutant import replace, serve_mutant


def mutate() -> None:
    from conformance.model import identity

    def item_key(item):
        text = item.get("text")
        return identity.text_hash(text) if isinstance(text, str) else None

    replace(identity, "item_key", item_key)


if __name__ == "__main__":
    raise SystemExit(serve_mutant(__file__, mutate))
