"""Every file a user hands the kit, nested past what its parsers can read, is refused with a message.

JSON, YAML and TOML parsers read nested arrays and objects by recursion, and
give up (RecursionError) a few thousand levels down; so does any walk of what
they return. A report to merge, an expect-fail file and a `--cli`
configuration that deep are bad input: a line saying so, never a traceback.
(Vector files: tests/corpus/test_commands.py; an adapter's answers:
tests/runner/test_adapter_leftovers.py; stores: tests/validator/.)
"""

from __future__ import annotations

import pytest

from conformance.cli import main

LEVELS = 100_000


def _deep_json() -> str:
    return '{"a": ' * LEVELS + "1" + "}" * LEVELS


@pytest.mark.parametrize("args, message", [
    (["merge-reports", "-o", "{out}", "{file}", "{file}"], "not a memoir-conform run report: JSON nested too deeply"),
    (["run", "--model", "-k", "read.golden", "--expect-fail", "{file}"], "nested too deeply to read as JSON or YAML"),
], ids=["merge-reports", "expect-fail"])
def test_a_json_file_nested_past_the_parser_is_refused_with_a_message(tmp_path, capsys, args, message):
    deep = tmp_path / "deep.json"
    deep.write_text(_deep_json(), encoding="utf-8")
    code = main([arg.format(file=deep, out=tmp_path / "out.json") for arg in args])
    err = capsys.readouterr().err
    assert code == 2 and f"{deep}: {message}" in err, err


def test_a_cli_configuration_nested_past_the_parser_is_refused_with_a_message(tmp_path, capsys):
    config = tmp_path / "deep.toml"
    config.write_text('[describe]\nname = "deep"\nx = ' + "[" * LEVELS + "]" * LEVELS + "\n", encoding="utf-8")
    for command in ("doctor", "run"):
        code = main([command, "--cli", str(config)])
        captured = capsys.readouterr()
        assert code == 2, captured
        assert f"{config}: not valid TOML here: arrays or tables nested too deeply" in captured.out + captured.err
