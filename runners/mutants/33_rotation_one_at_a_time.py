#!/usr/bin/env python3
"""Mutant 33: the writer rotates at most one item per write.

Breaks spec 4.1 ("Bounded lists": some cap is normative, with rotation
oldest-by-date-out; rotation out of `next_actions` MUST go to
`parked_actions`), requirements S4.1-next-actions-rotate-to-parked and
S5.2-cap-rotation-oldest-out. Level: writer.

`if (list.length > cap) rotate(oldest)`: a list stored over this
implementation's cap (written by one with a larger cap) never shrinks back,
and every add leaves it over the cap.
"""

from __future__ import annotations

from _mutant import replace, serve_mutant


def mutate() -> None:
    from conformance.model import dates, writer
    from conformance.model.identity import item_key

    def _rotate_oldest(items, field, cap):
        if len(items) <= cap:
            return items, []
        oldest = min(items, key=lambda item: (dates.sort_key(item.get(field)), item_key(item)))
        return [item for item in items if item is not oldest], [oldest]

    replace(writer, "_rotate_oldest", _rotate_oldest)


if __name__ == "__main__":
    raise SystemExit(serve_mutant(__file__, mutate))
