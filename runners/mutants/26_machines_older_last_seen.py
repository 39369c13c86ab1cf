#!/usr/bin/env python3
"""Mutant 26: the machines merge keeps the older last_seen.

Breaks spec 5.2 step 3 (`machines` merges per UUID, keeping the entry with
the newer `last_seen`), requirement S5.2-machines-newer-last-seen.
Level: full.
"""

from __future__ import annotations

from _mutant import replace, serve_mutant


def mutate() -> None:
    from conformance.model import merge

    def merge_machines(local, remote):
        rank = merge.by_date("last_seen")
        merged = dict(local)
        for uuid, entry in remote.items():
            if uuid not in merged or rank(entry) < rank(merged[uuid]):
                merged[uuid] = entry
        return merged

    replace(merge, "merge_machines", merge_machines)


if __name__ == "__main__":
    raise SystemExit(serve_mutant(__file__, mutate))
