#!/usr/bin/env python3
"""Mutant 35: reading a session fails on a list item without `text`.

Breaks spec 6 (migration MUST NOT throw on malformed input; the worst case
is a fresh empty state), requirement S6-migration-never-throws.
Level: reader.

The loader trusts that every item has a `text` (`item.text.trim()`), so one
malformed item makes every read, write and merge of the file fail.
"""

from __future__ import annotations

from _mutant import serve_mutant, wrap


def mutate() -> None:
    from conformance.model import session

    def _items(original, value):
        """_items that raises on an item without text"""
        for item in value if isinstance(value, list) else ():
            if isinstance(item, dict) and not isinstance(item.get("text"), str) and "text_hash" not in item:
                raise TypeError("cannot read property 'text' of a session item")
        return original(value)

    wrap(session, "_items", _items)


if __name__ == "__main__":
    raise SystemExit(serve_mutant(__file__, mutate))
