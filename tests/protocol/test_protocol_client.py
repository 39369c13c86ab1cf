"""AdapterClient against real subprocesses: the fake adapter's faults and a toy `serve` adapter."""

from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path

import pytest

from conformance.protocol.client import EXIT_GRACE, MAX_TRAILING_LINES, AdapterClient
from conformance.protocol.messages import AdapterFault, Describe, ErrorResponse, OkResponse
from conformance.protocol.process import MiB, AdapterLimits, adapter_environment, resolve_command
from conformance.resources import runners_dir

REPO_ROOT = Path(__file__).resolve().parents[2]
FAKE_ADAPTER = runners_dir() / "fake" / "adapter.py"

FAST = 0.5  # seconds: the timeout for requests that are expected to hang


def client(command, tmp_path, **options) -> AdapterClient:
    return AdapterClient(command, workdir=tmp_path / "work", **{"timeout": 5.0, **options})


# -- persistent mode, well-behaved ------------------------------------------


def test_describe_negotiates_protocol_1_and_requests_get_monotonic_ids(fake_command, fake_env, tmp_path):
    with client(fake_command, tmp_path) as adapter:
        described = adapter.describe()
        assert isinstance(described, Describe) and described.name == "fake-adapter"
        assert adapter.protocol == 1
        first = adapter.request("echo", {"x": 1})
        second = adapter.request("echo", {"y": 2})
    assert first == OkResponse(first.id, {"args": {"x": 1}})
    assert second.result == {"args": {"y": 2}}
    assert second.id > first.id > 0
    assert adapter.stats.starts == 1 and adapter.stats.restarts == 0 and adapter.stats.requests == 2
    assert adapter.last_exit_code == 0


def test_the_first_request_runs_the_handshake_by_itself(fake_command, fake_env, tmp_path):
    with client(fake_command, tmp_path) as adapter:
        response = adapter.request("echo", {"z": 3})
        assert adapter.described is not None and adapter.protocol == 1
    assert response.result == {"args": {"z": 3}}


def test_an_unknown_op_is_an_error_response_not_a_fault(fake_command, fake_env, tmp_path):
    with client(fake_command, tmp_path) as adapter:
        response = adapter.request("merge_sessions", {"local": "{}", "remote": "{}"})
    assert isinstance(response, ErrorResponse) and response.kind == "unsupported"
    assert adapter.stats.faults == 0 and adapter.stats.restarts == 0


# -- faults -----------------------------------------------------------------


def test_an_adapter_that_sleeps_times_out_with_its_stderr_and_is_restarted(fake_command, fake_env, tmp_path):
    with client(fake_command, tmp_path, timeout=FAST) as adapter:
        started = time.monotonic()
        fault = adapter.request("echo", {"fault": "sleep"})
        elapsed = time.monotonic() - started
        after = adapter.request("echo", {"again": True})
    assert isinstance(fault, AdapterFault) and fault.kind == "timeout"
    assert "within 0.5 s" in fault.detail
    assert "sleeping instead of answering" in fault.stderr_tail
    assert elapsed < FAST + 1.5
    assert after.result == {"args": {"again": True}}
    assert adapter.stats.restarts == 1 and adapter.stats.faults_by_kind == {"timeout": 1}


def test_an_adapter_that_exits_mid_run_is_crashed_with_exit_code_and_restarted(fake_command, fake_env, tmp_path):
    fake_env(fault="crash")  # the handshake is answered, the next request crashes
    with client(fake_command, tmp_path) as adapter:
        fault = adapter.request("echo", {})
        assert isinstance(fault, AdapterFault) and fault.kind == "crashed"
        assert "exited with code 3" in fault.detail
        assert "crashing on request" in fault.stderr_tail
        # The restarted process crashes again on its second request: each
        # restart re-runs the handshake first, as a fresh adapter needs.
        again = adapter.request("echo", {})
    assert again.kind == "crashed"
    assert adapter.stats.starts == 2 and adapter.stats.restarts == 1


