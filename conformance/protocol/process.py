"""One adapter subprocess: bounded line I/O, limits, and a stop that leaves nothing behind.

`AdapterProcess` starts the adapter in its scratch directory, in a session
(and so a process group) of its own, with resource limits and optionally in
a bubblewrap sandbox. It writes request lines and reads response lines
under a deadline, never holding more than one line of at most
`max_line_bytes` in memory, and keeps the last few KiB of stderr for
failure reports. It knows nothing about JSON: `client.py` speaks the
protocol on top of it, and the doctor uses it directly to watch the raw
stream.

On Linux the adapter runs below a reaper process (`reaper.py`), its child
subreaper: the runner's child is the reaper, `pid` is the adapter's. The
runner cannot be the subreaper itself: it would adopt orphans it never
reaps (waiting for any child would steal its subprocesses' exit statuses),
and a forking chain exhausted the pid space in CI that way. The reaper kills
everything the adapter left when it exits, and mirrors its exit status.
Stopping an adapter asks the reaper first (SIGTERM, `REAPER_GRACE`); then,
as a second line, SIGKILLs the process groups of a reaper that did not
finish, whatever is still below it, and every process that carries the
adapter's marker variable (`MARKER_VARIABLE`) in its environment.
`stopping_adapters()` stops every adapter this program started (for Ctrl-C
and SIGTERM) and refuses new ones while it lasts.

The sandbox (`sandbox_command`) gives the adapter no capabilities in a user
namespace of its own, whatever the runner's uid, empty read-only
directories where host sockets and users' files live, and no host socket.
"""

from __future__ import annotations

import atexit
import functools
import importlib.resources
import itertools
import os
import select
import shlex
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Mapping, Sequence

from conformance.protocol.messages import SUPPORTED_PROTOCOLS
from conformance.protocol.reaper import PR_SET_CHILD_SUBREAPER
from conformance.protocol.reaper import children as _children
from conformance.safe_text import printable

STDERR_TAIL_BYTES = 4096
STDERR_CHUNK_BYTES = 65536
MiB = 1024 * 1024
DEFAULT_MAX_LINE_BYTES = 16 * MiB
DEFAULT_MEMORY_BYTES = 4096 * MiB
DEFAULT_CPU_SECONDS = 3600
READ_CHUNK = 256 * 1024

# Every process an adapter starts inherits this variable; its value names
# the adapter process, so that stopping it also finds descendants that
# left its process group. The value starts with one token per program run.
MARKER_VARIABLE = "MEMOIR_CONFORM_ADAPTER"
_RUN_TOKEN = uuid.uuid4().hex
_serial = itertools.count(1)

# Variables that point an implementation at the user's real files; the
# adapter must only see its scratch HOME (docs/adapter-protocol.md, E4).
_HIDDEN_VARIABLES = ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME")
_POSIX = os.name == "posix"


class StartError(Exception):
    """The adapter command could not be started at all."""


class LineTooLong(Exception):
    """A stdout line grew past the limit; the rest of it is skipped unread."""

    def __init__(self, limit: int):
        # The one wording of the fault, wherever the line comes (an answer, a trailing line, the doctor).
        super().__init__(f"longer than {limit} bytes, the line limit")
        self.limit = limit


@dataclass(frozen=True)
class AdapterLimits:
    """What an adapter process may use (docs/adapter-protocol.md, "Limits")."""

    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
    memory_bytes: int | None = DEFAULT_MEMORY_BYTES   # RLIMIT_DATA of each process; None: no limit
    cpu_seconds: int | None = DEFAULT_CPU_SECONDS     # RLIMIT_CPU of each process; None: no limit
    sandbox: bool = False                             # run inside bubblewrap
    writable: tuple[Path, ...] = ()                   # sandbox: writable besides the scratch directory


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


