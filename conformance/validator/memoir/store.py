"""Checks of a store as a whole (spec 2, 3.4).

Entry checks see one file; these see them all: how each `[[wikilink]]`
resolves (and, when it does not, which entry it probably means), whether
link names are lowercase slugs with their type as a prefix, and whether two
link names collide when case is ignored.
"""

from __future__ import annotations

import re

from conformance.model.entry import ENTRY_TYPES, LEGACY_TYPES
from conformance.validator.memoir import rules
from conformance.validator.core.findings import Diagnostic, diagnostic
from conformance.validator.memoir.entry import EntrySummary
from conformance.validator.memoir.sources import StoreScan

_SLUG = re.compile(r"[a-z0-9][a-z0-9._-]*")
_KNOWN_PREFIXES = tuple(f"{name}_" for name in (*ENTRY_TYPES, *LEGACY_TYPES))
_SEPARATORS = re.compile(r"[-_ ]+")


def _normal(text: str) -> str:
    """A loose spelling key: case, '-', ' ' and '_' and a .md suffix ignored."""
    text = text.casefold().strip()
    if text.endswith(".md"):
        text = text[:-3]
    return _SEPARATORS.sub("_", text)


def _without_prefix(link: str) -> str:
    for prefix in _KNOWN_PREFIXES:
        if link.startswith(prefix):
            return link[len(prefix):]
    return link


def check_store(scan: StoreScan, summaries: list[EntrySummary]) -> list[Diagnostic]:
    found: list[Diagnostic] = []
    entries = [summary for summary in summaries if not summary.is_index]
    found.extend(_link_name_findings(entries))
    found.extend(_link_findings(scan, summaries, entries))
    return found


def _link_name_findings(entries: list[EntrySummary]) -> list[Diagnostic]:
    found = []
    by_fold: dict[str, EntrySummary] = {}
    for entry in entries:
        link = entry.link
        first = by_fold.setdefault(link.casefold(), entry)
        if first is not entry:
            found.append(diagnostic(
                rules.LINK_NAME_COLLISION, entry.display,
                f"link name {link!r} differs from {first.link!r} ({first.display}) only in case: a case-insensitive "
                "file system keeps one of them"))
        if not _SLUG.fullmatch(link):
            found.append(diagnostic(
                rules.LINK_NAME_SLUG, entry.display,
                f"link name {link!r} is not a lowercase slug (a-z, 0-9, '-', '_', '.')"))
        found.extend(_prefix_findings(entry))
    return found


def _prefix_findings(entry: EntrySummary) -> list[Diagnostic]:
    read, written = entry.type, entry.written_type
    if not isinstance(written, str) or not (written in ENTRY_TYPES or written in LEGACY_TYPES):
        return []  # no type, or one outside both vocabularies: no prefix to expect
    expected = {f"{written}_"}
    if isinstance(read, str):
        expected.add(f"{read}_")
    folded = entry.link.casefold()  # case is the slug rule's business
    if folded.startswith(tuple(expected)):
        return []
    reads = f" (reads as {read!r})" if read != written else ""
    other = next((prefix for prefix in _KNOWN_PREFIXES if folded.startswith(prefix)), None)
    if other:
        message = f"link name prefix {other!r} disagrees with type {written!r}{reads}"
    else:
        message = f"link name {entry.link!r} lacks the type prefix {written + '_'!r}{reads}"
    return [diagnostic(rules.LINK_NAME_PREFIX, entry.display, message)]


def _link_findings(scan: StoreScan, summaries: list[EntrySummary], entries: list[EntrySummary]) -> list[Diagnostic]:
    found = []
    links = {summary.link for summary in summaries}
    if scan.sibling_links is not None:
        links |= scan.sibling_links
    by_fold: dict[str, str] = {}
    by_normal: dict[str, str] = {}
    by_bare: dict[str, str] = {}
    for link in sorted(links):
        by_fold.setdefault(link.casefold(), link)
        by_normal.setdefault(_normal(link), link)
        by_bare.setdefault(_normal(_without_prefix(link)), link)
    by_name: dict[str, EntrySummary] = {}
    for entry in entries:
        if isinstance(entry.name, str) and entry.name != entry.link:
            by_name.setdefault(entry.name.strip(), entry)
            by_name.setdefault(_normal(entry.name), entry)

    # Stores repeat the same dangling targets in many entries: each target's
    # verdict depends only on the store, so it is worked out once.
    hints: dict[str, str | None] = {}
    kept = set(by_fold.values())
    for summary in summaries:
        for target, line, column in summary.links:
            if target in links:
                continue
            if target in hints:
                hint = hints[target]
            else:
                hint = hints[target] = _probable_target(target, by_fold, kept, by_normal, by_bare, by_name)
            if hint is None:
                found.append(diagnostic(
                    rules.LINK_UNRESOLVED, summary.display,
                    f"[[{target}]] names no entry of this store: readers leave it unresolved", line, column))
            else:
                found.append(diagnostic(rules.LINK_BY_NAME, summary.display, hint, line, column))
    return found


def _probable_target(target: str, by_fold: dict, kept: set, by_normal: dict, by_bare: dict,
                     by_name: dict) -> str | None:
    unresolved = "readers do not resolve it"
    if target.casefold() in by_fold:
        link = by_fold[target.casefold()]
        return f"[[{target}]] matches link name {link!r} only when case is ignored: {unresolved}; write [[{link}]]"
    named = by_name.get(target.strip()) or by_name.get(_normal(target))
    if named is not None:
        return (f"[[{target}]] matches the name: of {named.display}, not a link name (the file name): {unresolved}; "
                f"it probably means [[{named.link}]]")
    if target.endswith(".md") and target[:-3] in kept:
        return f"[[{target}]] carries the .md suffix: {unresolved}; write [[{target[:-3]}]]"
    normal = _normal(target)
    link = by_normal.get(normal) or by_bare.get(_normal(_without_prefix(target)))
    if link is not None:
        return f"[[{target}]] is a near spelling of link name {link!r}: {unresolved}; it probably means [[{link}]]"
    return None
