"""The safe YAML reader shared by the sibling formats."""

from __future__ import annotations

import time

import pytest

from conformance.validator.core.safe_yaml import LoadedYaml, YamlProblem, decode_utf8, load_yaml

BILLION_LAUGHS = "\n".join(
    ["a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    + [f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]" for i in range(8)]
)


def test_billion_laughs_is_refused_at_the_first_anchor_without_expanding():
    started = time.perf_counter()
    result = load_yaml(BILLION_LAUGHS)
    assert isinstance(result, YamlProblem)
    assert result.kind == "alias"
    assert (result.line, result.column) == (1, 4)
    assert time.perf_counter() - started < 1.0


def test_an_alias_is_refused_even_when_its_anchor_is_harmless():
    result = load_yaml("x: &name 1\ny: *name\n")
    assert isinstance(result, YamlProblem) and result.kind == "alias"


def test_nesting_deeper_than_the_limit_is_refused():
    result = load_yaml("[" * 300 + "]" * 300)
    assert isinstance(result, YamlProblem)
    assert result.kind == "structure" and "nesting" in result.message


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("a: 1\na: 2\n", "duplicate key 'a'"),
        ("? [a, b]\n: 1\n", "mapping keys must be plain strings"),
        ("1: one\n", "mapping keys must be plain strings"),
        ("a: !!binary aGk=\n", "not allowed"),
        ("a: !custom x\n", "not allowed"),
        ("---\na: 1\n---\nb: 2\n", "more than one YAML document"),
    ],
)
def test_data_outside_the_json_model_is_refused(text, fragment):
    result = load_yaml(text)
    assert isinstance(result, YamlProblem)
    assert fragment in result.message


def test_timestamps_stay_the_text_the_author_wrote():
    result = load_yaml("at: 2026-07-10T12:00:00Z\non: 2026-07-10\n")
    assert isinstance(result, LoadedYaml)
    assert result.data == {"at": "2026-07-10T12:00:00Z", "on": "2026-07-10"}


def test_plain_scalars_load_as_json_values():
    result = load_yaml("i: 3\nf: 0.5\nb: true\nn: null\ns: yes\n")
    assert result.data == {"i": 3, "f": 0.5, "b": True, "n": None, "s": "yes"}


def test_positions_name_each_key_and_item_one_based():
    result = load_yaml("top:\n  inner: 1\nlist:\n  - x\n  - {k: v}\n")
    assert result.positions[("top",)] == (1, 1)
    assert result.positions[("top", "inner")] == (2, 3)
    assert result.positions[("list", 1)] == (5, 5)
    assert result.positions[("list", 1, "k")] == (5, 6)
    assert result.position(("list", 1, "k", "missing")) == (5, 6)


def test_line_offset_shifts_positions_and_problems():
    assert load_yaml("a: 1\n", line_offset=1).positions[("a",)] == (2, 1)
    assert load_yaml("a: [1\n", line_offset=3).line >= 4


def test_syntax_errors_carry_a_position():
    result = load_yaml("a: [1, 2\nb: 3\n")
    assert isinstance(result, YamlProblem) and result.kind == "syntax"
    assert result.line > 0 and result.column > 0


def test_decoding_names_the_bad_byte_and_where_it_is():
    problem = decode_utf8("ok\ncafé: ".encode("utf-8") + b"\xff")
    assert isinstance(problem, YamlProblem)
    assert "0xff" in problem.message
    assert (problem.line, problem.column) == (2, 7)


def test_decoding_drops_a_byte_order_mark():
    assert decode_utf8(b"\xef\xbb\xbfa: 1") == "a: 1"
