"""Splitting the selected vectors into N shards: `run --shard K/N`.

A slow implementation (one-shot, or a CLI started per request) can be run
across a CI matrix, one shard per job, and the shard reports merged into
one graded report with `merge-reports` (docs/ci.md). What goes where must
be the same on every machine, change little when the corpus grows, and
give each job about the same amount of work:

- Every vector has an *expected cost*: the requests it sends (a one-shot
  adapter pays a process start for each) plus the stores it writes to disk.
  A derived vector (`~swapped`, `~idempotent`) sends its base's requests
  two or four times; it needs nothing from its base at run time, so it is
  placed on its own.
- A cheap vector goes to shard `sha256(id) mod N`. Its place depends on its
  id alone: adding, removing or changing other vectors never moves it.
- The few expensive ones (runner-driven concurrency vectors, long write
  sequences) are then placed, most expensive first, each on the shard with
  the least cost so far. Only they can move when the corpus changes.
"""

from __future__ import annotations

import argparse
import hashlib
from dataclasses import dataclass, replace

from conformance.model.session import DEFAULT_CAPS
from conformance.runner.grading import Grade, GradedVector, blocks_run
from conformance.runner.vectors import Vector, evaluate_count

# A vector at least this expensive is placed by cost, not by its id's hash.
HEAVY_COST = 16
_STORES_WRITTEN = {"merge_sessions": 0, "read_store": 1, "write": 1, "merge_stores": 3,
                   "concurrent_writes": 2, "atomic_writes": 1, "atomic_merges": 3}
_DERIVED_CALLS = {"swapped": 2, "idempotent": 4}


@dataclass(frozen=True)
class Shard:
    """Shard `index` (1-based) of `count`."""

    index: int
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def parse_shard(text: str) -> Shard:
    """`K/N` with 1 <= K <= N (an argparse type)."""
    left, slash, right = text.partition("/")
    try:
        index, count = int(left), int(right)
    except ValueError:
        index = count = 0
    if not slash or count < 1 or not 1 <= index <= count:
        raise argparse.ArgumentTypeError(f"a shard is K/N with 1 <= K <= N, for example 2/4; not {text!r}")
    return Shard(index, count)


def _repeat_count(step: dict) -> int:
    count = evaluate_count(step.get("$repeat", 1), DEFAULT_CAPS)
    return count if isinstance(count, int) and count > 0 else 1


def expected_cost(vector: Vector) -> int:
    """Requests sent plus stores written, with the reference caps for cap-sized inputs."""
    if vector.derived and vector.base is not None:
        return _DERIVED_CALLS[vector.derived] * expected_cost(vector.base)
    data = vector.input
    if vector.op == "write":
        requests = sum(_repeat_count(step) for step in data.get("steps", ()) if isinstance(step, dict))
    elif vector.op == "concurrent_writes":
        processes, per_process = data.get("processes", 1), data.get("actions_per_process", 1)
        # The concurrent adds, the same adds again as the sequential control, one start per writer.
        requests = 2 * processes * per_process + processes
    elif vector.op == "atomic_writes":
        requests = data.get("writes", 1)
    elif vector.op == "atomic_merges":
        requests = data.get("merges", 1)
    else:
        requests = 1
    return requests + _STORES_WRITTEN.get(vector.op, 1)


def _hash(vector_id: str) -> int:
    return int.from_bytes(hashlib.sha256(vector_id.encode("utf-8")).digest()[:8], "big")


def assign(vectors: list[Vector], count: int) -> dict[str, int]:
    """vector id -> shard index (1-based), for every vector."""
    placed: dict[str, int] = {}
    load = [0] * count
    heavy = []
    for vector in vectors:
        cost = expected_cost(vector)
        if cost >= HEAVY_COST:
            heavy.append((cost, vector.id))
            continue
        slot = _hash(vector.id) % count
        placed[vector.id] = slot + 1
        load[slot] += cost
    for cost, vector_id in sorted(heavy, key=lambda item: (-item[0], _hash(item[1]), item[1])):
        slot = min(range(count), key=lambda index: (load[index], index))
        placed[vector_id] = slot + 1
        load[slot] += cost
    return placed


def pick(vectors: list[Vector], shard: Shard) -> list[Vector]:
    """The vectors of `shard`, in their original order."""
    placed = assign(vectors, shard.count)
    return [vector for vector in vectors if placed[vector.id] == shard.index]


def shard_grade(result: Grade, graded: list[GradedVector], shard: Shard, filtered: bool) -> Grade:
    """A shard grades no level (it saw part of the corpus). It fails (exit 1) when one of its
    vectors would make the whole run fail: a blocking result at or below the claimed level (at
    any level when the run is also filtered), an xpass or a stale expect-fail entry."""
    judged = replace(result, filtered=filtered)
    failing = any(blocks_run(item, judged) for item in graded)
    return replace(result, exit_code=1 if failing else 0,
                   verdict=f"shard {shard}: merge the shard reports (memoir-conform merge-reports) to grade "
                           f"the run; {result.verdict}")