def adapter_environment(home: Path, base: Mapping[str, str] | None = None, *, tmp: Path | None = None) -> dict[str, str]:
    """The environment an adapter runs in: the caller's, isolated to a scratch HOME (and TMPDIR)."""
    source = os.environ if base is None else base
    env = {
        name: value
        for name, value in source.items()
        if name not in _HIDDEN_VARIABLES and not name.startswith("MEMOIR_")
    }
    env["HOME"] = str(home)
    env["USERPROFILE"] = str(home)  # HOME's counterpart on Windows
    if tmp is not None:
        for name in ("TMPDIR", "TMP", "TEMP"):
            env[name] = str(tmp)
    env["MEMOIR_CONFORM_PROTOCOL"] = str(max(SUPPORTED_PROTOCOLS))
    env["PYTHONUNBUFFERED"] = "1"
    return env


# -- the sandbox --------------------------------------------------------------

# Where host unix sockets, temporary files and users' files live: each is an
# empty tmpfs inside the sandbox (when it exists and is a directory, not a link).
HIDDEN_DIRECTORIES = ("/tmp", "/var/tmp", "/run", "/var/run", "/home", "/root", "/mnt", "/media",
                      "/var/lib/docker", "/var/lib/containers")


def _hidden_directories() -> list[Path]:
    extra = [os.environ.get(name) for name in ("HOME", "XDG_RUNTIME_DIR", "TMPDIR")]
    hidden = []
    for name in [*HIDDEN_DIRECTORIES, *filter(None, extra)]:
        path = Path(name)
        if path.is_absolute() and path != Path("/") and path.is_dir() and not path.is_symlink():
            hidden.append(path)
    return list(dict.fromkeys(hidden))


def _host_sockets() -> list[Path]:
    """The path sockets bound in this network namespace (/proc/net/unix) that exist here."""
    try:
        with open("/proc/net/unix", encoding="utf-8", errors="replace") as table:
            lines = table.read().splitlines()[1:]
    except OSError:
        return []
    found = []
    for line in lines:
        fields = line.split(None, 7)
        if len(fields) == 8 and fields[7].startswith("/"):
            try:
                if stat.S_ISSOCK(os.lstat(fields[7]).st_mode):
                    found.append(Path(fields[7]))
            except OSError:
                continue
    return list(dict.fromkeys(found))


def _under(path: Path, roots: Sequence[Path]) -> bool:
    return any(path == root or root in path.parents for root in roots)


def _needed_paths(argv: Sequence[str]) -> list[Path]:
    """What the adapter command needs to read: the files its arguments name, its program, the
    virtual environment around a program, and the directory the runner was started in."""
    needed = [Path.cwd()]
    program = shutil.which(argv[0]) if argv else None
    for token in [*argv, *([program] if program else [])]:
        if os.path.isabs(token) and os.path.exists(token):
            for path in dict.fromkeys([Path(token), Path(token).resolve()]):
                needed.append(path)
                if path.parent.name == "bin":
                    # A program's installation (lib/ next to bin/): a virtual environment, pyenv, nvm.
                    needed.append(path.parent.parent)
    return list(dict.fromkeys(needed))


