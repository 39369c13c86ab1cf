"""Checking memoir stores as a stream of events: in file order, in parallel when large.

`events` lists each target (`discovery`), checks each file on its own
(`entry`, `session`, `secrets`) and yields its findings at once, then what
needed the whole store (`store`: links). Files are checked in a process pool
when a store is large, with a bounded number of files in flight, and their
results are taken in file order: the output is the same whatever the number
of workers, and memory does not grow with the store.
"""

from __future__ import annotations

import os
import signal
from collections import deque
from dataclasses import dataclass
from itertools import islice
from typing import TYPE_CHECKING, Iterable, Iterator

from conformance.validator.core.findings import (
    Diagnostic,
    Event,
    FileChecked,
    StoreFindings,
    StoreFinished,
    StoreStarted,
    diagnostic,
    in_order,
)
from conformance.validator.memoir import rules
from conformance.validator.memoir.discovery import Listing, Target, list_target, targets
from conformance.validator.memoir.entry import EntrySummary, check_entry, prepare
from conformance.validator.memoir.secrets import scan as scan_secrets
from conformance.validator.memoir.session import check_session
from conformance.validator.memoir.sources import MAX_BYTES, file_diagnostics, read_bounded
from conformance.validator.memoir.store import StoreLinks

if TYPE_CHECKING:  # the pool's modules are imported only when a store is large enough for one
    from concurrent.futures import Future

# Below this many files a process pool costs more than it saves: on two
# cores, 10,000 files took as long with two workers as with none, and 17%
# more CPU; 100,000 took half the time (docs/validator.md, Speed).
PARALLEL_THRESHOLD = 20_000
_CHUNK = 128           # files per task sent to a worker
_TASKS_PER_WORKER = 4  # tasks in flight per worker: enough to keep it busy, few enough to bound memory


def check_file(path: str, display: str, kind: str) -> tuple[tuple[Diagnostic, ...], EntrySummary | None]:
    """Every finding about one file on its own, in output order, and an entry's summary. Never raises."""
    try:
        found, summary = _check_file(path, display, kind)
        return in_order(found), summary
    except Exception as error:  # a bug in a check must not hide the other files' findings
        return (diagnostic(
            rules.CHECK_FAILED, display,
            f"the validator failed on this file ({type(error).__name__}: {error}); please report it"),), None


def _check_file(path: str, display: str, kind: str) -> tuple[list[Diagnostic], EntrySummary | None]:
    read = read_bounded(path)
    found = file_diagnostics(display, kind, read)
    if read.text is None:
        return found, None
    summary = None
    if kind == "session":
        if read.truncated:
            found.append(diagnostic(
                rules.TOO_LARGE_TO_CHECK, display,
                f"{read.size} bytes, more than the {MAX_BYTES} the validator reads, so the session was not checked; "
                "a session holds a capped working set of a few kilobytes: find out what made it grow"))
        else:
            found.extend(check_session(display, read.text))
    else:
        name = os.path.basename(display)
        link = name[:-3] if name.endswith(".md") else name
        entry_found, summary = check_entry(display, link, read.text, read.size if read.truncated else None)
        found.extend(entry_found)
    for secret in scan_secrets(read.text):
        found.append(diagnostic(
            rules.SECRET, display,
            f"something shaped like a {secret.kind} (not shown here): remove it from the store and rotate it",
            secret.line, secret.column))
    return found, summary


# What a worker sends back for one file: its findings and summary as plain
# tuples (named tuples pickle with their class, several times slower).
_Packed = tuple[tuple[tuple, ...], tuple | None]


def _check_chunk(work: list[tuple[str, str, str]]) -> list[_Packed]:
    packed = []
    for item in work:
        found, summary = check_file(*item)
        packed.append((tuple(map(tuple, found)), None if summary is None else tuple(summary)))
    return packed


def _unpack(packed: _Packed) -> tuple[tuple[Diagnostic, ...], EntrySummary | None]:
    found, summary = packed
    return tuple(Diagnostic(*item) for item in found), None if summary is None else EntrySummary(*summary)


