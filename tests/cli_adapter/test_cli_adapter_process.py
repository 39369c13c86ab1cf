"""The CLI adapter as a process speaking the protocol, driving toymemo: every way a result is
read, every way a command fails, and texts no shell should see unquoted."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_helpers import TOYMEMO_CONFIG, cli_client

from conformance.cli_adapter import adapter_command
from conformance.protocol.client import AdapterClient
from conformance.protocol.messages import AdapterFault, ErrorResponse, OkResponse

# Texts a naive `sh -c "tool add {text}"` adapter would break on, run or lose.
NASTY_TEXTS = [
    "it's \"quoted\" and 'single'",
    "$(touch pwned-by-subshell)",
    "`touch pwned-by-backticks`",
    "first line\nsecond line",
    "-rf --store /etc",
    "--help",
    "  spaced   out  ",
    "; touch pwned-by-semicolon & echo | cat > x",
    "naïve ☃ {text} {{braces}} \\back\\slash $HOME *",
]


@pytest.fixture
def store(tmp_path) -> Path:
    path = tmp_path / "store"
    (path / "memory").mkdir(parents=True)
    return path


@pytest.fixture
def adapter(tmp_path, toymemo):
    """adapter(config=TOYMEMO_CONFIG, timeout=10) -> a started AdapterClient, closed after the test."""
    started = []

    def start(config: Path = TOYMEMO_CONFIG, timeout: float = 10.0):
        client = cli_client(config, tmp_path / f"adapter-{len(started)}", timeout)
        started.append(client)
        described = client.describe()
        assert not isinstance(described, AdapterFault), f"{described}\n{described.stderr_tail}"
        return client

    yield start
    for client in started:
        client.close()


def session_of(store: Path) -> dict:
    return json.loads((store / "session.json").read_text(encoding="utf-8"))


def ok(outcome) -> dict:
    assert isinstance(outcome, OkResponse), outcome
    return dict(outcome.result)


def refused(outcome, kind: str) -> str:
    assert isinstance(outcome, ErrorResponse) and outcome.kind == kind, outcome
    return outcome.message


def test_describe_comes_from_the_configuration_and_the_version_command(adapter):
    described = adapter().described
    assert (described.name, described.version) == ("toymemo", "0.3.1")  # "toymemo 0.3.1" minus the name
    assert described.claims == ("reader", "writer", "full") and len(described.ops) == 13


def test_an_op_without_a_template_is_unsupported(adapter, write_config, store):
    client = adapter(write_config("""
        [ops.read_store]
        command = ["toymemo", "read", "{store}", "--json"]
        pointer = "/data"
    """))
    assert client.described.ops == ("read_store",) and client.described.claims == ("reader",)
    refused(client.request("add_goal", {"store": str(store), "text": "x"}), "unsupported")


def test_writers_are_read_back_from_the_store_and_cwd_and_env_take_placeholders(adapter, store):
    client = adapter()
    assert ok(client.request("add_goal", {"store": str(store), "text": "Ship it"})) == {}  # via TOYMEMO_STORE
    assert [goal["text"] for goal in session_of(store)["current"]["goals"]] == ["Ship it"]
    read = ok(client.request("read_store", {"store": str(store)}))  # `read .` in cwd = {store}, pointer /data
    assert read["session"]["status"] == "ok" and read["session"]["live"]["goals"] == ["Ship it"]


def test_exit_codes_map_to_error_kinds_with_the_commands_stderr(adapter, write_config, store):
    client = adapter(write_config("""
        [defaults]
        invalid_input = [3]
        unsupported = [4]
        [ops.hide_decision]
        command = ["toymemo", "hide", "--store", "{store}", {if = "purge", then = ["--purge"]}, "--", "{text}"]
        env = { TOYMEMO_NO_PURGE = "1" }
        [ops.add_decision]
        command = ["toymemo", "decide", "--store", "{store}", "--no-such-option", "--", "{text}"]
        [ops.add_goal]
        command = ["sh", "-c", "kill -9 $$", "{store}", "{text}"]
    """))
    message = refused(client.request("hide_decision", {"store": str(store), "text": "never decided", "purge": False}),
                      "invalid_input")
    assert "exit code 3" in message and "no decision with this text to hide" in message
    message = refused(client.request("hide_decision", {"store": str(store), "text": "x", "purge": True}),
                      "unsupported")
    assert "exit code 4" in message and "cannot purge" in message
    message = refused(client.request("add_decision", {"store": str(store), "text": "x"}), "internal")
    # A usage message on stderr is a mistake in the template, never a refusal of the input.
    assert message.startswith("usage error: toymemo rejected the command line ops.add_decision built (exit code 2)")
    assert "unrecognized arguments: --no-such-option" in message
    assert "killed by signal 9" in refused(client.request("add_goal", {"store": str(store), "text": "x"}), "internal")
    # The runner shows the adapter's stderr next to a failure: it names the exact command run.
    assert "[cli-adapter] add_decision: toymemo decide --store" in client.stderr_tail()


def test_json_results_are_checked_and_read_at_the_pointer(adapter, write_config, store):
    client = adapter(write_config("""
        [ops.read_store]
        command = ["toymemo", "read", "{store}", "--json"]
        pointer = "/data"
        [ops.merge_sessions]
        command = ["toymemo", "--version", "{local}", "{remote}"]
        [ops.merge_stores]
        command = ["toymemo", "read", "{local}", "--json"]
        result = "json"
        pointer = "/data/entries/0"
    """))
    read = ok(client.request("read_store", {"store": str(store)}))
    assert read == {"entries": [], "session": {"status": "absent", "live": read["session"]["live"]}}
    message = refused(client.request("merge_sessions", {"local": "{}", "remote": "{}"}), "internal")
    assert "wrote stdout that is not JSON" in message
    message = refused(client.request("merge_stores", {"local": str(store), "remote": str(store),
                                                      "out": str(store.parent / "out")}), "internal")
    assert "nothing at /data/entries/0: /data/entries holds list" in message


def test_a_result_file_the_command_writes_is_read(adapter, write_config):
    client = adapter(write_config("""
        [ops.merge_sessions]
        command = ["toymemo", "merge", "{local}", "{remote}", "--output", "{out}"]
        result = "file"
        [ops.read_store]
        command = ["toymemo", "merge", "{store}/session.json", "{store}/session.json"]
        result = "file"
        file = "{config_dir}/never-written.json"
    """))
    local = {"version": 1, "current": {"next_actions": [{"text": "Local", "added": "2026-01-01T00:00:00Z"}]}}
    remote = {"version": 1, "current": {"next_actions": [{"text": "Remote", "added": "2026-01-02T00:00:00Z"}]}}
    merged = ok(client.request("merge_sessions", {"local": json.dumps(local), "remote": json.dumps(remote)}))
    assert {action["text"] for action in merged["session"]["current"]["next_actions"]} == {"Local", "Remote"}
    store = client.scratch_dir.parent / "s"
    store.mkdir()
    (store / "session.json").write_text(json.dumps(local), encoding="utf-8")
    message = refused(client.request("read_store", {"store": str(store)}), "internal")
    assert "never-written.json cannot be read" in message


@pytest.mark.parametrize("mode", ["argv", "string", "shell"])
def test_nasty_texts_reach_the_tool_verbatim_and_run_nothing(adapter, write_config, store, mode):
    command = {
        "argv": 'command = ["toymemo", "add-action", "--store", "{store}", "--", "{text}"]',
        "string": 'command = "toymemo add-action --store {store} -- {text}"',
        "shell": 'shell = true\ncommand = "toymemo add-action --store {store} -- {text} 2>&1 >/dev/null"',
    }[mode]
    client = adapter(write_config(f"[ops.add_next_action]\n{command}\n"))
    texts = NASTY_TEXTS[:8]  # next_actions cap
    for text in texts:
        ok(client.request("add_next_action", {"store": str(store), "text": text}))
    assert [action["text"] for action in session_of(store)["current"]["next_actions"]] == texts
    assert not list(client.scratch_dir.parent.rglob("pwned*")) and not list(store.parent.rglob("x"))


def test_texts_also_travel_through_files_and_stdin(adapter, store):
    client = adapter()
    for text in NASTY_TEXTS[:5]:
        ok(client.request("add_question", {"store": str(store), "text": text}))  # --text-file {text_file}
    ok(client.request("record_session", {"store": str(store), "summary": NASTY_TEXTS[-1],
                                         "session_id": "-s1"}))  # stdin = {summary}
    session = session_of(store)
    assert [question["text"] for question in session["current"]["open_questions"]] == NASTY_TEXTS[:5]
    assert session["history"][0]["summary"] == NASTY_TEXTS[-1] and session["history"][0]["session_id"] == "-s1"


def test_optional_arguments_are_passed_only_when_given(adapter, store):
    client = adapter()
    ok(client.request("add_decision", {"store": str(store), "text": "plain"}))
    ok(client.request("add_decision", {"store": str(store), "text": "reasoned", "why": "--why", "rejected": ""}))
    decisions = {d["text"]: d for d in session_of(store)["current"]["decisions"]}
    assert "why" not in decisions["plain"] and "rejected" not in decisions["plain"]
    assert decisions["reasoned"]["why"] == "--why" and decisions["reasoned"]["rejected"] == ""


def test_json_arguments_arrive_as_json_text_and_as_files(adapter, store):
    client = adapter()
    fields = {"type": "fact", "name": "Quote's \"test\"", "tags": ["a b", "$(x)"]}
    body = "Line one\n\n- $(not run)\n"
    ok(client.request("write_entry", {"store": str(store), "link": "fact_q", "frontmatter": fields, "body": body}))
    ok(client.request("update_entry", {"store": str(store), "link": "fact_q", "set": {"name": "Renamed"},
                                       "unset": ["tags"]}))
    (entry,) = ok(client.request("read_store", {"store": str(store)}))["entries"]
    assert entry["fields"]["name"] == "Renamed" and "tags" not in entry["fields"]
    assert entry["body"] == body


def test_a_command_past_its_timeout_is_stopped_and_the_adapter_goes_on(adapter, write_config, store):
    client = adapter(write_config("""
        [ops.add_goal]
        command = ["toymemo", "add-goal", "--store", "{store}", "--", "{text}"]
        env = { TOYMEMO_SLEEP = "30" }
        timeout = 0.5
        [ops.add_question]
        command = ["sh", "-c", "sleep 30 & wait", "{store}", "{text}"]
        timeout = 0.5
        [ops.add_next_action]
        command = ["toymemo", "add-action", "--store", "{store}", "--", "{text}"]
    """))
    for op in ("add_goal", "add_question"):
        started = time.monotonic()
        message = refused(client.request(op, {"store": str(store), "text": "slow"}), "internal")
        assert "was stopped (the timeout of ops." in message and time.monotonic() - started < 5
    ok(client.request("add_next_action", {"store": str(store), "text": "fast"}))
    current = session_of(store)["current"]
    assert [action["text"] for action in current["next_actions"]] == ["fast"] and not current.get("goals")


def test_a_template_without_a_timeout_stays_under_the_runners(adapter, write_config, store):
    client = adapter(write_config("""
        [ops.add_goal]
        command = ["sleep", "30", "{store}", "{text}"]
    """), timeout=1.5)
    started = time.monotonic()
    refused(client.request("add_goal", {"store": str(store), "text": "x"}), "internal")  # not a runner timeout fault
    assert time.monotonic() - started < 1.5


def test_a_nul_character_is_an_internal_error_with_the_way_out(adapter, write_config, store):
    client = adapter(write_config("""
        [ops.add_goal]
        command = ["toymemo", "add-goal", "--store", "{store}", "--", "{text}"]
    """))
    message = refused(client.request("add_goal", {"store": str(store), "text": "a\x00b"}), "internal")
    assert "cannot carry a NUL character" in message and "_file placeholder" in message


def test_a_failing_version_command_stops_the_adapter_at_start(tmp_path, toymemo, write_config):
    client = cli_client(write_config("""
        [describe]
        version_command = ["toymemo", "--no-such-flag"]
        [ops.read_store]
        command = ["toymemo", "read", "{store}", "--json"]
        pointer = "/data"
    """), tmp_path / "adapter")
    try:
        fault = client.describe()
    finally:
        client.close()
    assert isinstance(fault, AdapterFault) and fault.kind == "crashed"
    assert "describe.version_command: toymemo --no-such-flag exited 2" in fault.stderr_tail


@pytest.mark.skipif(sys.platform != "linux", reason="the parent-death signal is Linux's")
def test_a_command_does_not_outlive_an_adapter_the_runner_stopped(tmp_path, write_config, store):
    pid_file = tmp_path / "pid"
    config = write_config(f"""
        [ops.add_goal]
        command = ["sh", "-c", "echo $$ > {pid_file}; exec sleep 30", "{{store}}", "{{text}}"]
    """)
    # The runner gives up after 1 s while the command may run for 29: it stops the adapter.
    command = adapter_command(config, 30.0)
    client = AdapterClient(command, timeout=1.0, workdir=tmp_path / "adapter")
    try:
        fault = client.request("add_goal", {"store": str(store), "text": "x"})
    finally:
        client.close()
    assert isinstance(fault, AdapterFault) and fault.kind == "timeout"
    pid = int(pid_file.read_text())
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and _alive(pid):
        time.sleep(0.05)
    assert not _alive(pid)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie has exited; only its parent has not collected it yet.
    stat_file = Path(f"/proc/{pid}/stat")
    return not (stat_file.exists() and stat_file.read_text().split(") ", 1)[1].startswith("Z"))


def test_each_request_finds_its_files_alone_whatever_the_last_command_left(adapter, write_config, store):
    # The request folder is kept from one request to the next and emptied after each: nothing a
    # command writes there ({out}, a file beside a replica, a folder) reaches the next command.
    client = adapter(write_config("""
        [ops.merge_sessions]
        command = ["sh", "-c", '''
            set -e
            test ! -e "$3"; test "$(ls "$(dirname "$1")")" = session.json; test "$(ls "$(dirname "$2")")" = session.json
            test "$(ls "$(dirname "$(dirname "$1")")" | tr '\\n' ' ')" = "local remote "
            mkdir "$3"; touch "$3/x" "$(dirname "$1")/stray" "$(dirname "$(dirname "$1")")/stray"
            cat "$2"
        ''', "sh", "{local}", "{remote}", "{out}"]
        [ops.add_goal]
        command = ["sh", "-c", 'test ! -e "$1" && test "$(cat "$2")" = "$3" && mkdir "$1"', "sh", "{out}", "{text_file}", "{text}"]
    """))
    for number in range(3):
        remote = {"version": 1, "current": {"goals": [{"text": f"Goal {number}", "added": "2026-01-01T00:00:00Z"}]}}
        merged = ok(client.request("merge_sessions", {"local": json.dumps({"version": 1}),
                                                      "remote": json.dumps(remote)}))
        assert merged["session"] == remote
        ok(client.request("add_goal", {"store": str(store), "text": f"goal {number}"}))
    client.close()
    assert not [path for path in client.scratch_dir.iterdir() if path.name.startswith("requests-")]


# A command that exits with its own parent-death signal (prctl PR_GET_PDEATHSIG): 0 when there is none.
_PDEATHSIG_PROBE = """
    [ops.add_question]
    command = ["{python}", "-c", "import ctypes, sys; v = ctypes.c_int(); ctypes.CDLL(None).prctl(2, ctypes.byref(v)); sys.exit(v.value)", "{{text}}"]
