"""AdapterClient against adapters that misbehave on purpose: ids, bounded I/O, leftovers, limits, hostile text."""

from __future__ import annotations

import json

import pytest

from conformance.protocol.client import AdapterClient, interpret_line
from conformance.protocol.messages import AdapterFault, ErrorResponse, OkResponse, Request
from conformance.protocol.process import MiB, AdapterLimits
from conformance.protocol.server import answer

FAST = 0.5
ESCAPES = ("\x1b", "\x07", "\x9b", "\r", "\u202e")


def client(command, tmp_path, **options) -> AdapterClient:
    return AdapterClient(command, workdir=tmp_path / "work", **{"timeout": 5.0, **options})


def assert_printable(text: str) -> None:
    assert not any(char in text for char in ESCAPES), repr(text)


# -- 1. ids are integers in JSON's own sense -----------------------------------

ECHO = Request(1, 7, "echo", {})


@pytest.mark.parametrize("written", ["7.0", "7e0", "7E0", "70e-1", "true"])
def test_an_id_that_is_not_json_digits_is_bad_message(written):
    line = f'{{"id": {written}, "ok": true, "result": {{}}}}\n'.encode()
    outcome = interpret_line(line, ECHO)
    assert isinstance(outcome, AdapterFault) and outcome.kind == "bad_message", outcome
    assert " at /id: " in outcome.detail


def test_an_integer_id_and_a_null_id_keep_their_meaning():
    assert interpret_line(b'{"id": 7, "ok": true, "result": {}}\n', ECHO) == OkResponse(7, {})
    null = interpret_line(b'{"id": null, "ok": false, "error": {"kind": "internal", "message": "?"}}\n', ECHO)
    assert null.kind == "wrong_id"


def test_describe_protocols_and_caps_must_be_integers_too():
    result = {"name": "x", "version": "1", "protocols": [1.0], "spec": "0.1.2", "claims": [], "ops": [],
              "caps": {"goals": 3.0}}
    outcome = interpret_line(json.dumps({"id": 7, "ok": True, "result": result}).encode(), Request(1, 7, "describe", {}))
    from conformance.protocol.messages import Describe, InvalidMessage

    with pytest.raises(InvalidMessage, match="/protocols/0"):
        Describe.from_json(outcome.result)


def test_the_server_loop_refuses_a_float_request_id():
    response = answer('{"protocol": 1, "id": 3.0, "op": "describe", "args": {}}', None, {}, {}, None)
    assert response["ok"] is False and response["id"] is None
    assert response["error"]["kind"] == "invalid_input" and "/id" in response["error"]["message"]


def test_an_adapter_answering_with_float_ids_faults_on_every_request(fake_command, fake_env, tmp_path):
    fake_env(fault="float_id", fault_after="0")
    with client(fake_command, tmp_path) as adapter:
        handshake = adapter.describe()
    assert isinstance(handshake, AdapterFault) and handshake.kind == "bad_message"
    assert "/id: 1.0 is not an integer" in handshake.detail


# -- 1 and 8. a repeated answer is charged to the request it answers ------------


def test_a_repeated_answer_is_charged_to_its_request_and_the_next_request_still_works(fake_command, fake_env, tmp_path):
    with client(fake_command, tmp_path) as adapter:
        adapter.owner = "vector A"
        first = adapter.request("echo", {"fault": "double_answer", "n": 1})
        adapter.owner = "vector B"
        second = adapter.request("echo", {"n": 2})
    assert first.result == {"args": {"n": 1}}
    assert second.result == {"args": {"n": 2}}  # not a wrong_id on vector B
    late, = adapter.late_faults
    assert late.owner == "vector A" and late.fault.kind == "repeated_answer"
    assert f"request {first.id} (echo) was answered a second time" in late.fault.detail


def test_a_repeated_answer_to_the_last_request_is_found_at_close(fake_command, fake_env, tmp_path):
    with client(fake_command, tmp_path) as adapter:
        adapter.owner = "last vector"
        assert adapter.request("echo", {"fault": "double_answer"}).ok
    late, = adapter.late_faults
    assert late.owner == "last vector" and "after its last request" in late.fault.detail


# -- 2. a request write is bounded by the timeout -----------------------------------


def test_a_request_the_adapter_does_not_read_times_out(fake_command, fake_env, tmp_path):
    with client(fake_command, tmp_path, timeout=FAST) as adapter:
        assert adapter.request("echo", {"fault": "stop_reading"}).ok
        fault = adapter.request("echo", {"big": "x" * (4 * MiB)})  # far more than a pipe holds
        after = adapter.request("echo", {"n": 3})
    assert isinstance(fault, AdapterFault) and fault.kind == "timeout"
    assert "could not write request" in fault.detail and "stopped reading its input" in fault.detail
    assert after.result == {"args": {"n": 3}}


# -- 3. a response line has a size limit --------------------------------------------


