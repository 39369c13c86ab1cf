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
import shutil
import threading
from pathlib import Path
from typing import Callable

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
        self._lock = threading.Lock()

    def watch(self, directory: Path, allowed: Allowed) -> None:
        self._watched[Path(directory)] = allowed

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
                    if allowed(entry):
                        continue
                    path = Path(entry.path)
                    strays.append(os.path.relpath(path, self.root))
                    if entry.is_dir(follow_symlinks=False):
                        shutil.rmtree(path, ignore_errors=True)
                    else:
                        path.unlink(missing_ok=True)
        return sorted(strays)
