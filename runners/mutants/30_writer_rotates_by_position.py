#!/usr/bin/env python3
"""Mutant 30: the writer rotates a full list by position, not by date.

Breaks spec 4.1 ("Bounded lists": rotation oldest-by-date-out; the oldest
actions *by `added`* move to `parked_actions`), requirements
S4.1-next-actions-rotate-to-parked and S5.2-cap-rotation-oldest-out.
Level: writer.

When a list is over its cap the writer evicts the items at the front of the
list as stored, as if every file were kept oldest-first. A list stored
newest-first or in any other order loses (or parks) its newest items.
"""

from __future__ import annotations

from _mutant import replace, serve_mutant


def mutate() -> None:
    from conformance.model import writer

    def _rotate_oldest(items, field, cap):
        excess = max(0, len(items) - cap)
        return items[excess:], items[:excess]

    replace(writer, "_rotate_oldest", _rotate_oldest)


if __name__ == "__main__":
    raise SystemExit(serve_mutant(__file__, mutate))