def sandbox_command(argv: Sequence[str], scratch: Path, writable: Sequence[Path] = ()) -> list[str]:
    """`argv` inside bubblewrap: no capabilities, the file system read-only, only `scratch`
    and `writable` writable, no network, no host socket.

    Whatever the runner's uid, the adapter gets a user namespace of its own
    and no capability in it (so it cannot remount anything), empty
    directories where host sockets and users' files live (`/tmp`, `/run`,
    the home directories, ...), and every other host socket covered by
    `/dev/null`. What the command itself needs from a hidden directory (its
    files, its program's virtual environment, the runner's working directory)
    is bound back read-only. The adapter gets its own PID namespace, and
    bubblewrap dies with the runner: when the sandbox's first process ends,
    the kernel ends every process inside it.
    """
    command = ["bwrap", "--unshare-user", "--cap-drop", "ALL", "--ro-bind", "/", "/", "--dev", "/dev",
               "--proc", "/proc", "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
               "--die-with-parent", "--new-session"]
    hidden = _hidden_directories()
    for path in hidden:
        command += ["--tmpfs", str(path)]
    shown = [path for path in _needed_paths(argv)
             if _under(path, hidden) and not any(path == root or path in root.parents for root in hidden)]
    for path in shown:
        command += ["--ro-bind-try", str(path), str(path)]
    writable_paths = list(dict.fromkeys([Path(scratch), *map(Path, writable)]))
    for socket_path in _host_sockets():
        if (not _under(socket_path, hidden) or _under(socket_path, shown)) and not _under(socket_path, writable_paths):
            command += ["--ro-bind", "/dev/null", str(socket_path)]
    for path in writable_paths:
        command += ["--bind", str(path), str(path)]
    for path in hidden:  # empty and read-only: a write there fails as it would anywhere outside
        command += ["--remount-ro", str(path)]
    return command + ["--chdir", str(scratch), "--", *argv]


