"""A real argparse CLI that takes one argument per key (`--field-json K=JSON`,
`--set-json K=JSON`, `--unset K`), configured without a shell through `each`
tables, and exit code 2 for both a refused input and a usage error: it reaches
the reference's verdict on a shard of the corpus, a typo in its template is a
usage error (doctor FAILs and shows the usage text as lines), never a refusal."""

from __future__ import annotations

import json
import stat
import sys
import textwrap
from pathlib import Path

import pytest

from conformance.cli import main
from conformance.cli_adapter.config import load
from conformance.cli_adapter.invoke import spell
from conformance.cli_adapter.templates import entries, render_argv

# The implementer's CLI: argparse, JSON on stdout, exit 2 when it refuses the input
# (argparse's own usage errors exit 2 as well). It delegates to the reference model.
MEMO_CLI = '''
import argparse, json, sys
from pathlib import Path
from conformance import reference

def pairs(items):
    found = {}
    for item in items or []:
        key, _, value = item.partition("=")
        found[key] = json.loads(value)
    return found

parser = argparse.ArgumentParser(prog="memo")
sub = parser.add_subparsers(dest="command", required=True)
read = sub.add_parser("read"); read.add_argument("store")
for name in ("add_goal", "complete_goal", "add_next_action", "complete_next_action", "add_question",
             "add_decision", "hide_decision", "record_session"):
    one = sub.add_parser(name.replace("_", "-"))
    one.add_argument("--store", required=True); one.add_argument("--text"); one.add_argument("--why")
    one.add_argument("--rejected"); one.add_argument("--purge", action="store_true")
    one.add_argument("--summary"); one.add_argument("--session-id")
new = sub.add_parser("new-entry")
new.add_argument("--store", required=True); new.add_argument("--link", required=True)
new.add_argument("--field-json", action="append"); new.add_argument("--body-file", required=True)
upd = sub.add_parser("set-fields")
upd.add_argument("--store", required=True); upd.add_argument("--link", required=True)
upd.add_argument("--set-json", action="append"); upd.add_argument("--unset", action="append", default=[])
merge = sub.add_parser("merge"); merge.add_argument("local"); merge.add_argument("remote")
stores = sub.add_parser("merge-stores")
stores.add_argument("local"); stores.add_argument("remote"); stores.add_argument("out")
args = parser.parse_args()
context = reference.Context.from_home()
op = args.command.replace("-", "_")
if op == "read":
    request, op = {"store": args.store}, "read_store"
elif op == "new_entry":
    request, op = {"store": args.store, "link": args.link, "frontmatter": pairs(args.field_json),
                   "body": Path(args.body_file).read_text(encoding="utf-8")}, "write_entry"
elif op == "set_fields":
    request, op = {"store": args.store, "link": args.link, "set": pairs(args.set_json),
                   "unset": args.unset}, "update_entry"
elif op == "merge":
    request, op = {"local": Path(args.local).read_text(encoding="utf-8"),
                   "remote": Path(args.remote).read_text(encoding="utf-8")}, "merge_sessions"
elif op == "merge_stores":
    request = {"local": args.local, "remote": args.remote, "out": args.out}
else:
    request = {key: value for key, value in (("store", args.store), ("text", args.text), ("why", args.why),
               ("rejected", args.rejected), ("summary", args.summary), ("session_id", args.session_id))
               if value is not None}
    if op == "hide_decision":
        request["purge"] = args.purge
try:
    answer = reference.handle(op, request, context)
except reference.OpError as error:
    print(f"memo: {error.message}", file=sys.stderr)
    sys.exit(2 if error.kind == "invalid_input" else 4 if error.kind == "unsupported" else 1)
print(json.dumps(answer["session"] if op == "merge_sessions" else answer))
'''

SESSION_OPS = {"add_goal": "", "complete_goal": "", "add_next_action": "", "complete_next_action": "",
               "add_question": "", "add_decision": "", "hide_decision": "", "record_session": ""}


def session_op(op: str) -> str:
    extra = {
        "add_decision": ('{ if = "why", then = ["--why={why}"] }, '
                         '{ if = "rejected", then = ["--rejected={rejected}"] }, '),
        "hide_decision": '{ if = "purge", then = ["--purge"] }, ',
        "record_session": '"--summary={summary}", { if = "session_id", then = ["--session-id={session_id}"] }, ',
    }.get(op, "")
    text = '' if op == "record_session" else '"--text={text}", '
    return (f'[ops.{op}]\ncommand = ["{{config_dir}}/memo", "{op.replace("_", "-")}", "--store", "{{store}}", '
            f'{text}{extra}]\n')


