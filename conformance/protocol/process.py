"""One adapter subprocess with line I/O that never blocks forever.

`AdapterProcess` starts the adapter in its scratch directory, hands out its
stdout one line at a time with a timeout (a reader thread feeds a queue),
and keeps the last few KiB of its stderr in a ring buffer for failure
reports. It knows nothing about JSON: `client.py` speaks the protocol on
top of it, and the doctor uses it directly to watch the raw stream.
"""

from __future__ import annotations

import os
import queue
import select
import shlex
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import Mapping, Sequence

from conformance.protocol.messages import SUPPORTED_PROTOCOLS

STDERR_TAIL_BYTES = 4096

# Variables that point an implementation at the user's real files; the
# adapter must only see its scratch HOME (docs/adapter-protocol.md, E4).
_HIDDEN_VARIABLES = ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME")


class StartError(Exception):
    """The adapter command could not be started at all."""


def resolve_command(command: str | Sequence[str], base: Path | None = None) -> list[str]:
    """The adapter command as an argv list, ready to run from a scratch directory.

    The adapter runs with a scratch working directory, so an argument that
    names an existing file relative to where memoir-conform was started
    (`python runners/fake/adapter.py`) is made absolute first. The program
    itself is left to PATH lookup unless it contains a slash.
    """
    argv = shlex.split(command) if isinstance(command, str) else [str(part) for part in command]
    if not argv:
        raise StartError("the adapter command is empty")
    base = Path.cwd() if base is None else base
    resolved = []
    for index, token in enumerate(argv):
        looks_like_path = index > 0 or "/" in token or os.sep in token
        if looks_like_path and not token.startswith("-") and not os.path.isabs(token) and (base / token).exists():
            token = os.path.abspath(base / token)
        resolved.append(token)
    return resolved


def adapter_environment(home: Path, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment an adapter runs in: the caller's, isolated to a scratch HOME."""
    source = os.environ if base is None else base
    env = {
        name: value
        for name, value in source.items()
        if name not in _HIDDEN_VARIABLES and not name.startswith("MEMOIR_")
    }
    env["HOME"] = str(home)
    env["USERPROFILE"] = str(home)  # HOME's counterpart on Windows
    env["MEMOIR_CONFORM_PROTOCOL"] = str(max(SUPPORTED_PROTOCOLS))
    env["PYTHONUNBUFFERED"] = "1"
    return env


class AdapterProcess:
    """A started adapter: send lines, read lines with a timeout, stop it."""

    def __init__(self, argv: Sequence[str], *, cwd: Path, env: Mapping[str, str]):
        self.argv = list(argv)
        try:
            self.popen = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=cwd,
                env=dict(env),
                # Own process group, so that stopping a shell-script adapter
                # also stops whatever it started.
                start_new_session=os.name == "posix",
            )
        except OSError as error:
            reason = error.strerror or str(error)
            raise StartError(f"could not start {shlex.join(self.argv)}: {reason}") from None
        self._lines: queue.Queue[bytes | None] = queue.Queue()
        self._at_eof = False
        self._stderr = bytearray()
        self._stderr_received = 0   # bytes ever read from stderr: marks for stderr_since()
        self._stderr_lock = threading.Lock()
        self._stdout_thread = threading.Thread(target=self._pump_stdout, daemon=True)
        self._stderr_thread = threading.Thread(target=self._pump_stderr, daemon=True)
        self._stdout_thread.start()
        self._stderr_thread.start()

    # -- reader threads ---------------------------------------------------

    def _pump_stdout(self) -> None:
        stream = self.popen.stdout
        try:
            for line in iter(stream.readline, b""):
                self._lines.put(line)
        except (OSError, ValueError):
            pass
        finally:
            self._lines.put(None)
            stream.close()

    def _pump_stderr(self) -> None:
        stream = self.popen.stderr
        try:
            while chunk := stream.read1(4096):
                with self._stderr_lock:
                    self._stderr += chunk
                    self._stderr_received += len(chunk)
                    del self._stderr[:-STDERR_TAIL_BYTES]
        except (OSError, ValueError):
            pass
        finally:
            stream.close()

    # -- I/O --------------------------------------------------------------

    @property
    def pid(self) -> int:
        return self.popen.pid

    def send(self, text: str) -> bool:
        """Write `text` to the adapter's stdin; False if the adapter is gone."""
        try:
            self.popen.stdin.write(text.encode("utf-8"))
            self.popen.stdin.flush()
            return True
        except (BrokenPipeError, ConnectionResetError, OSError, ValueError):
            return False

    def read_line(self, timeout: float) -> bytes | None:
        """The next stdout line (newline kept), None at end of output.

        Raises TimeoutError when no line arrives within `timeout` seconds.
        """
        if self._at_eof:
            return None
        try:
            line = self._lines.get(timeout=max(timeout, 0.0))
        except queue.Empty:
            raise TimeoutError(timeout) from None
        if line is None:
            self._at_eof = True
        return line

    def close_stdin(self) -> None:
        try:
            self.popen.stdin.close()
        except (OSError, ValueError):
            pass

    # -- lifetime ---------------------------------------------------------

    @property
    def returncode(self) -> int | None:
        return self.popen.poll()

    def wait(self, timeout: float) -> int | None:
        """The exit code, or None if the adapter is still running after `timeout`."""
        try:
            return self.popen.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None

    def kill(self) -> None:
        """Stop the adapter (and its process group) now; idempotent."""
        if self.popen.poll() is None:
            try:
                if os.name == "posix":
                    os.killpg(self.popen.pid, signal.SIGKILL)
                else:
                    self.popen.kill()
            except (ProcessLookupError, PermissionError):
                pass
        elif os.name == "posix":
            # The leader is gone but children it started may still hold the pipes.
            try:
                os.killpg(self.popen.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        try:
            self.popen.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        self.close_stdin()

    def stderr_tail(self, settle: float = 0.0) -> str:
        """The last few KiB of stderr; `settle` waits for a finished adapter's last words."""
        if settle and self.popen.poll() is not None:
            self._stderr_thread.join(settle)
        with self._stderr_lock:
            return bytes(self._stderr).decode("utf-8", errors="replace")

    def _stderr_pending(self) -> bool:
        """Bytes wait in the stderr pipe for the reader thread."""
        if os.name != "posix" or not self._stderr_thread.is_alive():
            return False
        try:
            readable, _, _ = select.select([self.popen.stderr], [], [], 0)
        except (OSError, ValueError):
            return False
        return bool(readable)

    def stderr_mark(self) -> int:
        """A mark for `stderr_since`: how many bytes stderr has carried so far."""
        with self._stderr_lock:
            return self._stderr_received

    def stderr_since(self, mark: int, settle: float = 0.0) -> str:
        """What stderr carried after `mark` (its last few KiB); `settle` waits up
        to that long for what the adapter wrote but the reader thread has not read yet."""
        deadline = time.monotonic() + settle
        while self._stderr_pending() and time.monotonic() < deadline:
            time.sleep(0.002)
        with self._stderr_lock:
            new = self._stderr_received - mark
            return bytes(self._stderr[-new:] if new > 0 else b"").decode("utf-8", errors="replace")