def test_a_line_past_the_limit_is_a_fault_without_waiting_for_its_end(fake_command, fake_env, tmp_path):
    limits = AdapterLimits(max_line_bytes=2 * MiB)
    with client(fake_command, tmp_path, timeout=10.0, limits=limits) as adapter:
        fault = adapter.request("echo", {"fault": "endless_line"})  # a line that never ends: not a timeout
        after = adapter.request("echo", {"n": 4})
    assert isinstance(fault, AdapterFault) and fault.kind == "too_long"
    assert f"longer than {2 * MiB} bytes" in fault.detail
    assert after.result == {"args": {"n": 4}}


def test_an_endless_line_is_read_in_bounded_memory(fake_command, fake_env, tmp_path):
    import tracemalloc

    with client(fake_command, tmp_path, limits=AdapterLimits(max_line_bytes=4 * MiB)) as adapter:
        assert adapter.describe().name == "fake-adapter"
        tracemalloc.start()
        try:
            fault = adapter.request("echo", {"fault": "endless_line"})
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert fault.kind == "too_long"
    assert peak < 12 * MiB  # the limit, a read chunk and a copy at most: never the line


def test_the_line_limit_counts_a_whole_line_too(tmp_path):
    script = tmp_path / "long.py"
    script.write_text(
        "import sys, json\n"
        "for line in sys.stdin:\n"
        "    request = json.loads(line)\n"
        "    result = {'name': 'l', 'version': '0', 'protocols': [1], 'spec': '0.1.2', 'claims': [], 'ops': [],"
        " 'caps': {}} if request['op'] == 'describe' else {'pad': 'y' * 3000}\n"
        "    print(json.dumps({'id': request['id'], 'ok': True, 'result': result}), flush=True)\n",
        encoding="utf-8",
    )
    import sys

    with client([sys.executable, str(script)], tmp_path, limits=AdapterLimits(max_line_bytes=2000)) as adapter:
        fault = adapter.request("anything", {})
    assert fault.kind == "too_long"


# -- 4 and 5. nothing an adapter started survives it ---------------------------------


@pytest.mark.parametrize("fault", ["leave_children", "setsid_child"])
def test_children_are_stopped_when_the_adapter_is_closed_after_a_clean_run(fake_command, fake_env, pid_file,
                                                                          survivors, tmp_path, fault):
    with client(fake_command, tmp_path) as adapter:
        assert adapter.request("echo", {"fault": fault}).ok
    assert adapter.last_exit_code == 0  # the adapter itself ended well
    assert survivors(pid_file) == []


@pytest.mark.parametrize("fault", ["leave_children", "setsid_child"])
def test_children_are_stopped_when_the_adapter_faults(fake_command, fake_env, pid_file, survivors, tmp_path, fault):
    fake_env(fault=fault)
    with client(fake_command, tmp_path, timeout=FAST) as adapter:
        timed_out = adapter.request("echo", {"fault": "sleep"})
        assert timed_out.kind == "timeout"
        assert survivors(pid_file) == []


def test_children_of_oneshot_processes_are_stopped(fake_command, fake_env, pid_file, survivors, tmp_path):
    fake_env(fault="leave_children,setsid_child", fault_after="0")
    with client(fake_command, tmp_path, oneshot=True) as adapter:
        assert adapter.request("echo", {}).ok
        assert survivors(pid_file) == []


# -- 7. limits -------------------------------------------------------------------------


def test_the_memory_limit_stops_an_adapter_that_hoards(fake_command, fake_env, tmp_path):
    with client(fake_command, tmp_path, limits=AdapterLimits(memory_bytes=256 * MiB)) as adapter:
        fault = adapter.request("echo", {"fault": "hog_memory"})
    assert isinstance(fault, AdapterFault) and fault.kind == "crashed"
    assert "MemoryError" in fault.stderr_tail


@pytest.mark.slow
def test_the_cpu_limit_stops_an_adapter_that_spins(fake_command, fake_env, tmp_path):
    with client(fake_command, tmp_path, timeout=20.0, limits=AdapterLimits(cpu_seconds=1)) as adapter:
        fault = adapter.request("echo", {"fault": "spin"})
    assert isinstance(fault, AdapterFault) and fault.kind == "crashed"
    assert "killed by SIGXCPU (its CPU time limit)" in fault.detail


# -- 6. text from the adapter is made printable ------------------------------------------


def test_escape_sequences_from_the_adapter_are_escaped_visibly(fake_command, fake_env, tmp_path):
    fake_env(fault="hostile_text")
    with client(fake_command, tmp_path) as adapter:
        described = adapter.describe()
        refused = adapter.request("merge_sessions", {"local": "{}", "remote": "{}"})
    tail = adapter.stderr_tail()
    assert isinstance(refused, ErrorResponse) and refused.kind == "unsupported"
    for text in (described.name, described.version, refused.message):
        assert_printable(text)
        assert "\n" not in text and "\\u001b[2J" in text
    assert_printable(tail)
    assert "\\u001b]0;pwned\\u0007" in tail
