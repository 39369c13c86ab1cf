#!/usr/bin/env python3
"""Mutant 47: every write stamps a fresh machine UUID.

Breaks spec 4.1 (machine identity is a UUID persisted per machine; labels
may change, UUIDs MUST NOT), requirement S4.1-machine-uuid-stable.
Level: writer.

The writer calls `uuid4()` where it should read the persisted id, so one
machine shows up as a new machine on every write.
"""

from __future__ import annotations

from _mutant import serve_mutant


def mutate() -> None:
    import uuid

    from conformance import reference
    from conformance.model.writer import Stamp

    def stamp(self):
        """a stamp with a new machine id"""
        return Stamp(self.clock(), str(uuid.uuid4()), self.machine_label)

    reference.Context.stamp = stamp


if __name__ == "__main__":
    raise SystemExit(serve_mutant(__file__, mutate))
