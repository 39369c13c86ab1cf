"""Checks of a store as a whole (spec 2, 3.4): file names that collide, and links.

Entry checks see one file; these see them all, as the entries stream past.
A link name that differs from another only in case is known from the folder
listing, so it is reported with its file. How a ``[[wikilink]]`` that names
no file resolves, and which entry it probably means, depends on the ``name:``
of every entry: such links are kept (on disk past a bound, so memory stays
flat) and reported once the store has been read, each target worked out once.
"""

from __future__ import annotations

import pickle
import tempfile
from typing import Callable, Iterator

from conformance.validator.core.findings import MAX_PER_RULE, Diagnostic, diagnostic
from conformance.validator.memoir import rules
from conformance.validator.memoir.entry import EntrySummary, spelling, spelling_keys, without_type_prefix


class Spool:
    """Records kept in the order they come, written to a temporary file in
    batches once there are many."""

    def __init__(self, batch: int = 10_000):
        self._batch = batch
        self._items: list = []
        self._file = None

    def append(self, item) -> None:
        self._items.append(item)
        if len(self._items) >= self._batch:
            if self._file is None:
                self._file = tempfile.TemporaryFile()
            pickle.dump(self._items, self._file, protocol=pickle.HIGHEST_PROTOCOL)
            self._items = []

    def __iter__(self) -> Iterator:
        if self._file is not None:
            self._file.seek(0)
            while True:
                try:
                    yield from pickle.load(self._file)
                except EOFError:
                    break
            self._file.close()
            self._file = None
        yield from self._items
        self._items = []


def _case_collisions(link_names: set[str]) -> dict[str, str]:
    """Each link name that differs from an earlier one (in sorted order) only
    in case -> that earlier one. Few stores have any, so no table of every
    name's case fold is kept."""
    collides: dict[str, str] = {}
    first = None
    for link in sorted(link_names, key=lambda name: (name.casefold(), name)):
        if first is not None and link.casefold() == first.casefold():
            collides[link] = first
        else:
            first = link
    return collides


class StoreLinks:
    """The store checks of one store, fed each entry's summary in turn."""

    def __init__(self, link_names: set[str], display_of: Callable[[str], str]):
        self.links = link_names
        self.display_of = display_of  # link name -> how the output names its file
        self._collides = _case_collisions(link_names)
        # Loose spellings -> link names, filled as the entries stream past (their
        # keys worked out by the workers), so that no pass over every link name
        # is left for the end: by case fold, by spelling, by spelling without the
        # type prefix, and by the spelling of each entry's name:.
        self._by_key: tuple[dict[str, str], ...] = ({}, {}, {}, {})
        self._seen: set[str] = set()
        self._unresolved = Spool()

    def entry(self, display: str, summary: EntrySummary) -> list[Diagnostic]:
        """What is known of this entry now; its unresolved links are kept for `finish`."""
        found = []
        first = self._collides.get(summary.link)
        if first is not None and not summary.is_index:
            found.append(diagnostic(
                rules.LINK_NAME_COLLISION, display,
                f"file name {summary.link!r} differs from {first!r} ({self.display_of(first)}) only in case, so on "
                "a case-insensitive file system one overwrites the other; rename one"))
        self._add_keys(summary.link, summary.keys)
        unresolved = 0
        for target, line, column in summary.links:
            if target not in self.links:
                unresolved += 1
                if unresolved <= MAX_PER_RULE:
                    self._unresolved.append((display, target, line, column))
        if unresolved > MAX_PER_RULE:
            self._unresolved.append((display, None, unresolved - MAX_PER_RULE, 0))
        return found

    def _add_keys(self, link: str, keys: tuple[str, str, str, str | None]) -> None:
        self._seen.add(link)
        for table, key in zip(self._by_key, keys):
            if key is not None:
                table.setdefault(key, link)

    def finish(self) -> Iterator[Diagnostic]:
        """Every link that names no file, with the entry it probably means, in file order."""
        ready = False
        hints: dict[str, str | None] = {}
        for display, target, line, column in self._unresolved:
            if target is None:  # the count of those not listed (`line` holds it)
                yield diagnostic(
                    rules.LINK_UNRESOLVED, display,
                    f"{line} more [[links]] of this file name no entry of this store and are not listed (the first "
                    f"{MAX_PER_RULE} are)")
                continue
            if not ready:  # link names not streamed past (files beside loose ones, unreadable entries)
                for link in sorted(self.links - self._seen):
                    self._add_keys(link, spelling_keys(link, None))
                ready = True
            if target not in hints:
                hints[target] = self._probable_target(target)
            hint = hints[target]
            if hint is None:
                yield diagnostic(
                    rules.LINK_UNRESOLVED, display,
                    f"[[{target}]] names no entry of this store, so readers leave it unresolved (which is allowed); "
                    "create the entry or correct the link if one is meant", line, column)
            else:
                yield diagnostic(rules.LINK_BY_NAME, display, hint, line, column)

    def _probable_target(self, target: str) -> str | None:
        by_fold, by_normal, by_bare, by_name = self._by_key
        unresolved = "names no file, so readers leave it unresolved"
        if target.casefold() in by_fold:
            link = by_fold[target.casefold()]
            return (f"[[{target}]] {unresolved}: it matches file name {link!r} only if case is ignored, which "
                    f"readers do not do; write [[{link}]]")
        link = by_name.get(spelling(target))
        if link is not None:
            return (f"[[{target}]] {unresolved}: it is the name: of {self.display_of(link)}, and links use file "
                    f"names; write [[{link}]]")
        if target.endswith(".md") and target[:-3] in self.links:
            return f"[[{target}]] {unresolved}: links leave out the .md; write [[{target[:-3]}]]"
        link = by_normal.get(spelling(target)) or by_bare.get(spelling(without_type_prefix(target)))
        if link is not None:
            return f"[[{target}]] {unresolved}: it is a near spelling of {link!r}; write [[{link}]] if that is meant"
        return None