@functools.cache
def sandbox_problem() -> str | None:
    """None when `--sandbox` works on this machine, else why not (checked once)."""
    if not _POSIX or shutil.which("bwrap") is None:
        return "bubblewrap (bwrap) is not installed; on Debian or Ubuntu: apt-get install bubblewrap"
    try:
        with tempfile.TemporaryDirectory(prefix="memoir-conform-sandbox-") as probe:
            done = subprocess.run(sandbox_command(["true"], Path(probe)), capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"bubblewrap does not run here: {error}"
    if done.returncode != 0:
        reason = done.stderr.decode("utf-8", errors="replace").strip() or f"exit code {done.returncode}"
        return f"bubblewrap does not work here: {printable(reason)}"
    return None


# -- every adapter process of this program ---------------------------------------

_live_lock = threading.Lock()
_live: set[AdapterProcess] = set()
_stopping = 0


@contextmanager
def stopping_adapters() -> Iterator[None]:
    """Stop every adapter process this program started; start no new one until the block ends.

    For Ctrl-C and SIGTERM: worker threads whose adapter disappears end
    their vector with a fault, and cannot start a replacement meanwhile.
    """
    global _stopping
    with _live_lock:
        _stopping += 1
        processes = list(_live)
    try:
        for process in processes:
            process.stop()
        _kill_marked(lambda value: value.startswith(_RUN_TOKEN))
        yield
    finally:
        with _live_lock:
            _stopping -= 1


def _other_children(process: AdapterProcess) -> set[int]:
    """The pids of the runner's other children (adapters or their reapers): a sweep leaves them alone."""
    with _live_lock:
        return {other.popen.pid for other in _live if other is not process}


def _register(process: AdapterProcess) -> None:
    with _live_lock:
        if _stopping:
            raise StartError("memoir-conform is stopping: no new adapter process is started")
        _live.add(process)


@atexit.register
def _stop_leftovers() -> None:
    with _live_lock:
        processes = list(_live)
    for process in processes:
        process.stop()
    if processes:
        _kill_marked(lambda value: value.startswith(_RUN_TOKEN))


def _marked_pids(matches: Callable[[str], bool]) -> list[int]:
    """Processes whose environment holds a MARKER_VARIABLE value that `matches` (Linux /proc)."""
    prefix = f"{MARKER_VARIABLE}=".encode()
    found = []
    try:
        entries = os.listdir("/proc")
    except OSError:
        return found
    for name in entries:
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as handle:
                environ = handle.read()
        except OSError:
            continue  # gone, a zombie, or not ours to read
        for entry in environ.split(b"\0"):
            if entry.startswith(prefix) and matches(entry[len(prefix):].decode("ascii", errors="replace")):
                found.append(int(name))
                break
    return found


# -- the process tree: sweeping what an adapter started --------------------------

SWEEP_SECONDS = 3.0   # how long a sweep keeps killing what a forking adapter keeps starting
_QUIET_ROUNDS = 3     # rounds in a row that find nothing before a sweep ends


def _session_of(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            return int(handle.read().rsplit(")", 1)[1].split()[3])
    except (OSError, ValueError, IndexError):
        return None


def _marker_of(pid: int) -> str | None:
    prefix = f"{MARKER_VARIABLE}=".encode()
    try:
        with open(f"/proc/{pid}/environ", "rb") as handle:
            environ = handle.read()
    except OSError:
        return None
    for entry in environ.split(b"\0"):
        if entry.startswith(prefix):
            return entry[len(prefix):].decode("ascii", errors="replace")
    return None


def _descendants(roots: list[int]) -> set[int]:
    found: set[int] = set()
    pending = list(roots)
    while pending:
        pid = pending.pop()
        for child in _children(pid):
            if child not in found:
                found.add(child)
                pending.append(child)
    return found


def _sweep(leader: int, marker: str, others: set[int]) -> None:
    """SIGKILL the adapter `leader`'s descendants, and the orphans of it that were handed to the
    runner (its session, or its marker), again and again until a few rounds find nothing: a
    process that forks and lets its parent exit cannot outrun it. `others` are pids never touched
    (the runner's other children)."""
    me = os.getpid()
    killed: set[int] = set()
    deadline = time.monotonic() + SWEEP_SECONDS
    quiet = 0
    while quiet < _QUIET_ROUNDS and time.monotonic() < deadline:
        orphans = [pid for pid in _children(me)
                   if pid not in others and pid != leader and (_session_of(pid) == leader or _marker_of(pid) == marker)]
        found = (_descendants([leader, *orphans]) | set(orphans)) - others - {me, leader}
        found -= {pid for pid in found if pid in killed and _zombie(pid)}
        if not found:
            quiet += 1
            time.sleep(0.002)
            continue
        quiet = 0
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
                killed.add(pid)
            except (ProcessLookupError, PermissionError):
                pass
        _reap(killed, others | {leader})
    _reap(killed, others | {leader})


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except (OSError, IndexError):
        return True


def _reap(pids: set[int], others: set[int]) -> None:
    """Collect the exit status of killed orphans handed to the runner (never of its other children)."""
    for pid in list(pids - others):
        try:
            if os.waitpid(pid, os.WNOHANG)[0] == pid:
                pids.discard(pid)
        except ChildProcessError:
            pids.discard(pid)   # not our child: init or its own parent reaps it
        except OSError:
            pass


def _kill_marked(matches: Callable[[str], bool], rounds: int = 20) -> None:
    """SIGKILL every marked process, again until none is left (one may fork while we look)."""
    for _ in range(rounds):
        pids = _marked_pids(matches)
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        time.sleep(0.005)


# -- the reaper: the adapter's parent, and its subreaper --------------------------

REAPER_START_SECONDS = 30.0   # how long the reaper may take to say the adapter runs (a loaded machine)
REAPER_GRACE = 2.0            # how long stop() lets the reaper kill what the adapter left, before SIGKILL


def _reaper_command(command: Sequence[str], status_fd: int) -> list[str] | None:
    """`command` run under reaper.py (see its docstring), or None where there is no reaper (not Linux)."""
    if not sys.platform.startswith("linux") or not sys.executable:
        return None
    script = importlib.resources.files("conformance.protocol").joinpath("reaper.py")
    return [sys.executable, "-I", "-S", str(script), str(status_fd), "--", *command]


def _read_status(fd: int, timeout: float, lines: int = 1) -> bytes:
    """What the reaper wrote on its status pipe within `timeout`: up to its `lines`-th newline (or a
    little more), or all of it once it closed the pipe (timeout 0: what is there now, without waiting)."""
    data = bytearray()
    deadline = time.monotonic() + timeout
    while data.count(b"\n") < lines or timeout == 0:
        if not _wait_for(fd, select.POLLIN, deadline - time.monotonic()):
            break
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            continue
        except OSError:
            break
        if not chunk:
            break
        data += chunk
    return bytes(data)


def _started_pid(status: bytes, argv: Sequence[str]) -> tuple[int, bytes]:
    """The adapter's pid from the reaper's start lines (`pid N`, then `started` or `error ERRNO`), and
    the status lines read after them; StartError when it did not start."""
    first, _, rest = status.partition(b"\n")
    words = first.split()
    if not (len(words) == 2 and words[0] == b"pid" and words[1].isdigit()):
        raise StartError(f"could not start {shlex.join(argv)}: "
                         f"its reaper process did not start it within {REAPER_START_SECONDS:g} s")
    second, _, after = rest.partition(b"\n")
    outcome = second.split()
    if len(outcome) == 2 and outcome[0] == b"error" and outcome[1].isdigit():
        raise StartError(f"could not start {shlex.join(argv)}: {os.strerror(int(outcome[1]))}")
    # `started`, or nothing more: the adapter killed its reaper at once; it runs, and its pid is known.
    return int(words[1]), (after if outcome == [b"started"] else rest)


@functools.cache
def _prctl() -> Callable[..., int] | None:
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


def _before_exec(limits: AdapterLimits, subreaper: bool) -> Callable[[], None] | None:
    """A function run in the child before exec: the rlimits, and making the reaper the child subreaper.

    The runner does the prctl for the reaper (the setting survives execve) so that the
    reaper need not import ctypes, which is most of what its start costs."""
    limit = _limit_resources(limits)
    prctl = _prctl() if subreaper else None
    if limit is None and prctl is None:
        return None

    def prepare() -> None:
        if prctl is not None:
            prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)   # if it fails, orphans go to init: the sweep remains
        if limit is not None:
            limit()

    return prepare


def _limit_resources(limits: AdapterLimits) -> Callable[[], None] | None:
    """A function run in the child before exec that applies the rlimits, or None."""
    if not _POSIX or (limits.memory_bytes is None and limits.cpu_seconds is None):
        return None
    import resource

    wanted = []
    # The CPU limit's hard value is one second later: SIGXCPU first, which names the cause, then SIGKILL.
    for kind, value, grace in ((resource.RLIMIT_DATA, limits.memory_bytes, 0),
                               (resource.RLIMIT_CPU, limits.cpu_seconds, 1)):
        if value is not None:
            _, hard = resource.getrlimit(kind)
            if hard != resource.RLIM_INFINITY:
                value, grace = min(value, hard), min(grace, max(hard - value, 0))
            wanted.append((kind, (value, value + grace)))

    def apply() -> None:  # runs between fork and exec: plain system calls only
        for kind, pair in wanted:
            resource.setrlimit(kind, pair)

    return apply


def _wait_for(fd: int, events: int, timeout: float) -> bool:
    poller = select.poll()
    poller.register(fd, events)
    return bool(poller.poll(max(timeout, 0.0) * 1000))


class AdapterProcess:
    """A started adapter: send lines, read lines under a deadline, stop it and all it started."""

    def __init__(self, argv: Sequence[str], *, cwd: Path, env: Mapping[str, str],
                 limits: AdapterLimits = AdapterLimits()):
        self.argv = list(argv)
        self.limits = limits
        self.marker = f"{_RUN_TOKEN}-{next(_serial)}"
        command = sandbox_command(self.argv, Path(cwd), limits.writable) if limits.sandbox else self.argv
        # Under --sandbox too: the PID namespace contains the tree already, but the reaper keeps what
        # `pid`, `leftovers()` and the exit status mean the same in both modes.
        self._status_fd, status_w = os.pipe() if sys.platform.startswith("linux") else (None, None)
        reaped = _reaper_command(command, status_w) if status_w is not None else None
        if reaped is None and status_w is not None:
            os.close(self._status_fd)
            os.close(status_w)
            self._status_fd = None
        self._left: list[int] | None = None   # what the reaper killed when the adapter ended
        self._status_rest = b""               # status lines read with the start lines, not yet looked at
        try:
            self.popen = subprocess.Popen(
                reaped or command,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=cwd,
                env={**env, MARKER_VARIABLE: self.marker},
                # A session of its own (the reaper's; the adapter gets another one below it), so that
                # stopping it stops its whole process group: whatever a shell script started.
                start_new_session=_POSIX,
                # Inherited by the adapter from the reaper: the limits are the adapter's.
                preexec_fn=_before_exec(limits, subreaper=reaped is not None),
                pass_fds=(status_w,) if reaped else (),
            )
        except (OSError, subprocess.SubprocessError) as error:
            self._close_status()
            reason = getattr(error, "strerror", None) or str(error)
            raise StartError(f"could not start {shlex.join(self.argv)}: {reason}") from None
        finally:
            if reaped:
                os.close(status_w)
        try:
            self._pid = self.popen.pid
            if reaped:
                status = _read_status(self._status_fd, REAPER_START_SECONDS, lines=2)
                self._pid, self._status_rest = _started_pid(status, self.argv)
            _register(self)
        except BaseException:
            self.kill()
            self.popen.stderr.close()   # no reader thread was started to close it
            raise
        self._stdin_fd = self.popen.stdin.fileno()
        self._stdout_fd = self.popen.stdout.fileno()
        os.set_blocking(self._stdin_fd, False)
        os.set_blocking(self._stdout_fd, False)
        self._buffer = bytearray()
        self._scanned = 0       # bytes of _buffer known to hold no newline
        self._skipping = False  # inside an over-long line: drop bytes up to its newline
        self._at_eof = False
        self._stdin_open = True
        self._released = False  # pipes closed: their descriptor numbers may belong to other files now
        self._stderr = bytearray()
        self._stderr_received = 0   # bytes ever read from stderr: marks for stderr_since()
        self._stderr_lock = threading.Lock()
        self._stderr_open = True    # the pipe's descriptor is ours until the reader thread closes it
        self._stderr_thread = threading.Thread(target=self._pump_stderr, daemon=True)
        self._stderr_thread.start()

    def _pump_stderr(self) -> None:
        stream = self.popen.stderr
        try:
            if not _POSIX:
                while chunk := stream.read1(4096):
                    with self._stderr_lock:
                        self._keep_stderr(chunk)
                return
            # Every read of the pipe happens under the lock, so that a reader of
            # the buffer can first drain the pipe itself (_drain_stderr): no byte
            # the adapter wrote before its answer is ever in flight in this thread,
            # read from the pipe but not yet in the buffer.
            fd = stream.fileno()
            os.set_blocking(fd, False)
            ready = select.poll()   # not select(): it refuses descriptors past 1023
            ready.register(fd, select.POLLIN)
            while True:
                ready.poll()
                with self._stderr_lock:
                    if not self._read_stderr(fd, reads=1):
                        break
        except (OSError, ValueError):
            pass
        finally:
            with self._stderr_lock:
                self._stderr_open = False
                stream.close()

    def _read_stderr(self, fd: int, reads: int) -> bool:
        """Move up to `reads` chunks from the stderr pipe into the buffer (lock held); False at its end."""
        for _ in range(reads):
            try:
                chunk = os.read(fd, STDERR_CHUNK_BYTES)
            except BlockingIOError:
                return True
            if not chunk:
                return False
            self._keep_stderr(chunk)
        return True

    def _keep_stderr(self, chunk: bytes) -> None:
        self._stderr += chunk
        self._stderr_received += len(chunk)
        del self._stderr[:-STDERR_TAIL_BYTES]

    def _drain_stderr(self) -> None:
        """Read what waits in the stderr pipe now (what the adapter wrote before its last answer is there)."""
        if not _POSIX:
            return
        with self._stderr_lock:
            if self._stderr_open:
                try:
                    # A pipe holds 64 KiB unless the adapter grew it: 16 chunks
                    # empty it, and a flood cannot keep the caller here.
                    self._read_stderr(self.popen.stderr.fileno(), reads=16)
                except (OSError, ValueError):
                    pass

    # -- I/O --------------------------------------------------------------

    @property
    def pid(self) -> int:
        """The adapter's pid (the process the command started, below its reaper)."""
        return self._pid

    def send(self, text: str, timeout: float) -> bool:
        """Write `text` to the adapter's stdin within `timeout` seconds; False if the adapter is gone.

        Raises TimeoutError when the adapter stops reading and the pipe stays full.
        """
        if not self._stdin_open:
            return False
        deadline = time.monotonic() + timeout
        pending = memoryview(text.encode("utf-8"))
        while pending:
            try:
                pending = pending[os.write(self._stdin_fd, pending):]
                continue
            except BlockingIOError:
                pass
            except (OSError, ValueError):
                return False
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(timeout)
            _wait_for(self._stdin_fd, select.POLLOUT, remaining)
        return True

    def read_line(self, timeout: float) -> bytes | None:
        """The next stdout line (newline kept), None at end of output.

        Raises TimeoutError when no whole line arrives within `timeout`
        seconds, and LineTooLong as soon as a line passes the limit.
        """
        deadline = time.monotonic() + max(timeout, 0.0)
        while True:
            line = self._take_line()
            if line is not None:
                return line
            if self._at_eof or self._released:
                rest, self._buffer = bytes(self._buffer), bytearray()
                return rest or None
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not _wait_for(self._stdout_fd, select.POLLIN, remaining):
                raise TimeoutError(timeout)
            self._fill()

    def _fill(self) -> None:
        try:
            chunk = os.read(self._stdout_fd, READ_CHUNK)
        except BlockingIOError:
            return
        except (OSError, ValueError):
            chunk = b""
        if not chunk:
            self._at_eof = True
        elif self._skipping:
            newline = chunk.find(b"\n")
            if newline >= 0:
                self._skipping = False
                self._buffer += chunk[newline + 1:]
        else:
            self._buffer += chunk

    def _take_line(self) -> bytes | None:
        newline = self._buffer.find(b"\n", self._scanned)
        if newline < 0:
            self._scanned = len(self._buffer)
            if self._scanned > self.limits.max_line_bytes:
                # Fault now, without waiting for the end of the line, and drop it as it comes.
                self._buffer.clear()
                self._scanned = 0
                self._skipping = True
                raise LineTooLong(self.limits.max_line_bytes)
            return None
        line = bytes(self._buffer[: newline + 1])
        del self._buffer[: newline + 1]
        self._scanned = 0
        if newline > self.limits.max_line_bytes:
            raise LineTooLong(self.limits.max_line_bytes)
        return line

    def close_stdin(self) -> None:
        self._stdin_open = False
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

    def stop(self) -> None:
        """Stop the adapter and everything it started; safe from any thread.

        The reaper is asked first (SIGTERM: it kills every descendant and
        exits); what is still there after REAPER_GRACE is SIGKILLed: the
        process groups, the descendants, the marked processes. Done even
        after the adapter exited on its own: what it started may live on.
        The pipes stay open (another thread may be reading them).
        """
        if self._status_fd is not None:
            self.popen.send_signal(signal.SIGTERM)   # a no-op once the reaper has exited and been waited for
            try:
                self.popen.wait(timeout=REAPER_GRACE)
            except subprocess.TimeoutExpired:
                pass
        # A reaper that said what it left has killed it all; one that did not was stuck or killed
        # (an adapter can kill its parent), and the adapter's group may live on.
        finished = self._status_fd is not None and self._take_left() is not None
        if _POSIX and not finished:
            # The reaper's group only while it is unwaited for: until then its pid is not reused.
            groups = [self._pid] + ([self.popen.pid] if self.popen.poll() is None else [])
            for group in dict.fromkeys(groups):
                try:
                    os.killpg(group, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
        elif not _POSIX and self.popen.poll() is None:
            self.popen.kill()
        if sys.platform.startswith("linux"):
            _sweep(self.popen.pid, self.marker, _other_children(self))
        _kill_marked(self.marker.__eq__)
        try:
            self.popen.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass

    def kill(self) -> None:
        """Stop the adapter and everything it started, and release its pipes; idempotent."""
        self.stop()
        self.close_stdin()
        self._released = True
        try:
            self.popen.stdout.close()
        except (OSError, ValueError):
            pass
        self._take_left()
        self._close_status()
        with _live_lock:
            _live.discard(self)

    def _close_status(self) -> None:
        # The reaper sees its status pipe close and cleans up: letting go is also a way to stop it.
        fd, self._status_fd = self._status_fd, None
        if fd is not None:
            os.close(fd)

    def _take_left(self) -> list[int] | None:
        """The pids the reaper killed when the adapter ended (its `left` line), once it has exited."""
        if self._left is None and self._status_fd is not None and self.popen.poll() is not None:
            for line in (self._status_rest + _read_status(self._status_fd, 0)).splitlines():
                words = line.split()
                if words[:1] == [b"left"] and all(word.isdigit() for word in words[1:]):
                    self._left = [int(word) for word in words[2:]]
        return self._left

    def leftovers(self) -> list[int]:
        """Processes the adapter started and left running: those its reaper killed when it ended
        (once the reaper has exited), else the live ones in its process group or marked (Linux; [] elsewhere)."""
        left = self._take_left()
        if left is not None:
            return sorted(left)
        found = set(_marked_pids(self.marker.__eq__))
        for name in os.listdir("/proc") if os.path.isdir("/proc") else ():
            try:
                with open(f"/proc/{name}/stat", encoding="ascii", errors="replace") as handle:
                    state, _, group = handle.read().rsplit(")", 1)[1].split()[:3]
            except (OSError, ValueError):
                continue
            if group == str(self._pid) and state != "Z":
                found.add(int(name))
        return sorted(found - {self._pid, self.popen.pid})

    def drain(self, timeout: float, keep: int) -> tuple[list[bytes | LineTooLong], int]:
        """What the adapter writes on stdout until end of output or until `timeout` passes: each line,
        or a LineTooLong for one that passed the limit (its rest is skipped as it comes).

        The first `keep` are returned, with how many came after them: those are read and dropped, so
        that an adapter that writes a flood can still finish (a full pipe would block it) while the
        runner holds at most `keep` (and a count).
        """
        kept: list[bytes | LineTooLong] = []
        dropped = 0
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.read_line(deadline - time.monotonic())
            except TimeoutError:
                break
            except LineTooLong as error:
                line = error
            if line is None:
                break
            if len(kept) < keep:
                kept.append(line)
            else:
                dropped += 1
        return kept, dropped

    def stderr_tail(self, settle: float = 0.0) -> str:
        """The last few KiB of stderr, made printable; `settle` waits for a finished adapter's last words."""
        if settle and self.popen.poll() is not None:
            self._stderr_thread.join(settle)
        self._drain_stderr()
        with self._stderr_lock:
            return printable(bytes(self._stderr).decode("utf-8", errors="replace"), multiline=True)

    def stderr_mark(self) -> int:
        """A mark for `stderr_since`: how many bytes stderr has carried so far."""
        with self._stderr_lock:
            return self._stderr_received

    def stderr_since(self, mark: int) -> str:
        """What stderr carried after `mark` (its last few KiB), the pipe's waiting bytes included."""
        self._drain_stderr()
        with self._stderr_lock:
            new = self._stderr_received - mark
            return printable(bytes(self._stderr[-new:] if new > 0 else b"").decode("utf-8", errors="replace"),
                             multiline=True)
