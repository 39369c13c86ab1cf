"""`memoir-conform doctor` against the fake adapter: a good one passes, each fault is named."""

from __future__ import annotations

import argparse
import io
import sys
import tempfile

import pytest

from conformance.doctor import command as doctor

FAST = 0.5   # what a fault test waits for the answer that never comes
ROOMY = 10   # for a good adapter: it answers long before, so a busy machine cannot fail it


def run_doctor(command, **options) -> tuple[int, str]:
    out = io.StringIO()
    code = doctor.run_doctor(command, out=out, **{"timeout": FAST, **options})
    return code, out.getvalue()


def status_of(output: str, check: str) -> str | None:
    for line in output.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[1] == check and parts[0] in ("PASS", "FAIL", "WARN", "SKIP"):
            return parts[0]
    return None


def fake(fake_command) -> str:
    return " ".join(fake_command)


def test_a_well_behaved_adapter_passes_every_check(fake_command, fake_env):
    code, output = run_doctor(fake(fake_command), timeout=ROOMY)
    assert code == 0, output
    for check in ("starts", "describe", "caps", "echoes-ids", "flushes", "clean-stdout", "unknown-op",
                  "exits-on-eof", "oneshot"):
        assert status_of(output, check) == "PASS", (check, output)
    # The fake claims nothing: a warning, not a failure.
    assert status_of(output, "claims") == "WARN"
    assert "claims no conformance level" in output
    assert "0 failed" in output


def test_a_well_behaved_oneshot_adapter_passes_in_oneshot_mode(fake_command, fake_env):
    code, output = run_doctor(fake(fake_command), oneshot=True, timeout=ROOMY)
    assert code == 0, output
    assert "one-shot mode" in output.splitlines()[0]
    for check in ("describe", "echoes-ids", "unknown-op", "exits-on-eof"):
        assert status_of(output, check) == "PASS", (check, output)


@pytest.mark.parametrize(
    "fault, check, phrase",
    [
        pytest.param("sleep", "answers", "no answer to a describe with id 7001 within 0.5 s", marks=pytest.mark.slow),
        ("crash", "answers", "exited with code 3"),
        ("garbage", "clean-stdout", "stdout carried '<<< this line is not JSON >>>'"),
        ("log_to_stdout", "clean-stdout", "stdout carried '[fake-adapter] handling request 7001'"),
        ("wrong_id", "echoes-ids", "carries id 8001, expected 7001"),
        ("no_flush", "flushes", "arrived only after stdin was closed"),
        ("ignore_unknown", "unknown-op", "was answered with ok"),
        pytest.param("no_exit_on_eof", "exits-on-eof", "still running 2 s after end of input", marks=pytest.mark.slow),
        ("bad_response", "response-shape", "'result' is a required property"),
        ("float_id", "echoes-ids", "/id: 7001.0 is not an integer"),
        ("double_answer", "clean-stdout", "request 7001 was answered a second time instead of request 90210"),
        ("endless_line", "response-shape", "is longer than 16777216 bytes, the line limit"),
        ("stop_reading", "answers", "no answer to a describe with id 90210 within 0.5 s"),
    ],
)
def test_each_fault_is_named_with_a_fix(fake_command, fake_env, fault, check, phrase):
    fake_env(fault=fault)
    code, output = run_doctor(fake(fake_command))
    assert code == 1, output
    failing = [line for line in output.splitlines() if line.startswith("FAIL")]
    assert len(failing) == 1, output  # one fault, one FAIL line
    assert status_of(output, check) == "FAIL", output
    assert phrase in failing[0]
    assert "-- fix:" in failing[0]


def test_stderr_of_a_crashing_adapter_is_shown(fake_command, fake_env):
    fake_env(fault="crash")
    _, output = run_doctor(fake(fake_command))
    assert "adapter stderr (last lines):" in output
    assert "| fake adapter: crashing on request 7001 (fault crash)" in output


def test_a_schema_invalid_describe_means_it_could_not_start(fake_command, fake_env):
    fake_env(fault="bad_describe")
    code, output = run_doctor(fake(fake_command))
    assert code == 2, output
    assert status_of(output, "describe") == "FAIL"
    assert "/result/protocols/0" in output
    assert "could not start the adapter" in output


@pytest.mark.slow
def test_a_describe_that_never_comes_means_it_could_not_start(fake_command, fake_env):
    fake_env(fault="sleep", fault_after="0")
    code, output = run_doctor(fake(fake_command))
    assert code == 2, output
    assert "no answer to describe within 0.5 s" in output


def test_no_shared_protocol_means_it_could_not_start(fake_command, fake_env):
    fake_env(protocols="2")
    code, output = run_doctor(fake(fake_command))
    assert code == 2, output
    assert "no shared protocol version: the adapter offers [2], memoir-conform speaks [1]" in output


def test_an_adapter_offering_1_and_2_is_fine(fake_command, fake_env):
    fake_env(protocols="1,2")
    code, output = run_doctor(fake(fake_command), timeout=ROOMY)
    assert code == 0, output
    assert "protocols [1, 2] (using 1)" in output