@pytest.mark.parametrize(
    "fault, kind, phrase",
    [
        ("garbage", "not_json", "'<<< this line is not JSON >>>'"),
        ("log_to_stdout", "not_json", "'[fake-adapter] handling request"),
        ("wrong_id", "wrong_id", "expected"),
        ("bad_response", "bad_message", "at /: 'result' is a required property"),
    ],
)
def test_a_broken_answer_is_a_fault_and_the_next_request_works(fake_command, fake_env, tmp_path, fault, kind, phrase):
    with client(fake_command, tmp_path) as adapter:
        broken = adapter.request("echo", {"fault": fault})
        fine = adapter.request("echo", {"n": 1})
    assert isinstance(broken, AdapterFault) and broken.kind == kind
    assert phrase in broken.detail
    assert fine.result == {"args": {"n": 1}}
    assert adapter.stats.restarts == 1


def test_wrong_id_names_both_ids(fake_command, fake_env, tmp_path):
    with client(fake_command, tmp_path) as adapter:
        adapter.describe()  # id 1
        broken = adapter.request("echo", {"fault": "wrong_id"})  # id 2, answered as 1002
    assert "carries id 1002, expected 2" in broken.detail


def test_not_json_shows_at_most_200_characters_of_the_line(tmp_path):
    script = tmp_path / "chatty.py"
    script.write_text(
        "import sys, json\n"
        "for line in sys.stdin:\n"
        "    request = json.loads(line)\n"
        "    if request['op'] == 'describe':\n"
        "        print(json.dumps({'id': request['id'], 'ok': True, 'result': {'name': 'c', 'version': '0',"
        " 'protocols': [1], 'spec': '0.1.2', 'claims': [], 'ops': [], 'caps': {}}}), flush=True)\n"
        "    else:\n"
        "        print('x' * 5000, flush=True)\n",
        encoding="utf-8",
    )
    with client([sys.executable, str(script)], tmp_path) as adapter:
        fault = adapter.request("anything", {})
    assert fault.kind == "not_json"
    assert "x" * 200 in fault.detail and "x" * 201 not in fault.detail


def test_a_schema_invalid_describe_is_bad_message_naming_the_path(fake_command, fake_env, tmp_path):
    fake_env(fault="bad_describe")
    with client(fake_command, tmp_path) as adapter:
        handshake = adapter.describe()
        request = adapter.request("echo", {})
    assert isinstance(handshake, AdapterFault) and handshake.kind == "bad_message"
    assert "/result/protocols/0" in handshake.detail
    assert request.kind == "bad_message"  # no request goes out without a good handshake


def test_an_answer_held_back_until_end_of_input_times_out(fake_command, fake_env, tmp_path):
    fake_env(fault="no_flush")
    with client(fake_command, tmp_path, timeout=FAST) as adapter:
        assert isinstance(adapter.describe(), Describe)  # the handshake is flushed
        fault = adapter.request("echo", {})
    assert fault.kind == "timeout"


def test_a_command_that_does_not_exist_is_a_start_failure(tmp_path):
    with client(["memoir-conform-no-such-program-xyz"], tmp_path) as adapter:
        fault = adapter.request("echo", {})
    assert isinstance(fault, AdapterFault) and fault.kind == "start_failed"
    assert "could not start" in fault.detail and "memoir-conform-no-such-program-xyz" in fault.detail


@pytest.mark.slow
def test_an_adapter_that_ignores_end_of_input_is_stopped_by_close(fake_command, fake_env, tmp_path):
    fake_env(fault="no_exit_on_eof")
    adapter = client(fake_command, tmp_path)
    assert isinstance(adapter.describe(), Describe)
    started = time.monotonic()
    adapter.close()
    assert time.monotonic() - started < 4
    assert adapter.last_exit_code is None
    assert "ignoring end of input" in adapter.stderr_tail()


