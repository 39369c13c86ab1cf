"""Where an adapter may write (issue 24, item 9): its own scratch directory and its worker's vector area.
A write into the run's own temporary directory is seen and charged; under --sandbox the other adapters'
HOMEs, the other workers' vectors in flight and the run's directory are not even writable."""

from __future__ import annotations

import pytest
from runner_helpers import run_report
from test_hostile_adapters import merge


def test_a_write_into_the_runs_own_directory_is_charged_to_the_vector(capsys, vectors_root, hostile, fake_env):
    fake_env(fault="write_siblings", fault_when="SIBLING")
    _, _, by_id = run_report(capsys, vectors_root, [merge("t.a-writes", "SIBLING"), merge("t.b-next")],
                             "--adapter", hostile)
    assert by_id["t.a-writes"]["outcome"] == "error"
    assert "outside_scratch" in by_id["t.a-writes"]["detail"]
    assert "created fake-sibling-write " in by_id["t.a-writes"]["detail"]  # in the run's root directory
    assert by_id["t.b-next"]["outcome"] == "pass"


@pytest.mark.usefixtures("sandbox")
def test_in_the_sandbox_siblings_and_the_runs_directory_are_out_of_reach(capsys, vectors_root, hostile, fake_env):
    fake_env(fault="write_siblings", fault_when="SIBLING")
    vectors = [merge(f"t.{n}-plain") for n in range(3)] + [merge("t.writes", "SIBLING")]
    _, _, by_id = run_report(capsys, vectors_root, vectors, "--adapter", hostile, "--sandbox", "-j", "2")
    writer = by_id["t.writes"]
    assert writer["outcome"] == "pass", writer["detail"]  # nothing was written where it must not be
    refused = writer["stderr_tail"].splitlines()
    assert refused and all("Read-only file system" in line for line in refused), refused
    # Only the run's directory was even there to try: no other adapter's HOME, no other worker's vector.
    assert not any("/adapters/" in line or "/vectors/" in line for line in refused), refused


def test_restarts_after_faults_are_in_the_report(capsys, vectors_root, hostile, fake_env):
    fake_env(fault="crash", fault_when="CRASH")
    _, _, by_id = run_report(capsys, vectors_root, [merge("t.a-crash", "CRASH"), merge("t.b-next")], "--adapter", hostile)
    assert by_id["t.a-crash"]["outcome"] == "error"  # and its two derived vectors: 3 crashes
    assert any("restarted 3 time(s) after a fault" in note for note in by_id["$report"]["summary"]["notes"])