def test_a_missing_program_could_not_start():
    code, output = run_doctor("memoir-conform-no-such-program-xyz --serve")
    assert code == 2
    assert status_of(output, "starts") == "FAIL"
    assert "memoir-conform-no-such-program-xyz" in output


def test_an_adapter_that_exits_at_once_could_not_start():
    code, output = run_doctor(f"{sys.executable} -c \"import sys; sys.stderr.write('no config\\\\n'); sys.exit(4)\"")
    assert code == 2, output
    assert "exited with code 4 before answering describe" in output
    assert "| no config" in output


def test_claims_without_their_ops_fail():
    described = doctor.Describe.from_json({
        "name": "x", "version": "1", "protocols": [1], "spec": "0.1.2",
        "claims": ["reader", "writer"], "ops": ["read_store", "add_goal"], "caps": {},
    })
    check = doctor.check_claims(described)
    assert check.status == "FAIL"
    assert "claims writer but does not list complete_goal" in check.summary


def test_a_claim_that_skips_lower_levels_and_an_old_spec_warn():
    described = doctor.Describe.from_json({
        "name": "x", "version": "1", "protocols": [1], "spec": "0.1",
        "claims": ["full"], "ops": list(doctor.OPS_FOR_LEVEL["full"]), "caps": {},
    })
    check = doctor.check_claims(described)
    assert check.status == "WARN"
    assert "levels are cumulative (spec 8)" in check.summary
    assert "describes spec '0.1', an older version" in check.summary


def test_missing_caps_warn_and_name_them():
    described = doctor.Describe.from_json({
        "name": "x", "version": "1", "protocols": [1], "spec": "0.1.2",
        "claims": [], "ops": [], "caps": {"goals": 3},
    })
    check = doctor.check_caps(described)
    assert check.status == "WARN"
    assert check.summary.startswith("caps omit next_actions, parked_actions,")  # goals is declared
    assert "history" in check.summary


def test_the_subcommand_registers_with_argparse(fake_command, fake_env, capsys):
    parser = argparse.ArgumentParser(prog="memoir-conform")
    subparsers = parser.add_subparsers(dest="command")
    doctor.add_doctor_parser(subparsers)
    args = parser.parse_args(["doctor", "--adapter", fake(fake_command), "--timeout", "2"])
    assert args.handler(args) == 0
    assert "PASS  describe" in capsys.readouterr().out
    bad = parser.parse_args(["doctor", "--adapter", fake(fake_command), "--timeout", "0"])
    assert bad.handler(bad) == 2
    assert doctor.register_doctor is doctor.add_doctor_parser


def test_processes_left_running_after_exit_are_a_warning(fake_command, fake_env, pid_file, survivors):
    fake_env(fault="setsid_child")
    code, output = run_doctor(fake(fake_command))
    assert code == 0, output
    assert status_of(output, "exits-on-eof") == "WARN"
    assert "leaves 3 process(es) it started running" in output
    assert survivors(pid_file) == []


def test_escape_sequences_from_the_adapter_never_reach_the_output(fake_command, fake_env):
    fake_env(fault="hostile_text,crash")
    code, output = run_doctor(fake(fake_command))
    assert code == 1, output
    assert not any(char in output for char in ("\x1b", "\x07", "\x9b", "\r", "\u202e")), repr(output)
    assert "fake-adapter\\u001b[2J" in output  # escaped visibly, not dropped
    assert not any(line.startswith("memoir Full") for line in output.splitlines())


def test_doctor_says_whether_the_sandbox_works_here(fake_command, fake_env, monkeypatch):
    monkeypatch.setattr(doctor, "sandbox_problem", lambda: "bubblewrap (bwrap) is not installed")
    code, output = run_doctor(fake(fake_command), timeout=ROOMY)
    assert code == 0 and status_of(output, "sandbox") == "SKIP"
    assert "--sandbox is not available here: bubblewrap (bwrap) is not installed" in output
    code, output = run_doctor(fake(fake_command), sandbox=True)
    assert code == 2 and status_of(output, "sandbox") == "FAIL"


@pytest.mark.usefixtures("sandbox")   # fails where .ci/run requires the sandbox, skips elsewhere
def test_a_good_adapter_passes_inside_the_sandbox(fake_command, fake_env):
    code, output = run_doctor(fake(fake_command), sandbox=True, timeout=ROOMY)
    assert code == 0, output
    assert status_of(output, "sandbox") == "PASS" and status_of(output, "oneshot") == "PASS"


@pytest.mark.parametrize("fault", ["deep_store", "link_session"])
def test_what_an_adapter_leaves_is_a_failure_and_the_doctors_temp_dir_is_removed(fake_command, fake_env, tmp_path,
                                                                                  monkeypatch, fault):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    fake_env(model="reference", fault=fault, fault_when="add_goal")
    code, out = run_doctor(fake(fake_command), timeout=20)  # 1,200 directories take a while on a busy machine
    assert code == 1 and "Traceback" not in out
    assert status_of(out, "add_goal") == "FAIL"
    assert "nested more than 32 levels" in out or "a symbolic link to '/dev/zero'" in out
    assert list(tmp_path.iterdir()) == []
