"""Protocol messages: typed values, schema checks with JSON Pointers, negotiation."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator

from conformance.protocol import messages
from conformance.protocol.messages import (
    Describe,
    ErrorResponse,
    InvalidMessage,
    OkResponse,
    Request,
    negotiate,
    parse_response,
)
from conformance.resources import load_schema

GOOD_DESCRIBE = {
    "name": "memoir-js",
    "version": "1.4.0",
    "protocols": [1],
    "spec": "0.1.2",
    "claims": ["reader", "writer"],
    "ops": ["read_store", "add_goal"],
    "caps": {"goals": 3, "next_actions": 8},
}


def test_the_schema_is_a_valid_draft_2020_12_schema():
    Draft202012Validator.check_schema(load_schema(messages.SCHEMA_FILE))


@pytest.mark.parametrize("definition", sorted(load_schema(messages.SCHEMA_FILE)["$defs"]))
def test_every_definition_resolves_its_references(definition):
    # Walking a few instances through each definition follows every $ref;
    # an unresolvable one would raise here.
    for instance in ({}, [], "x", 1, {"store": "/s", "text": "t"}):
        list(messages._validator(definition).iter_errors(instance))


def test_request_round_trips_through_one_json_line():
    request = Request(1, 7, "merge_sessions", {"local": "{}", "remote": "{}"})
    line = request.to_line()
    assert line.endswith("\n") and "\n" not in line[:-1]
    assert Request.from_json(json.loads(line)) == Request(1, 7, "merge_sessions", {"local": "{}", "remote": "{}"})


def test_a_newline_inside_an_argument_stays_on_one_line():
    line = Request(1, 1, "add_goal", {"store": "/s", "text": "two\nlines"}).to_line()
    assert line.count("\n") == 1


def test_a_request_without_op_names_the_missing_property():
    with pytest.raises(InvalidMessage) as caught:
        Request.from_json({"protocol": 1, "id": 1, "args": {}})
    assert caught.value.pointer == ""
    assert "'op' is a required property" in str(caught.value)


def test_describe_from_json_keeps_every_field():
    described = Describe.from_json(GOOD_DESCRIBE)
    assert described.name == "memoir-js"
    assert described.protocols == (1,)
    assert described.claims == ("reader", "writer")
    assert described.caps["next_actions"] == 8
    assert described.supports("describe") and described.supports("add_goal")
    assert not described.supports("merge_sessions")
    assert described.to_json() == GOOD_DESCRIBE


@pytest.mark.parametrize(
    "change, pointer",
    [
        ({"protocols": ["1"]}, "/result/protocols/0"),
        ({"protocols": []}, "/result/protocols"),
        ({"claims": ["gold"]}, "/result/claims/0"),
        ({"caps": {"goals": 0}}, "/result/caps/goals"),
        ({"ops": "read_store"}, "/result/ops"),
        ({"name": ""}, "/result/name"),
    ],
)
def test_describe_violations_name_their_json_pointer(change, pointer):
    with pytest.raises(InvalidMessage) as caught:
        Describe.from_json({**GOOD_DESCRIBE, **change}, at="/result")
    assert caught.value.pointer == pointer


def test_describe_without_caps_is_rejected():
    document = {key: value for key, value in GOOD_DESCRIBE.items() if key != "caps"}
    with pytest.raises(InvalidMessage, match="'caps' is a required property"):
        Describe.from_json(document)


def test_parse_response_gives_typed_values():
    assert parse_response({"id": 3, "ok": True, "result": {"x": 1}}) == OkResponse(3, {"x": 1})
    assert parse_response(
        {"id": 4, "ok": False, "error": {"kind": "unsupported", "message": "no"}}
    ) == ErrorResponse(4, "unsupported", "no")


def test_unknown_response_fields_are_allowed():
    response = parse_response({"id": 3, "ok": True, "result": {}, "timing_ms": 4})
    assert response == OkResponse(3, {})


@pytest.mark.parametrize(
    "document, pointer, phrase",
    [
        ({"id": 1, "ok": True}, "", "'result' is a required property"),
        ({"id": 1, "ok": True, "result": []}, "/result", "is not of type 'object'"),
        ({"id": 1, "ok": False, "error": {"kind": "oops", "message": ""}}, "/error/kind", "is not one of"),
        ({"id": 1, "ok": False, "error": {"kind": "internal"}}, "/error", "'message' is a required property"),
        ({"id": "1", "ok": True, "result": {}}, "/id", "is not of type 'integer'"),
        ({"id": 1, "ok": "yes", "result": {}}, "/ok", "is not of type 'boolean'"),
    ],
)
def test_malformed_responses_name_the_offending_value(document, pointer, phrase):
    with pytest.raises(InvalidMessage) as caught:
        parse_response(document)
    assert caught.value.pointer == pointer
    assert phrase in caught.value.problem


def test_results_are_checked_per_op():
    assert messages.result_definition("add_goal") == "writer.result"
    assert messages.result_definition("read_store") == "read_store.result"
    assert messages.result_definition("no_such_op") is None
    with pytest.raises(InvalidMessage) as caught:
        messages.check("read_store.result", {"entries": [{"link": "a", "status": "fine"}], "session": {"status": "ok"}},
                       at="/result")
    assert caught.value.pointer == "/result/entries/0/status"


def test_fault_is_a_value_that_prints_its_kind_and_detail():
    fault = messages.AdapterFault("timeout", "no answer", "last words")
    assert str(fault) == "adapter fault (timeout): no answer"
    assert fault.to_json() == {"kind": "timeout", "detail": "no answer", "stderr_tail": "last words"}
    assert set(messages.FAULT_KINDS) == {"timeout", "crashed", "not_json", "too_long", "wrong_id", "repeated_answer",
                                        "bad_message", "start_failed", "outside_scratch"}


@pytest.mark.parametrize(
    "offered, chosen",
    [([1], 1), ([1, 2], 1), ([2, 1, 3], 1), ([2], None), ([], None)],
)
def test_negotiation_picks_the_highest_shared_version(offered, chosen):
    assert negotiate(offered) == chosen


def test_negotiation_prefers_the_highest_when_both_speak_several():
    assert negotiate([1, 2, 3], supported=(1, 2)) == 2
