#!/usr/bin/env python3
"""Mutant 23: read-mutate-write without a lock: concurrent updates are lost.

Breaks spec 4.1 (writers MUST serialize concurrent read-mutate-write
cycles; the entire cycle is the critical section) and spec 8, requirements
S4.1-serialize-read-mutate-write and S8-writer-atomic-locked.
Level: writer.

The lock is gone; each write is still atomic (temp file + rename), so no
reader sees a torn file, but two writers that read the same snapshot both
write, and the first one's change is lost. Writing session.json takes a few
milliseconds longer here, as on a slow disk, so that the lost update shows
on every run rather than now and then.
"""

from __future__ import annotations

import contextlib
import time

from _mutant import replace, serve_mutant, wrap

SLOW_DISK_SECONDS = 0.005


def mutate() -> None:
    from conformance.model import store

    @contextlib.contextmanager
    def locked(store_dir):
        store_dir.mkdir(parents=True, exist_ok=True)
        yield

    def atomic_write(original, path, data):
        """atomic_write on a slow disk"""
        if path.name == store.SESSION_FILE:
            time.sleep(SLOW_DISK_SECONDS)
        original(path, data)

    replace(store, "locked", locked)
    wrap(store, "atomic_write", atomic_write)


if __name__ == "__main__":
    raise SystemExit(serve_mutant(__file__, mutate))
