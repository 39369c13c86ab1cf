#!/usr/bin/env python3
"""Mutant 24: session.json is written in place, not atomically.

Breaks spec 4.1 (writers MUST write the file atomically: write a temp file,
rename), requirement S4.1-atomic-write. Level: writer.

The file is truncated and written in two chunks; between them a concurrent
reader sees an empty or half-written JSON document. The lock is kept, so
no update is lost: only readers can tell.
"""

from __future__ import annotations

import os
import time

from _mutant import serve_mutant, wrap

BETWEEN_CHUNKS_SECONDS = 0.002


def mutate() -> None:
    from conformance.model import store

    def atomic_write(original, path, data):
        """session.json written in place, in two chunks"""
        if path.name != store.SESSION_FILE:
            return original(path, data)
        half = len(data) // 2
        with open(path, "wb") as handle:
            handle.write(data[:half])
            handle.flush()
            os.fsync(handle.fileno())
            time.sleep(BETWEEN_CHUNKS_SECONDS)
            handle.write(data[half:])
        return None

    wrap(store, "atomic_write", atomic_write)


if __name__ == "__main__":
    raise SystemExit(serve_mutant(__file__, mutate))
