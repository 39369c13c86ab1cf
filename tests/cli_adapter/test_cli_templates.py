"""Command templates: a value is always exactly one argument, and shell templates quote it."""

from __future__ import annotations

import os
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conformance.cli_adapter.invoke import spell
from conformance.cli_adapter.templates import Text, TemplateError, parse_argv, quoted_fields, render_argv, render_shell

# Any text a command line can carry: everything but NUL.
argument_texts = st.text(st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)), max_size=40)


@given(text=argument_texts, why=argument_texts, purge=st.booleans())
def test_every_value_is_one_argument_whatever_it_holds(text, why, purge):
    items = parse_argv(["tool", "--text={text}", {"if": "purge", "then": ["--purge"], "else": ["--keep"]},
                        {"if": "why", "then": ["--why", "{why}"]}, "--", "{text}"])
    values = {"text": text, "why": why}
    argv = render_argv(items, values, lambda name: {"purge": purge, "why": True}[name])
    assert argv == ["tool", f"--text={text}", "--purge" if purge else "--keep", "--why", why, "--", text]


@pytest.mark.skipif(os.name != "posix", reason="needs /bin/sh")
@settings(max_examples=40, deadline=None)
@given(text=argument_texts)
def test_a_shell_template_hands_the_value_to_the_command_unchanged(text):
    line = render_shell(Text.parse("printf '%s' {text}"), {"text": text})
    shown = subprocess.run(["/bin/sh", "-c", line], capture_output=True, check=True).stdout
    assert shown == text.encode("utf-8", "surrogateescape")


def test_literal_braces_are_doubled():
    assert Text.parse("{{not}} {text}").render({"text": "x"}) == "{not} x"
    with pytest.raises(TemplateError, match="literal braces"):
        Text.parse("{oops")


def test_quoted_placeholders_in_shell_templates_are_found():
    assert quoted_fields(Text.parse("""tool "{a}" '{b}' {c} \\"{d} 'it''s {e}' "x {f} y" """)) == ["a", "b", "e", "f"]


@pytest.mark.parametrize("value, spelled", [
    ("text", "text"), (True, "true"), (False, "false"),
    ({"name": "Ünï", "n": 1}, '{"name":"Ünï","n":1}'), (["a", "b"], '["a","b"]'),
])
def test_values_are_spelled_as_text_or_compact_json(value, spelled):
    assert spell(value) == spelled