"""


@pytest.mark.skipif(sys.platform != "linux", reason="the parent-death signal is Linux's")
def test_below_the_kits_reaper_a_command_needs_no_parent_death_signal(adapter, write_config, store):
    # The reaper kills what a dead adapter left (the test above), so the command starts with
    # vfork: no function runs in the child, and no parent-death signal is set.
    client = adapter(write_config(_PDEATHSIG_PROBE.format(python=sys.executable)))
    assert ok(client.request("add_question", {"store": str(store), "text": "x"})) == {}


@pytest.mark.skipif(sys.platform != "linux", reason="the parent-death signal is Linux's")
def test_an_adapter_started_without_the_reaper_still_takes_its_command_with_it(tmp_path, write_config, store):
    pid_file = tmp_path / "pid"
    config = write_config(_PDEATHSIG_PROBE.format(python=sys.executable) + f"""
        [ops.add_goal]
        command = ["sh", "-c", "echo $$ > {pid_file}; exec sleep 30", "{{store}}", "{{text}}"]
    """)
    process = subprocess.Popen(adapter_command(config, 30.0), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, cwd=tmp_path)
    try:
        for number, (op, args) in enumerate([("add_question", {"store": str(store), "text": "x"}),
                                             ("add_goal", {"store": str(store), "text": "x"})], start=1):
            process.stdin.write(json.dumps({"protocol": 1, "id": number, "op": op, "args": args}).encode() + b"\n")
            process.stdin.flush()
        answer = json.loads(process.stdout.readline())["error"]["message"]
        assert answer.endswith(f"failed with exit code {int(signal.SIGKILL)}"), answer
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not (pid_file.exists() and pid_file.read_text().strip()):
            time.sleep(0.05)
        pid = int(pid_file.read_text())
    finally:
        process.kill()
        process.wait()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and _alive(pid):
        time.sleep(0.05)
    assert not _alive(pid)
