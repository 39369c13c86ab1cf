#!/usr/bin/env python3
"""Mutant 43: identity is NFKC-normalized before it is trimmed and case-folded.

Breaks spec 5.1 (the identity is the text whitespace-trimmed and
case-folded, nothing more; a purged tombstone matches the decisions whose
identity hashes to its text_hash), requirements S5.1-same-identity-same-item,
S5.3.1-purged-matches-hash and S8-reader-tombstone-visibility. Level: reader.

"Wait for CI…" and "Wait for CI...", "Ship the ＡＰＩ" and "Ship the API"
become one item: a tombstone of one suppresses the other, a merge keeps one
of the two, and a purged hash hides a decision it never named.
"""

from __future__ import annotations

from _mutant import replace, serve_mutant


def mutate() -> None:
    import unicodedata

    from conformance.model import identity

    def normalize(text):
        """NFKC, trimmed, case-folded"""
        return unicodedata.normalize("NFKC", text).strip().casefold()

    replace(identity, "normalize", normalize)


if __name__ == "__main__":
    raise SystemExit(serve_mutant(__file__, mutate))
