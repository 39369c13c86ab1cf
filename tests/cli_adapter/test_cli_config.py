"""Loading a CLI adapter configuration: what it yields, and every mistake named by file and key."""

from __future__ import annotations

import os
import stat

import pytest
from cli_helpers import TOYMEMO_CONFIG

from conformance.cli_adapter.command import TEMPLATE
from conformance.cli_adapter.config import CliConfig, load
from conformance.cli_adapter.ops import OP_ARGS, placeholders
from conformance.model.session import DEFAULT_CAPS
from conformance.protocol.messages import OPS_FOR_LEVEL
from conformance.resources import load_schema

READ = """
[ops.read_store]
command = ["true", "{store}"]
"""


def problems_of(path) -> list[str]:
    loaded = load(path)
    assert isinstance(loaded, list), "expected problems, the configuration loaded"
    return loaded


def test_the_toymemo_configuration_loads_with_every_op_and_its_claims(toymemo):
    config = load(TOYMEMO_CONFIG)
    assert isinstance(config, CliConfig), config
    assert list(config.ops) == list(OP_ARGS)
    assert config.claims == ("reader", "writer", "full") and config.caps == DEFAULT_CAPS
    assert config.ops["read_store"].pointer == "/data" and config.ops["read_store"].result == "json"
    assert config.ops["add_goal"].result == "exit-code" and config.ops["add_goal"].invalid_input == {3}
    assert config.longest_timeout() == 8
    assert config.notes == ()


def test_describe_defaults_claim_every_level_whose_ops_all_have_templates(write_config):
    config = load(write_config(READ + """
        [ops.add_goal]
        command = "true {store} {text}"
    """, name="half.toml"))
    assert isinstance(config, CliConfig), config
    described = config.describe()
    assert described["name"] == "half" and described["version"] == "unknown"
    assert described["claims"] == ["reader"] and described["ops"] == ["read_store", "add_goal"]
    assert described["protocols"] == [1] and described["caps"] == DEFAULT_CAPS
    assert "reports" not in described


def test_describe_declares_the_read_store_reports_the_tool_gives(write_config):
    config = load(write_config(READ + """
        [describe]
        reports = ["entry_live"]
    """))
    assert isinstance(config, CliConfig), config
    assert config.describe()["reports"] == ["entry_live"]


