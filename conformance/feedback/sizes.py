"""Which vector of a cause is the smallest to show it: fewest steps, then files, then bytes.

A run report says what was sent, but a store is sent as a path: its files
are only in the vector. So a vector is measured from the kit's own corpus
when the corpus holds it unchanged (same id, same digest), expanded with
the caps the implementation declared, as it ran (unexpanded when a cap is
beyond reason). A vector the corpus does
not hold (another kit's corpus, a user's `--vectors` directory) is
measured from what the report says was sent, and ranks after every
vector measured from the corpus, whose sizes it cannot be compared with.
"""

from __future__ import annotations

from dataclasses import dataclass

from conformance.corpus.show import starting_files
from conformance.runner.vectors import ExpansionProblem, Vector, canonical_json, effective_caps, expand, write_steps

# Input keys holding a STORE spec (a session text, for merge_sessions): counted as files.
STORE_KEYS = ("store", "local", "remote")
# Caps above this are not expanded: a report is a file, and its caps could ask for lists of any length.
LARGEST_EXPANDED_CAP = 10_000


@dataclass(frozen=True, order=True)
class Size:
    from_sent: bool     # measured from the report's `sent` (the corpus does not hold the vector)
    steps: int
    files: int
    bytes: int


class Sizer:
    """Measures the vectors of one report against a corpus."""

    def __init__(self, corpus: list[Vector], caps: dict):
        self.corpus = {vector.id: vector for vector in corpus}
        self.caps = effective_caps(caps)
        self.expands = max(self.caps.values(), default=0) <= LARGEST_EXPANDED_CAP

    def size(self, reported: dict) -> Size:
        vector = self.corpus.get(reported["id"])
        if vector is not None and vector.digest == reported["digest"]:
            try:
                return self._measured(vector)
            except (OSError, ValueError, TypeError, KeyError):   # a vector the corpus check would refuse
                pass
        return Size(True, len(reported["sent"]), 0, len(canonical_json(reported["sent"]).encode("utf-8")))

    def smallest(self, reported: list[dict]) -> dict:
        """The smallest of `reported` (ties: the first vector id)."""
        return min(reported, key=lambda vector: (self.size(vector), vector["id"]))

    def _measured(self, vector: Vector) -> Size:
        expanded = expand(vector, self.caps) if self.expands else vector
        source = vector if isinstance(expanded, ExpansionProblem) else expanded
        given = source.input
        contents = [data for files in starting_files(source).values() for data in files.values()]
        rest = {key: value for key, value in given.items() if key not in STORE_KEYS}
        steps = len(write_steps(given)) if source.op == "write" else 1
        return Size(False, steps, len(contents), sum(map(len, contents)) + len(canonical_json(rest).encode("utf-8")))
