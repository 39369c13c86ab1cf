"""The interpretations the kit chose where the spec is silent or ambiguous: docs/spec-ambiguities.md.

Each interpretation is a heading `## AMB-ID: what is open (sections)`. The
document ships with a source checkout, not with an installed wheel: where
it is missing, the functions here answer None and their callers say less.
"""

from __future__ import annotations


from conformance import patterns, resources

_AMBIGUITY_HEADING = patterns.compile(r"(?m)^#{2,3}[ \t]+(AMB-[A-Z0-9-]*[A-Z0-9]):?[ \t]*(.*)$")


def ambiguity_titles() -> dict[str, str] | None:
    """AMB id -> its heading's title ("what \"case-folded\" means (5.1)"), or None without the document."""
    try:
        text = resources.ambiguities_doc().read_text(encoding="utf-8")
    except OSError:
        return None
    return {found.group(1): found.group(2).strip() for found in _AMBIGUITY_HEADING.finditer(text)}


def documented_ambiguities() -> set[str] | None:
    """The AMB-... ids of docs/spec-ambiguities.md, or None where the docs are not installed."""
    titles = ambiguity_titles()
    return None if titles is None else set(titles)