CONFIG = textwrap.dedent("""
    [describe]
    name = "memo"
    version = "1.0"

    [defaults]
    invalid_input = [2]     # argparse exits 2 on a usage error too: the default usage_error_stderr tells them apart
    unsupported = [4]

    [ops.read_store]
    command = ["{config_dir}/memo", "read", "{store}"]

    [ops.write_entry]
    command = ["{config_dir}/memo", "new-entry", "--store", "{store}", "--link={link}",
               { each = "frontmatter", args = ["--field-json={key}={value_json}"] }, "--body-file", "{body_file}"]

    [ops.update_entry]
    command = ["{config_dir}/memo", "set-fields", "--store", "{store}", "--link={link}",
               { each = "set", args = ["--set-json={key}={value_json}"] },
               { each = "unset", args = ["--unset={value}"] }]

    [ops.merge_sessions]
    command = ["{config_dir}/memo", "merge", "{local}", "{remote}"]

    [ops.merge_stores]
    command = ["{config_dir}/memo", "merge-stores", "{local}", "{remote}", "{out}"]
    """) + "\n".join(session_op(op) for op in SESSION_OPS)


@pytest.fixture
def memo(tmp_path) -> Path:
    """The CLI next to its configuration: memo (run by this Python) and memo.toml."""
    program = tmp_path / "memo"
    program.write_text(f"#!{sys.executable}\n{MEMO_CLI}", encoding="utf-8")
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    config = tmp_path / "memo.toml"
    config.write_text(CONFIG, encoding="utf-8")
    return config


def run(capsys, *args) -> tuple[int, str, str]:
    code = main([str(arg) for arg in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.slow
def test_a_cli_taking_one_argument_per_key_reaches_the_reference_verdict(memo, capsys, tmp_path):
    # The vectors that write entry files: where per-key arguments are built (every other op is
    # one template like toymemo's, run through its CLI by test_cli_commands.py).
    shard = ("-k", "write.entry*", "-k", "write.frontmatter.*", "-k", "write.body-key.*", "-k", "write.prefix-key.*",
             "-k", "write.forward.*", "-k", "write.new-entry-dialect.*", "--quiet")
    code, out, err = run(capsys, "run", "--cli", memo, "-j", "2", *shard, "--json", tmp_path / "cli.json")
    reference_code, _, _ = run(capsys, "run", "--adapter", "reference", *shard, "--json", tmp_path / "ref.json")
    cli, ref = (json.loads((tmp_path / name).read_text()) for name in ("cli.json", "ref.json"))
    assert "warning" not in err, err
    assert (code, cli["summary"]["results"]["counts"]) == (reference_code, ref["summary"]["results"]["counts"]), \
        out[-3000:]
    assert cli["grade"]["verdict"] == ref["grade"]["verdict"]
    ops = {step["op"] for vector in cli["vectors"] for step in vector["sent"]}
    assert {"write_entry", "update_entry"} <= ops, ops


def test_a_typo_in_a_template_is_a_usage_error_and_doctor_fails_showing_the_usage_text(memo, capsys):
    memo.write_text(CONFIG.replace('"--link={link}",\n           { each = "frontmatter"',
                                   '"--lnk={link}",\n           { each = "frontmatter"'), encoding="utf-8")
    code, out, _ = run(capsys, "doctor", "--cli", memo)
    assert code == 1, out
    line = next(line for line in out.splitlines() if line.startswith("FAIL  write_entry"))
    assert "memo rejected the command line ops.write_entry built (exit code 2)" in line
    # argparse's usage text is shown as lines of text, not as one line with escaped newlines
    assert "\\u000a" not in out and any(text.strip().startswith("| memo new-entry: error:") or
                                        "error: the following arguments are required: --link" in text
                                        for text in out.splitlines())


def test_each_repeats_per_key_and_per_item(memo):
    config = load(memo)
    argv = render_argv(config.ops["update_entry"].argv, {"config_dir": "/c", "store": "/s", "link": "x"},
                       lambda name: True,
                       lambda name: entries({"set": {"name": "N", "tags": ["a", "b"]}, "unset": ["old"]}[name], spell))
    assert argv[-3:] == ['--set-json=name="N"', '--set-json=tags=["a","b"]', "--unset=old"]


def test_a_shell_group_is_literal_and_a_pipeline_is_warned_about(tmp_path):
    path = tmp_path / "piped.toml"
    path.write_text('[ops.read_store]\nshell = true\ncommand = "{ cat {store}/session.json; echo; } | cat"\n')
    loaded = load(path)
    assert not isinstance(loaded, list), loaded
    assert loaded.ops["read_store"].shell_command.fields == {"store"}
    assert any("warning: a pipeline's exit status is its last command's" in note for note in loaded.notes)


def test_a_broken_op_table_is_reported_once_not_again_as_missing_from_the_claims(tmp_path):
    path = tmp_path / "typo.toml"
    path.write_text('[describe]\nclaims = ["reader"]\n[ops.read_store]\ncommand = ["cat", "{stor}"]\n')
    problems = load(path)
    assert len(problems) == 1 and "unknown placeholder {stor}" in problems[0], problems