def _ignore_interrupts() -> None:
    # Ctrl-C reaches the whole process group: the main process stops the pool.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class _Checker:
    """Checks files in order, in a process pool (made once, when first needed) for large stores."""

    def __init__(self, jobs: int):
        self.jobs = jobs
        self._pool = None  # a ProcessPoolExecutor
        self._pool_failed = False

    def map(self, work: Iterable[tuple[str, str, str]], count: int
            ) -> Iterator[tuple[tuple[Diagnostic, ...], EntrySummary | None]]:
        pool = self._get_pool() if self.jobs > 1 and count >= PARALLEL_THRESHOLD else None
        if pool is None:
            for item in work:
                yield check_file(*item)
            return
        items = iter(work)
        in_flight: deque[tuple[list, Future]] = deque()
        while True:
            while len(in_flight) < self.jobs * _TASKS_PER_WORKER:
                chunk = list(islice(items, _CHUNK))
                if not chunk:
                    break
                in_flight.append((chunk, pool.submit(_check_chunk, chunk)))
            if not in_flight:
                return
            chunk, future = in_flight.popleft()
            try:
                results = future.result()
            except Exception:  # a worker that died (killed, out of memory): check the chunk here
                yield from (check_file(*item) for item in chunk)
                continue
            for packed in results:
                yield _unpack(packed)

    def _get_pool(self):
        if self._pool is None and not self._pool_failed:
            import multiprocessing  # only when a pool pays: these import much
            from concurrent.futures import ProcessPoolExecutor

            prepare()  # the schema compiled once here, inherited by forked workers
            methods = multiprocessing.get_all_start_methods()
            context = multiprocessing.get_context("fork" if "fork" in methods else None)
            try:
                self._pool = ProcessPoolExecutor(max_workers=self.jobs, mp_context=context,
                                                 initializer=_ignore_interrupts)
            except (OSError, RuntimeError, ValueError):  # no processes to be had: check here
                self._pool_failed = True
        return self._pool

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


def events(plan: list[Target], jobs: int = 1) -> Iterator[Event]:
    """The findings of every target, as events in output order."""
    checker = _Checker(jobs)
    try:
        for target in plan:
            yield from _target_events(list_target(target), checker)
    finally:
        checker.close()


def _target_events(listing: Listing, checker: _Checker) -> Iterator[Event]:
    target = listing.target
    count = listing.entry_count + len(listing.sessions)
    store_like = target.layout != "files"  # loose files named on the command line are no store
    if store_like:
        yield StoreStarted(target.display, f"{target.description}: {count} file{'s' if count != 1 else ''} to check")
    for note in listing.root_notes:
        yield FileChecked(note.path, (note,), checked=False)
    for path, display in listing.sessions:
        found, _summary = check_file(path, display, "session")
        yield FileChecked(display, found)

    # Paths made by concatenation: an os.path.join per file shows at 100,000 files.
    shown_prefix = os.path.join(target.entries_display, "")
    read_prefix = os.path.join(target.entries_dir, "")
    store = StoreLinks(listing.link_names, lambda link: f"{shown_prefix}{link}.md")
    notes = listing.notes
    work = ((read_prefix + name, shown_prefix + name, "entry") for name in listing.names if name not in notes)
    results = checker.map(work, listing.entry_count)
    for name in listing.names:
        if name in notes:
            yield FileChecked(notes[name].path, (notes[name],), checked=False)
            continue
        display = shown_prefix + name
        found, summary = next(results)
        if summary is not None:
            more = store.entry(display, summary)
            if more:
                found = in_order(found + tuple(more))
        yield FileChecked(display, found)
    group: list[Diagnostic] = []
    for found in store.finish():
        if group and group[0].path != found.path:
            yield StoreFindings(target.display, tuple(group))
            group = []
        group.append(found)
    if group:
        yield StoreFindings(target.display, tuple(group))
    if store_like:
        yield StoreFinished(target.display)


@dataclass(frozen=True)
class Report:
    """Everything one run found, collected (for tests and small inputs)."""

    files: tuple[str, ...]               # every file checked, in output order
    diagnostics: tuple[Diagnostic, ...]  # in output order


def validate(paths: list[str], jobs: int = 1) -> Report:
    """Check every store, entry file and session file named by `paths`
    (raises discovery.NothingFound when a directory holds nothing to check)."""
    files: list[str] = []
    found: list[Diagnostic] = []
    for event in events(targets(paths), jobs):
        if isinstance(event, FileChecked) and event.checked:
            files.append(event.path)
        found.extend(getattr(event, "diagnostics", ()))
    return Report(tuple(files), tuple(found))
