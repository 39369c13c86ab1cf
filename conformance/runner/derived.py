"""Metamorphic vectors derived from every merge vector: the invariants of spec 5.4.

For each `merge_sessions` and `merge_stores` vector of the corpus the runner
adds two more, built from the same inputs A and B:

- `<id>~swapped`: merge(A, B) and merge(B, A) carry the same data, lists up
  to ordering, keys the merge does not know excepted (those are the local
  copy's by rule, 5.4) (S5.4-convergence-commutative);
- `<id>~idempotent`: with M = merge(A, B), merging M with itself, or with A
  or B again, gives M (S5.4-idempotent).

Both are MUST checks whatever interpretation their base vector rests on:
every reading of the spec must converge. They run like any vector, have
their own digest (of the kind and the base vector's digest, so they change
when the base does), count for Full, and are listed by `run --list`. They
inherit the base vector's `min_caps` and `choices`: an invariant of a case
the implementation cannot show is not applicable to it either.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # vectors.py builds on this module (load_corpus adds the derived vectors)
    from conformance.runner.vectors import Vector

SWAPPED, IDEMPOTENT = "swapped", "idempotent"
DERIVED_TAG = "derived"
MERGE_OPS = ("merge_sessions", "merge_stores")

_KINDS = {
    SWAPPED: ("S5.4-convergence-commutative", "merge(A, B) and merge(B, A) agree"),
    IDEMPOTENT: ("S5.4-idempotent", "re-merging M = merge(A, B) with M, A or B gives M"),
}


def derived_id(base_id: str, kind: str) -> str:
    return f"{base_id}~{kind}"


def derive(base: Vector) -> list[Vector]:
    """The metamorphic vectors of one merge vector (none for other ops)."""
    if base.op not in MERGE_OPS or base.derived:
        return []
    made = []
    for kind, (requirement, title) in _KINDS.items():
        digest = hashlib.sha256(f"{kind}\n{base.digest}".encode("ascii")).hexdigest()
        made.append(replace(
            base, id=derived_id(base.id, kind), title=f"{title}: {base.title}", sections=("5.4",),
            requirements=(requirement,), level="full", tags=(DERIVED_TAG, kind), ambiguity=None,
            expect=(), digest=digest, note=None, derived=kind, base=base,
        ))
    return made


def with_derived(vectors: list[Vector]) -> list[Vector]:
    """`vectors` and every vector derived from them, sorted by id."""
    return sorted([*vectors, *(made for vector in vectors for made in derive(vector))], key=lambda v: v.id)
