"""Each adapter runs below a reaper process that is its child subreaper (issue 24, item 5): a descendant
that forks and lets its parent exit cannot escape, no zombie is left, and the adapter sees its stdio,
its exit status and its pid exactly as if the runner had started it itself."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from conformance.protocol.client import AdapterClient
from conformance.protocol.process import AdapterProcess, StartError, adapter_environment

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the reaper is Linux only")


def started(tmp_path: Path, *argv: str) -> AdapterProcess:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return AdapterProcess(list(argv), cwd=tmp_path, env=adapter_environment(home))


def pids(path: Path) -> list[int]:
    return [int(line) for line in path.read_text().split()] if path.exists() else []


def stat_fields(pid: int) -> list[str]:
    """State, parent, group, session, ... of `pid` (/proc/PID/stat after the command name)."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def live(pid: int) -> bool:
    try:
        return stat_fields(pid)[0] != "Z"
    except (OSError, IndexError):
        return False


@pytest.mark.parametrize("oneshot", [False, True], ids=["persistent", "oneshot"])
def test_a_chain_that_forks_every_2ms_does_not_outlive_the_run_and_leaves_no_zombie(
        fake_command, fake_env, pid_file, survivors, zombies, tmp_path, oneshot):
    with AdapterClient(fake_command, workdir=tmp_path / "work", timeout=5.0, oneshot=oneshot) as adapter:
        assert adapter.request("echo", {"fault": "fork_escape"}).ok
        deadline = time.monotonic() + 5
        while len(pids(pid_file)) < 3 and time.monotonic() < deadline:
            time.sleep(0.01)   # the chain has forked for a while (it ends by itself after 10 s)
    assert survivors(pid_file) == []
    assert zombies(pid_file) == []


def test_the_adapter_sees_its_stdio_and_end_of_file_as_before(tmp_path):
    process = started(tmp_path, "cat")
    try:
        assert process.send("one line\n", 5.0)
        assert process.read_line(5.0) == b"one line\n"
        process.close_stdin()
        assert process.read_line(5.0) is None   # cat saw end of file: the reaper keeps no copy of the pipe
        assert process.wait(5.0) == 0
    finally:
        process.kill()


def test_pid_is_the_adapter_in_a_session_of_its_own_below_its_reaper(tmp_path):
    process = started(tmp_path, "sleep", "30")
    try:
        state, parent, group, session = stat_fields(process.pid)[:4]
        assert process.pid != process.popen.pid
        assert int(parent) == process.popen.pid and int(group) == int(session) == process.pid
        assert Path(f"/proc/{process.pid}/cmdline").read_bytes() == b"sleep\x0030\x00"
    finally:
        process.kill()
    assert process.returncode == -9


@pytest.mark.parametrize("script, code", [("exit 3", 3), ("kill -KILL $$", -9), ("kill -SEGV $$", -11)])
def test_the_exit_status_is_the_adapters(tmp_path, script, code):
    process = started(tmp_path, "sh", "-c", script)
    try:
        assert process.wait(10.0) == code
    finally:
        process.kill()


def test_a_crash_by_signal_is_named_in_the_fault(tmp_path):
    with AdapterClient(["sh", "-c", "kill -SEGV $$"], workdir=tmp_path / "work", timeout=5.0) as adapter:
        fault = adapter.request("echo", {})
    assert fault.kind == "crashed", fault
    assert "killed by SIGSEGV" in fault.detail


def test_a_command_that_does_not_exist_is_a_start_error(tmp_path, zombies):
    with pytest.raises(StartError, match="could not start no-such-adapter-xyz: No such file or directory"):
        started(tmp_path, "no-such-adapter-xyz")
    assert zombies() == []


def test_what_the_adapter_left_running_is_named_and_killed(tmp_path):
    process = started(tmp_path, "sh", "-c", "sleep 60 & sleep 60 & setsid sleep 60 & exit 0")
    try:
        assert process.wait(10.0) == 0   # the reaper exits only once nothing of the adapter is left
        left = process.leftovers()
    finally:
        process.kill()
    assert len(left) == 3
    assert not any(live(pid) for pid in left)


def test_stop_kills_a_running_adapter_and_its_descendants(tmp_path):
    process = started(tmp_path, "sh", "-c", "(sleep 60 &); echo ready; exec sleep 60")
    adapter = process.pid
    assert process.read_line(10.0) == b"ready\n"   # the orphaned sleep is running
    process.stop()
    assert process.returncode == -9   # the reaper killed the adapter and exited as it did
    assert not live(adapter)
    assert len(process.leftovers()) == 1   # the orphaned sleep, not the adapter
    process.kill()


def test_an_adapter_that_kills_its_reaper_is_still_stopped(tmp_path):
    # Without the reaper, and without the marker in its environment: only its process group finds it.
    process = started(tmp_path, "sh", "-c", "kill -KILL $PPID; echo ready; exec env -i sleep 60")
    adapter = process.pid
    try:
        assert process.read_line(10.0) == b"ready\n"
        assert process.wait(10.0) == -9   # the reaper is gone, the adapter is not
        process.stop()
        deadline = time.monotonic() + 5
        while live(adapter) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not live(adapter)
    finally:
        process.kill()


def test_an_adapter_that_kills_its_reaper_at_once_is_known_and_stopped_every_time(tmp_path):
    # It may kill the reaper before the reaper has said which pid it is: it is told first, so the
    # adapter's group is known and stopped though its marker is gone (a race: tried a few times).
    for attempt in range(20):
        process = started(tmp_path, "sh", "-c", "kill -KILL $PPID; exec env -i sleep 60")
        adapter = process.pid
        try:
            assert adapter != process.popen.pid
            process.stop()
            deadline = time.monotonic() + 5
            while live(adapter) and time.monotonic() < deadline:
                time.sleep(0.01)
            assert not live(adapter), attempt
        finally:
            process.kill()
