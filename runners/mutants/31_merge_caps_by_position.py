#!/usr/bin/env python3
"""Mutant 31: a merge caps a list by position (the last N of the union), not oldest by date out.

Breaks spec 5.2 step 1 (the only way items leave is cap rotation, *oldest
by date field*, off the end) and spec 4.1 (rotation oldest-by-date-out),
requirement S5.2-cap-rotation-oldest-out. Level: full.

The union of local then remote is cut with a `slice(-cap)`: right when both
replicas are stored oldest-first, wrong as soon as one is not.
"""

from __future__ import annotations

from _mutant import replace, serve_mutant


def mutate() -> None:
    from conformance.model import merge

    def oldest_out(items, field, cap):
        return items[max(0, len(items) - cap):]

    replace(merge, "oldest_out", oldest_out)


if __name__ == "__main__":
    raise SystemExit(serve_mutant(__file__, mutate))
