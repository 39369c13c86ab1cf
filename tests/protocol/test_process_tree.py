"""No descendant of an adapter outlives it (issue 24, item 5): the runner is the subreaper of its
adapters, so a process that forks and lets its parent exit every few ms cannot outrun the sweep."""

from __future__ import annotations

import sys
import time

import pytest

from conformance.protocol.client import AdapterClient
from conformance.protocol.process import become_subreaper

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the subreaper is Linux's")


def test_the_runner_is_the_subreaper_of_its_adapters():
    import ctypes

    assert become_subreaper()
    libc = ctypes.CDLL(None, use_errno=True)
    flag = ctypes.c_int(0)
    assert libc.prctl(37, ctypes.byref(flag), 0, 0, 0) == 0  # PR_GET_CHILD_SUBREAPER
    assert flag.value == 1


@pytest.mark.parametrize("oneshot", [False, True], ids=["persistent", "oneshot"])
def test_a_forking_chain_whose_parents_exit_does_not_survive_the_adapter(tmp_path, fake_env, fake_command, pid_file,
                                                                         survivors, oneshot):
    fake_env(fault="fork_escape", fault_after="0" if oneshot else "1")
    with AdapterClient(fake_command, workdir=tmp_path / "work", oneshot=oneshot) as client:
        assert not isinstance(client.describe(), Exception)
        client.request("echo", {"n": 1})
        time.sleep(0.3)  # the chain has forked hundreds of times by now
    beats = len(pid_file.read_text().split())
    assert beats > 0, "the chain never ran: the test proves nothing"
    time.sleep(0.5)
    assert len(pid_file.read_text().split()) == beats, "the forking chain is still alive"
    assert survivors(pid_file) == []
