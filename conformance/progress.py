"""A one-line progress display for long commands (`run`, `mutants`, `fuzz`).

It redraws a single status line on stderr while work goes on, and shows
nothing at all when stderr is not a terminal (CI logs, pipes) or when the
user asked for `--quiet`: progress is for a person watching, never part of
a command's output. `note` prints a lasting line above the status line
(only when the display is on).
"""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import TextIO

# Redraw at most this often: a fast run finishes thousands of vectors a second.
REDRAW_SECONDS = 0.1


def wanted(stream: TextIO, quiet: bool = False) -> bool:
    """Progress is shown on an interactive terminal only, and never with --quiet."""
    if quiet or os.environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


class Progress:
    """`done`/`total` units of work under a label, e.g. `[2/28] reference: 345/774 vectors`."""

    def __init__(self, total: int | None, unit: str, label: str = "", *, quiet: bool = False,
                 stream: TextIO | None = None):
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = wanted(self.stream, quiet)
        self.total = total
        self.unit = unit
        self.label = label
        self.done = 0
        self.detail = ""
        self._started = time.monotonic()
        self._drawn_at = 0.0
        self._width = 0
        self._lock = threading.Lock()

    def advance(self, count: int = 1, detail: str | None = None) -> None:
        with self._lock:
            self.done += count
            if detail is not None:
                self.detail = detail
            if self.enabled and (time.monotonic() - self._drawn_at >= REDRAW_SECONDS
                                 or self.done == self.total):
                self._draw()

    def update(self, done: int | None = None, detail: str | None = None, total: int | None = None) -> None:
        with self._lock:
            if done is not None:
                self.done = done
            if detail is not None:
                self.detail = detail
            if total is not None:
                self.total = total
            if self.enabled and time.monotonic() - self._drawn_at >= REDRAW_SECONDS:
                self._draw()

    def note(self, text: str) -> None:
        """A lasting line (shown only when the display is on), the status line redrawn below it."""
        with self._lock:
            if self.enabled:
                self._erase()
                print(text, file=self.stream, flush=True)
                self._draw()

    def close(self) -> None:
        with self._lock:
            if self.enabled:
                self._erase()
            self.enabled = False

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def line(self) -> str:
        # Past the total (a fuzz property shrinking a counterexample) only the count is shown.
        count = f"{self.done}/{self.total}" if self.total and self.done <= self.total else str(self.done)
        elapsed = int(time.monotonic() - self._started)
        parts = [self.label, f"{count} {self.unit}", self.detail, f"{elapsed // 60}:{elapsed % 60:02d}"]
        return "  ".join(part for part in parts if part)

    def _draw(self) -> None:
        text = self.line()
        columns = _columns(self.stream)
        if len(text) >= columns:
            text = text[: columns - 2] + "…"
        self.stream.write("\r" + text + " " * max(0, self._width - len(text)))
        self.stream.flush()
        self._width = len(text)
        self._drawn_at = time.monotonic()

    def _erase(self) -> None:
        if self._width:
            self.stream.write("\r" + " " * self._width + "\r")
            self.stream.flush()
            self._width = 0


def _columns(stream: TextIO) -> int:
    try:
        return os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, OSError, ValueError):
        return 80
