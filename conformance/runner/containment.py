"""Files an adapter created in the runner's temporary area, outside the scratch directories it was given.

An adapter may write in its own scratch directory (its working directory,
HOME and TMPDIR) and in the scratch directory of the vector it is serving.
The directories around those belong to the runner: a worker's vector area
holds only the scratch directory of the vector it runs, the adapters' area
only adapter scratch directories. Anything else that appears there was
made by an adapter (`store/../../x`, `$HOME/../../x`, a write into another
vector's old path) and is charged to the vector that was running.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Callable

from conformance.runner.adapter_files import remove_tree

Allowed = Callable[[os.DirEntry], bool]


def nothing(entry: os.DirEntry) -> bool:
    return False


def adapter_scratch(entry: os.DirEntry) -> bool:
    return entry.name.startswith("adapter-") and entry.is_dir(follow_symlinks=False)


class StrayWatch:
    """Directories where only the runner creates entries; `take()` finds, removes and names the others."""

    def __init__(self, root: Path):
        self.root = Path(root)   # the paths reported are relative to it
        self._watched: dict[Path, Allowed] = {}
        self._excused: set[str] = set()      # paths of the runner's own that it could not remove
        self._lock = threading.Lock()

    def watch(self, directory: Path, allowed: Allowed) -> None:
        self._watched[Path(directory)] = allowed

    def excuse(self, directory: Path, prefix: str) -> None:
        """Entries of `directory` whose names start with `prefix` are the runner's own from now on
        (a vector's scratch directory its adapter made unremovable: that vector was charged)."""
        with self._lock:
            try:
                entries = list(os.scandir(directory))
            except OSError:
                return
            self._excused.update(entry.path for entry in entries if entry.name.startswith(prefix))

    def take(self, directories: list[Path]) -> list[str]:
        """The entries of `directories` (watched ones) that must not be there, removed, relative to the root."""
        strays: list[str] = []
        with self._lock:
            for directory in directories:
                allowed = self._watched[directory]
                try:
                    entries = list(os.scandir(directory))
                except OSError:
                    continue
                for entry in entries:
                    if entry.path in self._excused or allowed(entry):
                        continue
                    path = Path(entry.path)
                    shown = os.path.relpath(path, self.root)
                    left = remove_tree(path, shown).left
                    if left:  # reported once, with what could not be removed
                        self._excused.add(entry.path)
                        shown += f" (not removable: {', '.join(left[:3])})"
                    strays.append(shown)
        return sorted(strays)
