#!/usr/bin/env python3
"""Mutant 34: a merge drops items whose date does not parse.

Breaks spec 5.2 step 2 (a missing or unparseable date compares as the
epoch: it *loses* to any real date, it does not vanish) and spec 5.4 (no
silent loss), requirements S5.2-missing-date-is-epoch and
S5.4-no-silent-loss. Level: full.

The merge validates its input and filters out every list item whose date
field is missing or unparseable: the only copy of such an item is lost.
"""

from __future__ import annotations

from _mutant import serve_mutant, wrap


def mutate() -> None:
    from conformance.model import merge
    from conformance.model.dates import parse_date
    from conformance.model.session import DATE_FIELD

    def dated(side):
        return {name: [item for item in items if parse_date(item.get(DATE_FIELD[name])) is not None]
                if name in DATE_FIELD else items for name, items in side.items()}

    def merge_current(original, local, remote, caps, parked_at):
        """merge_current over dated items only"""
        return original(dated(local), dated(remote), caps, parked_at)

    wrap(merge, "merge_current", merge_current)


if __name__ == "__main__":
    raise SystemExit(serve_mutant(__file__, mutate))