def test_lines_after_the_last_answer_cost_a_few_faults_however_many_there_are(fake_command, fake_env, tmp_path):
    adapter = client(fake_command, tmp_path)
    adapter.owner = "t.flood"
    assert adapter.request("echo", {"fault": "flood_after"}).ok
    started = time.monotonic()
    adapter.close()
    assert time.monotonic() - started < EXIT_GRACE + 3   # read while it floods, then stopped
    assert len(adapter.late_faults) == MAX_TRAILING_LINES
    assert {(late.owner, late.fault.kind) for late in adapter.late_faults} == {("t.flood", "not_json")}


def test_the_lines_dropped_after_the_kept_ones_are_counted_in_the_last_fault(fake_command, fake_env, tmp_path):
    adapter = client(fake_command, tmp_path)
    adapter.owner = "t.flood"
    assert adapter.request("echo", {"fault": "flood_after"}).ok
    adapter.close()
    *kept, last = adapter.late_faults
    dropped = re.search(r"… and (\d+) more lines after it \(read and dropped\)", last.fault.detail)
    assert dropped and int(dropped.group(1)) > 0, last.fault.detail   # a flood of 2 s is many lines
    assert not any("more line" in late.fault.detail for late in kept)
    assert adapter.stats.faults == MAX_TRAILING_LINES   # counted, not charged one by one


# -- negotiation ------------------------------------------------------------


def test_an_adapter_offering_1_and_2_is_spoken_to_in_1(fake_command, fake_env, tmp_path):
    fake_env(protocols="1,2")
    with client(fake_command, tmp_path) as adapter:
        described = adapter.describe()
        response = adapter.request("echo", {"k": 1})
    assert described.protocols == (1, 2) and adapter.protocol == 1
    assert response.result == {"args": {"k": 1}}


def test_an_adapter_offering_only_2_cannot_start_and_says_why(fake_command, fake_env, tmp_path):
    fake_env(protocols="2")
    with client(fake_command, tmp_path) as adapter:
        handshake = adapter.describe()
        request = adapter.request("echo", {})
    assert handshake.kind == "start_failed"
    assert "no shared protocol version" in handshake.detail
    assert "[2]" in handshake.detail and "[1]" in handshake.detail
    assert request.kind == "start_failed"


# -- one-shot mode ------------------------------------------------------------


def test_oneshot_mode_starts_a_process_per_request(fake_command, fake_env, tmp_path):
    with client(fake_command, tmp_path, oneshot=True) as adapter:
        described = adapter.describe()
        first = adapter.request("echo", {"a": 1})
        second = adapter.request("echo", {"b": 2})
    assert isinstance(described, Describe)
    assert first.result == {"args": {"a": 1}} and second.result == {"args": {"b": 2}}
    assert second.id > first.id
    assert adapter.stats.starts == 3 and adapter.stats.restarts == 0
    assert adapter.last_exit_code == 0


@pytest.mark.parametrize(
    "fault, kind", [("crash", "crashed"), ("garbage", "not_json"), ("wrong_id", "wrong_id"), ("sleep", "timeout")]
)
def test_oneshot_faults_are_values_and_the_next_request_works(fake_command, fake_env, tmp_path, fault, kind):
    with client(fake_command, tmp_path, oneshot=True, timeout=FAST) as adapter:
        broken = adapter.request("echo", {"fault": fault})
        fine = adapter.request("echo", {"n": 2})
    assert isinstance(broken, AdapterFault) and broken.kind == kind
    assert fine.result == {"args": {"n": 2}}


@pytest.mark.parametrize("fault, kind", [("long_after", "too_long"), ("deep_after", "bad_message"),
                                         ("double_answer", "repeated_answer")])
