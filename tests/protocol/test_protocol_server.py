"""The adapters' JSON Lines loop (`conformance.protocol.server.serve`), with toy handlers."""

from __future__ import annotations

import io
import json

import pytest

from conformance.protocol.messages import check
from conformance.protocol.server import OpError, serve

DESCRIBE = {
    "name": "toy",
    "version": "0",
    "protocols": [1],
    "spec": "0.1.2",
    "claims": [],
    "ops": ["echo", "refuse", "explode", "nothing", "listy", "count", "unserializable", "foreign_error"],
    "caps": {},
}


class ForeignError(Exception):
    """Another model's own error class: serve recognises it by its `kind`."""

    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind
        self.message = message


def toy_handler(op, args, context):
    if op == "echo":
        return {"args": args, "protocol": context.protocol, "id": context.request_id}
    if op == "refuse":
        raise OpError("invalid_input", "text must not be empty")
    if op == "explode":
        raise KeyError("missing-thing")
    if op == "nothing":
        return None
    if op == "listy":
        return [1, 2]
    if op == "count":
        context.state["n"] = context.state.get("n", 0) + 1
        return {"n": context.state["n"]}
    if op == "unserializable":
        return {"value": object()}
    if op == "foreign_error":
        raise ForeignError("unsupported", "not in this build")
    raise AssertionError(f"serve dispatched an op it should have refused: {op}")


class CountingStream(io.StringIO):
    def __init__(self):
        super().__init__()
        self.flushes = 0

    def flush(self):
        self.flushes += 1
        super().flush()


def run(*lines, describe=DESCRIBE):
    stdin = io.StringIO("".join(line if isinstance(line, str) else json.dumps(line) + "\n" for line in lines))
    stdout, stderr = CountingStream(), io.StringIO()
    code = serve(toy_handler, describe, stdin, stdout, stderr)
    responses = [json.loads(line) for line in stdout.getvalue().splitlines()]
    for response in responses:
        check("response", response)  # every answer fits the protocol schema
    return code, responses, stdout, stderr.getvalue()


def request(request_id, op, args=None, protocol=1):
    return {"protocol": protocol, "id": request_id, "op": op, "args": args or {}}


def test_describe_is_answered_from_the_describe_callable():
    code, responses, _, _ = run(request(1, "describe"), describe=lambda: DESCRIBE)
    assert code == 0
    assert responses == [{"id": 1, "ok": True, "result": DESCRIBE}]


def test_requests_are_dispatched_in_order_with_their_ids_and_flushed_per_line():
    code, responses, stdout, _ = run(request(5, "echo", {"a": 1}), request(9, "echo", {"b": 2}))
    assert [response["id"] for response in responses] == [5, 9]
    assert responses[0]["result"] == {"args": {"a": 1}, "protocol": 1, "id": 5}
    assert stdout.flushes >= 2


def test_an_op_not_listed_in_describe_is_unsupported():
    _, responses, _, _ = run(request(2, "merge_sessions", {"local": "", "remote": ""}))
    assert responses[0]["id"] == 2
    assert responses[0]["error"]["kind"] == "unsupported"
    assert "merge_sessions" in responses[0]["error"]["message"]


def test_op_error_becomes_an_error_response_of_its_kind():
    _, responses, _, _ = run(request(3, "refuse"))
    assert responses[0]["error"] == {"kind": "invalid_input", "message": "text must not be empty"}


def test_an_error_class_of_another_model_is_recognised_by_its_kind():
    _, responses, _, _ = run(request(3, "foreign_error"))
    assert responses[0]["error"] == {"kind": "unsupported", "message": "not in this build"}


def test_an_unexpected_exception_is_internal_with_the_traceback_on_stderr_only():
    _, responses, stdout, stderr = run(request(4, "explode"), request(5, "echo"))
    assert responses[0]["error"]["kind"] == "internal"
    assert "KeyError" in responses[0]["error"]["message"] and "missing-thing" in responses[0]["error"]["message"]
    assert "Traceback" in stderr
    assert "Traceback" not in stdout.getvalue()
    assert responses[1]["ok"] is True  # the loop survives


def test_a_line_that_is_not_json_gets_invalid_input_with_a_null_id():
    _, responses, _, _ = run("this is not json\n", request(6, "echo"))
    assert responses[0]["id"] is None and responses[0]["error"]["kind"] == "invalid_input"
    assert responses[1]["id"] == 6


def test_a_malformed_request_keeps_its_id_in_the_answer():
    _, responses, _, _ = run({"protocol": 1, "id": 12, "args": {}})
    assert responses[0]["id"] == 12
    assert responses[0]["error"]["kind"] == "invalid_input"
    assert "'op' is a required property" in responses[0]["error"]["message"]


def test_a_protocol_version_not_offered_is_invalid_input():
    _, responses, _, _ = run(request(7, "echo", protocol=2))
    assert responses[0]["error"]["kind"] == "invalid_input"
    assert "protocol 2" in responses[0]["error"]["message"]


def test_blank_lines_are_not_answered():
    _, responses, _, _ = run("\n", "   \n", request(8, "echo"))
    assert [response["id"] for response in responses] == [8]


def test_a_handler_returning_none_answers_an_empty_result():
    _, responses, _, _ = run(request(1, "nothing"))
    assert responses[0] == {"id": 1, "ok": True, "result": {}}


@pytest.mark.parametrize("op, phrase", [("listy", "returned list"), ("unserializable", "not JSON-serializable")])
def test_a_result_that_cannot_be_sent_is_internal(op, phrase):
    _, responses, _, _ = run(request(1, op))
    assert responses[0]["id"] == 1
    assert responses[0]["error"]["kind"] == "internal"
    assert phrase in responses[0]["error"]["message"]


def test_state_is_shared_by_the_requests_of_one_process():
    _, responses, _, _ = run(request(1, "count"), request(2, "count"))
    assert [response["result"]["n"] for response in responses] == [1, 2]


def test_op_error_refuses_an_unknown_kind():
    with pytest.raises(ValueError, match="unknown error kind"):
        OpError("fatal", "x")