@pytest.mark.parametrize("text, key, problem", [
    ("[ops.read_store]\ncomand = 'x'\n", "ops.read_store.comand", "unknown key (did you mean command?)"),
    ("[ops.read_store]\n", "ops.read_store.command", "missing"),
    ("[ops.add_gaol]\ncommand = 'true'\n", "ops.add_gaol", "not a protocol op (did you mean add_goal?)"),
    ("[ops.describe]\ncommand = 'true'\n", "ops.describe", "answered from the [describe] table"),
    ("[ops.add_goal]\ncommand = ['true', '{txt}']\n", "ops.add_goal.command", "unknown placeholder {txt} (did you mean {text}?)"),
    ("[ops.add_goal]\ncommand = ['true', '{text!r}']\n", "ops.add_goal.command", "takes no conversion"),
    ("[ops.add_goal]\ncommand = ['true', '{text']\n", "ops.add_goal.command", "literal braces"),
    ("[ops.add_goal]\ncommand = 'true \"{text}'\n", "ops.add_goal.command", "cannot split it into arguments"),
    ("[ops.add_goal]\ncommand = ['true', {if = 'why', then = ['x']}]\n", "ops.add_goal.command", "names no argument of add_goal"),
    ("[ops.add_goal]\ncommand = ['true', {if = 'text', then = 'x'}]\n", "ops.add_goal.command", "is a list of arguments"),
    ("[ops.add_goal]\ncommand = ['true', 7]\n", "ops.add_goal.command", "neither a string nor an `if` or `each` table"),
    ("[ops.add_goal]\nshell = true\ncommand = ['true']\n", "ops.add_goal.command", "one string, run by /bin/sh"),
    ("[ops.add_goal]\nshell = true\ncommand = 'true \"{text}\"'\n", "ops.add_goal.command", "{text} is inside quotes"),
    ("[ops.add_goal]\ncommand = 'true'\nenv = {X = '{nope}'}\n", "ops.add_goal.env.X", "unknown placeholder {nope}"),
    ("[ops.add_goal]\ncommand = 'true'\ntimeout = 0\n", "ops.add_goal.timeout", "more than 0"),
    ("[ops.add_goal]\ncommand = 'true'\ninvalid_input = [0]\n", "ops.add_goal.invalid_input", "from 1 to 255"),
    ("[ops.add_goal]\ncommand = 'true'\ninvalid_input = 3\nunsupported = [3, 4]\n", "ops.add_goal", "under both"),
    ("[ops.read_store]\ncommand = 'true'\nresult = 'exit-code'\n", "ops.read_store.result", "not from the exit code"),
    ("[ops.read_store]\ncommand = 'true'\nresult = 'stdout'\n", "ops.read_store.result", "not a result mode"),
    ("[ops.read_store]\ncommand = 'true'\npointer = 'data'\n", "ops.read_store.pointer", "not a JSON Pointer"),
    ("[ops.add_goal]\ncommand = 'true'\npointer = '/x'\n", "ops.add_goal.pointer", "only with result"),
    ("[ops.add_goal]\ncommand = 'true'\nfile = '{out}'\n", "ops.add_goal.file", "only with result = \"file\""),
    ("[ops.merge_stores]\ncommand = 'true'\nresult = 'file'\n", "ops.merge_stores.file", "is a directory"),
    ("[ops.add_goal]\ncommand = './tool {text}'\n", "ops.add_goal.command", "write {config_dir}/tool"),
    ("[ops.add_goal]\ncommand = '{config_dir}/no-such-tool'\n", "ops.add_goal.command", "is not an executable file"),
    ("[ops.add_goal]\ncommand = 'no-such-tool-9f3e {text}'\n", "ops.add_goal.command", "'no-such-tool-9f3e' not found on PATH"),
    ("[ops.add_goal]\ncommand = 'true'\ncwd = 'no-such-dir'\n", "ops.add_goal.cwd", "is not a directory"),
    (READ + "[describe]\nclaims = ['writer']\n", "describe.claims", "cumulative"),
    (READ + "[describe]\nclaims = ['reader', 'writer']\n", "describe.claims", "add_goal, complete_goal"),
    (READ + "[describe]\nclaims = ['gold']\n", "describe.claims", "a list of levels"),
    (READ + "[describe]\nversion = '1'\nversion_command = 'x --version'\n", "describe.version_command", "not both"),
    (READ + "[describe.caps]\ngoal = 3\n", "describe.caps.goal", "did you mean goals?"),
    (READ + "[describe.caps]\ngoals = 0\n", "describe.caps.goals", "at least 1"),
    (READ + "[describe]\nreports = ['live']\n", "describe.reports", "a list of entry_live"),
    (READ + "[default]\ntimeout = 3\n", "default", "unknown table (did you mean defaults?)"),
    (READ + "[defaults]\nresult = 'json'\n", "defaults.result", "unknown key"),
    ("[describe]\nname = 'x'\n", "ops", "no [ops.NAME] table"),
])
def test_a_mistake_is_named_by_file_and_key(write_config, text, key, problem):
    path = write_config(text)
    found = problems_of(path)
    assert any(line.startswith(f"{path}: {key}: ") and problem in line for line in found), found


def test_every_problem_is_reported_at_once(write_config):
    path = write_config("""
        [ops.add_goal]
        command = ["true", "{txt}"]
        [ops.read_store]
        command = "true"
        result = "exit-code"
        [describe.caps]
        goals = -1
    """)
    assert len(problems_of(path)) == 3


