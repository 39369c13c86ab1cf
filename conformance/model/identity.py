"""Identity of session-list items (spec 5.1).

An item's identity is its text, whitespace-trimmed and case-folded. A purged
decision tombstone carries the identity as `text_hash`, the lowercase hex
SHA-256 of that normalized text. Every item is keyed here by that same hash,
so a purged tombstone meets the copies it suppresses under one key.
"""

from __future__ import annotations

import hashlib

PURGED_TEXT = "[purged]"


def normalize(text: str) -> str:
    """Trimmed and case-folded (Unicode full case folding: AMB-CASEFOLD)."""
    return text.strip().casefold()


def text_hash(text: str) -> str:
    """The lowercase hex SHA-256 of the normalized text (spec 5.3.1)."""
    return hashlib.sha256(normalize(text).encode("utf-8")).hexdigest()


def is_purged(item: dict) -> bool:
    """A purged tombstone: hidden, with a text_hash. The hash of a live item
    is not an identity (spec 5.3.1), so an unhidden one keys by its text."""
    return item.get("hidden") is True and isinstance(item.get("text_hash"), str)


def item_key(item: dict) -> str | None:
    """The identity key of a session-list item, or None when it has none."""
    if is_purged(item):
        return item["text_hash"].strip().lower()
    text = item.get("text")
    if isinstance(text, str):
        return text_hash(text)
    return None