def test_oneshot_lines_after_the_one_answer_are_late_faults_of_its_owner(fake_command, fake_env, tmp_path, fault,
                                                                          kind):
    with client(fake_command, tmp_path, oneshot=True, limits=AdapterLimits(max_line_bytes=MiB)) as adapter:
        adapter.owner = "t.late"
        answer = adapter.request("echo", {"fault": fault})
        adapter.owner = "t.next"
        fine = adapter.request("echo", {"n": 2})
    assert answer.ok and fine.ok   # the answer itself stands: what follows it is charged apart
    assert [(late.owner, late.fault.kind) for late in adapter.late_faults] == [("t.late", kind)]
    assert f"request {answer.id} (echo)" in adapter.late_faults[0].fault.detail


@pytest.mark.parametrize("fault, kind", [("deep_after", "bad_message"), ("double_answer", "repeated_answer")])
def test_oneshot_a_line_after_the_describe_answer_is_charged_to_describe_not_to_a_vector(fake_command, fake_env,
                                                                                       tmp_path, fault, kind):
    # The describe handshake of a one-shot client runs in a process of its own, started by the first request
    # of whichever vector comes first: what that process writes after its answer is the describe step's.
    fake_env(fault=fault, fault_after="0", fault_when='"describe"')
    with client(fake_command, tmp_path, oneshot=True) as adapter:
        adapter.owner = "t.current"
        answer = adapter.request("echo", {"n": 1})
    assert answer.ok
    late, = adapter.late_faults
    assert late.owner is None and late.fault.kind == kind
    assert "request 1 (describe)" in late.fault.detail


# -- the adapter's environment ------------------------------------------------


def test_the_adapter_runs_isolated_in_scratch_directories(toy_command, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "real-config"))
    monkeypatch.setenv("MEMOIR_STORE", str(tmp_path / "real-store"))
    with client(toy_command, tmp_path) as adapter:
        seen = adapter.request("whoami", {}).result
    scratch = adapter.scratch_dir
    assert Path(seen["cwd"]).resolve() == scratch.resolve()
    assert scratch.resolve().parent == (tmp_path / "work").resolve()
    assert Path(seen["home"]).resolve() == (scratch / "home").resolve()
    assert Path(seen["tmpdir"]).resolve() == (scratch / "tmp").resolve()
    assert seen["protocol_env"] == "1" and seen["unbuffered"] == "1"
    assert seen["xdg_config"] is None and seen["memoir_store"] is None
    assert seen["negotiated"] == 1


def test_the_serve_loop_over_real_pipes(toy_command, tmp_path):
    with client(toy_command, tmp_path) as adapter:
        counts = [adapter.request("count", {}).result["n"] for _ in range(3)]
        refused = adapter.request("refuse", {})
        exploded = adapter.request("explode", {})
        unknown = adapter.request("read_store", {"store": str(tmp_path)})
    assert counts == [1, 2, 3]  # the stray print() went to stderr, not into the stream
    assert (refused.kind, refused.message) == ("invalid_input", "no thanks")
    assert exploded.kind == "internal" and "boom" in exploded.message
    assert unknown.kind == "unsupported"
    assert "a stray print from the model" in adapter.stderr_tail()
    assert adapter.stats.faults == 0 and adapter.last_exit_code == 0


def test_a_relative_script_path_is_made_absolute_but_the_program_is_left_to_path():
    relative = FAKE_ADAPTER.relative_to(REPO_ROOT)
    argv = resolve_command(f"python {relative} --flag", base=REPO_ROOT)
    assert argv == ["python", str(FAKE_ADAPTER), "--flag"]
    assert resolve_command(["node", "missing.js"], base=REPO_ROOT) == ["node", "missing.js"]


def test_adapter_environment_hides_the_users_real_locations(tmp_path):
    env = adapter_environment(
        tmp_path, {"PATH": os.defpath, "XDG_DATA_HOME": "/x", "MEMOIR_DIR": "/y", "HOME": "/home/someone"}
    )
    assert env["HOME"] == str(tmp_path) and env["PATH"] == os.defpath
    assert "XDG_DATA_HOME" not in env and "MEMOIR_DIR" not in env
    assert env["MEMOIR_CONFORM_PROTOCOL"] == "1" and env["PYTHONUNBUFFERED"] == "1"