def test_file_problems_name_the_file_as_given(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert load("missing.toml") == ["missing.toml: no such file"]
    (tmp_path / "broken.toml").write_text("[ops.add_goal\n", encoding="utf-8")
    (found,) = problems_of("broken.toml")
    assert found.startswith("broken.toml: not valid TOML: ") and "line 1" in found


def test_a_missing_program_is_reported_once_for_all_its_commands(write_config):
    found = problems_of(write_config("""
        [ops.add_goal]
        command = "no-such-tool-9f3e add {text}"
        [ops.complete_goal]
        command = "no-such-tool-9f3e done {text}"
        [ops.add_question]
        command = "no-such-tool-9f3e ask {text}"
    """))
    assert len(found) == 1 and found[0].endswith("not found on PATH (2 other commands run it too)")


def test_programs_are_found_on_a_path_the_template_sets_and_relative_to_a_static_cwd(write_config, tmp_path):
    tool = tmp_path / "tools" / "mine"
    tool.parent.mkdir()
    tool.write_text("#!/bin/sh\n", encoding="utf-8")
    tool.chmod(tool.stat().st_mode | stat.S_IXUSR)
    config = load(write_config("""
        [ops.add_goal]
        command = "mine {text}"
        env = { PATH = "{config_dir}/tools" }
        [ops.complete_goal]
        command = "./mine {text}"
        cwd = "tools"
    """))
    assert isinstance(config, CliConfig), config


def test_a_template_that_never_passes_an_argument_gets_a_note(write_config):
    config = load(write_config("""
        [ops.add_decision]
        command = ["true", "{store}", "{text}"]
        [ops.record_session]
        command = ["true", "{store}", {if = "session_id", then = ["--id", "{session_id}"]}]
        stdin = "{summary}"
    """))
    assert isinstance(config, CliConfig), config
    assert [note.split(":")[0] for note in config.notes] == ["ops.add_decision", "ops.add_decision"]
    assert "`why`" in config.notes[0] and "`rejected`" in config.notes[1]


def test_defaults_apply_to_every_op_and_an_op_overrides_them(write_config):
    config = load(write_config("""
        [defaults]
        timeout = 3
        invalid_input = [65]
        env = { A = "1", B = "2" }
        [ops.add_goal]
        command = "true {store} {text}"
        [ops.complete_goal]
        command = "true {store} {text}"
        timeout = 7
        invalid_input = [3]
        env = { B = "3" }
    """))
    add, complete = config.ops["add_goal"], config.ops["complete_goal"]
    assert (add.timeout, add.invalid_input, {k: v.source for k, v in add.env.items()}) == (3, {65}, {"A": "1", "B": "2"})
    assert (complete.timeout, complete.invalid_input) == (7, {3})
    assert {k: v.source for k, v in complete.env.items()} == {"A": "1", "B": "3"}
    assert config.longest_timeout() == 7


def test_the_init_template_loads_once_its_program_exists(tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "mytool").write_text("#!/bin/sh\n", encoding="utf-8")
    (bin_dir / "mytool").chmod(0o755)
    path = tmp_path / "memoir-cli.toml"
    path.write_text(TEMPLATE.read_text(encoding="utf-8"), encoding="utf-8")
    assert problems_of(path) == [f"{path}: ops.read_store.command: program 'mytool' not found on PATH "
                                 "(12 other commands run it too)"]
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    config = load(path)
    assert isinstance(config, CliConfig), config
    assert config.claims == ("reader", "writer", "full") and config.notes == ()
    assert config.ops["merge_sessions"].result == "file"


def _schema_args(op: str) -> set[str]:
    definitions = load_schema("adapter-protocol.schema.json")["$defs"]
    definition = definitions[f"{op}.args"]
    names = set(definition.get("properties", {}))
    for part in definition.get("allOf", []) + ([definition] if "$ref" in definition else []):
        names |= _schema_args(part["$ref"].rsplit("/", 1)[1].removesuffix(".args"))
    return names


@pytest.mark.parametrize("op", sorted(OP_ARGS))
def test_the_placeholders_are_the_protocol_args_of_each_op(op):
    assert {arg.name for arg in OP_ARGS[op]} == _schema_args(op)
    assert "out" in placeholders(op)


def test_every_level_op_has_a_placeholder_table():
    assert set(OP_ARGS) == set(OPS_FOR_LEVEL["full"])


def test_the_documented_worked_example_is_the_tested_configuration():
    doc = (TOYMEMO_CONFIG.parents[3] / "docs" / "cli-adapter.md").read_text(encoding="utf-8")
    shown = doc.split("Its configuration, `toymemo.toml`:\n\n```toml\n", 1)[1].split("```", 1)[0]
    tested = TOYMEMO_CONFIG.read_text(encoding="utf-8")
    assert shown == tested[tested.index("[describe]"):]


def test_a_bad_default_is_reported_once_under_defaults(write_config):
    found = problems_of(write_config("""
        [defaults]
        timeout = "soon"
        env = { A = "{nope" }
        [ops.add_goal]
        command = "true {store} {text}"
        [ops.complete_goal]
        command = "true {store} {text}"
    """))
    assert [line.split(": ")[1] for line in found] == ["defaults.env.A", "defaults.timeout"], found
