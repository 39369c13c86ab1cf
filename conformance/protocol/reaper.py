"""The parent of one adapter: a child subreaper that leaves nothing of the adapter running.

The runner cannot be the subreaper of its adapters itself: it would adopt
orphans it never reaps (waiting for any child would steal the exit status
of its own subprocesses). So each adapter gets this small process as its
parent instead:

    python -I -S reaper.py STATUS_FD -- ADAPTER ARGV...

It is the child subreaper (Linux prctl: its caller sets that between fork
and exec, and it survives exec, so that this script need not import
ctypes, which would triple its start time). It starts the adapter in a
session of its own with the stdio it was given (so the runner's pipes go
straight to the adapter; it keeps none of stdin and stdout itself, so end
of file is seen exactly as before), and reaps every child as it exits. When
the adapter exits, when the reaper gets SIGTERM, or when the runner's end of
STATUS_FD closes (the runner died, or let go), it kills every descendant
left, round after round: a descendant whose parent exits is handed to the
reaper, so a chain that forks and lets its parent exit cannot escape. Then
it exits as the adapter did (the same code, or the same signal).

On STATUS_FD it tells the runner, one line each: `pid N` as soon as the
adapter is forked, before it may exec (an adapter can kill its reaper at
once: the runner must know its pid, and so its process group, by then),
then `started` once it runs or `error ERRNO` if it could not be started,
and `left N PID...` (what the adapter left running when it ended) before
it exits.

Standard library only, and run with -I -S: it starts fast and ignores the
environment's Python settings, which belong to the adapter.
"""

from __future__ import annotations

import os
import select
import signal
import sys

PR_SET_CHILD_SUBREAPER = 36
_LISTED_PIDS = 1000   # the `left` line names at most this many
GO = b"g"


def children(pid: int | str = "self") -> list[int]:
    """The children of `pid` (of every thread of it; the runner's sweep uses this too)."""
    found = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as handle:
                found += [int(child) for child in handle.read().split()]
        except (OSError, ValueError):
            continue
    return found


def descendants() -> list[int]:
    found, pending = [], children()
    while pending:
        pid = pending.pop()
        found.append(pid)
        pending += children(pid)
    return found


class Reaper:
    def __init__(self, status_fd: int):
        self.status_fd = status_fd
        self.adapter: int | None = None
        self.adapter_status: int | None = None   # its wait status, once reaped
        self.stopping = False

    def tell(self, line: str) -> bool:
        try:
            os.write(self.status_fd, line.encode("ascii") + b"\n")
            return True
        except OSError:
            return False   # the runner is gone: nobody listens

    def reap(self) -> bool:
        """Collect every child that exited; False once there is no child at all."""
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return False
            if pid == 0:
                return True
            if pid == self.adapter:
                self.adapter_status = status

    def start(self, argv: list[str]) -> bool:
        failed_r, failed_w = os.pipe()   # both close on exec: empty at end of file means exec worked
        go_r, go_w = os.pipe()           # the adapter execs only once its pid is told
        pid = os.fork()
        if pid == 0:
            try:
                os.close(failed_r)
                os.close(go_w)
                signal.set_wakeup_fd(-1)
                for number in (signal.SIGTERM, signal.SIGCHLD, signal.SIGPIPE, signal.SIGXFSZ):
                    signal.signal(number, signal.SIG_DFL)  # Python ignores SIGPIPE; the adapter must not inherit that
                if os.read(go_r, 1) != GO:
                    os._exit(127)   # the reaper died before telling: nobody would know this pid
                os.close(go_r)
                os.setsid()
                os.execvp(argv[0], argv)
            except OSError as error:
                os.write(failed_w, str(error.errno or 0).encode("ascii"))
            finally:
                os._exit(127)
        os.close(failed_w)
        os.close(go_r)
        self.adapter = pid
        if not self.tell(f"pid {pid}"):
            self.stopping = True
        os.write(go_w, GO)
        os.close(go_w)
        failure = b""
        while chunk := os.read(failed_r, 64):
            failure += chunk
        os.close(failed_r)
        if failure:
            self.tell(f"error {int(failure)}")
            return False
        # The adapter holds the runner's pipes now; a copy kept here would hide its end of file.
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(null, 1)
        os.close(null)
        if not self.tell("started"):
            self.stopping = True
        return True

    def watch(self, wake_fd: int) -> None:
        """Reap children until the adapter exits, SIGTERM comes, or the runner lets go."""
        poller = select.poll()
        poller.register(wake_fd, select.POLLIN)
        poller.register(self.status_fd, 0)   # POLLERR comes unasked once the runner's end is closed
        while self.adapter_status is None and not self.stopping:
            for fd, _ in poller.poll():
                if fd == self.status_fd:
                    self.stopping = True
                else:
                    _drain(wake_fd)
            self.reap()

    def clean(self) -> list[int]:
        """SIGKILL every descendant until none is left; the ones that were running, the adapter not counted."""
        left: dict[int, None] = {}
        while True:
            alive = self.reap()
            found = descendants()
            if not found:
                if not alive:
                    break
                select.select([], [], [], 0.001)   # children dying, not yet reapable
                continue
            for pid in found:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    continue
                if pid != self.adapter or self.adapter_status is not None:
                    left[pid] = None
        return list(left)


def _drain(fd: int) -> None:
    try:
        while os.read(fd, 4096):
            pass
    except BlockingIOError:
        pass


def mirror(status: int) -> None:
    """Exit as the adapter did: its exit code, or killed by the same signal."""
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            import resource

            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))   # the adapter dumped its core already
        except (ImportError, OSError, ValueError):
            pass
        if number not in (signal.SIGKILL, signal.SIGSTOP):   # those two have no handler to reset
            signal.signal(number, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [number])
        os.kill(os.getpid(), number)
        os._exit(128 + number)
    os._exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 1)


def main(argv: list[str]) -> None:
    if len(argv) < 4 or argv[2] != "--" or not argv[1].isdigit():
        sys.stderr.write("usage: reaper.py STATUS_FD -- ADAPTER [ARG...]\n")
        os._exit(2)
    status_fd = int(argv[1])
    os.set_inheritable(status_fd, False)   # the adapter must neither hold it open nor write to it
    reaper = Reaper(status_fd)
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)

    def stop(*_) -> None:
        reaper.stopping = True

    signal.signal(signal.SIGTERM, stop)
    if not reaper.start(argv[3:]):
        reaper.clean()
        os._exit(127)
    reaper.watch(wake_r)
    left = reaper.clean()
    reaper.tell(" ".join(["left", str(len(left)), *map(str, left[:_LISTED_PIDS])]))
    mirror(reaper.adapter_status if reaper.adapter_status is not None else 0)


if __name__ == "__main__":
    main(sys.argv)
