"""`doctor` sends every declared op once on a tiny store: the mistakes only a real request shows."""

from __future__ import annotations

import io
import shlex
import sys
from pathlib import Path

import pytest

import conformance
from conformance.doctor import command as doctor
from conformance.doctor.smoke import SMOKE_OPS

QUIRKY = Path(__file__).with_name("quirky_adapter.py")
PACKAGE_ROOT = Path(conformance.__file__).resolve().parents[1]
COMMAND = shlex.join([sys.executable, str(QUIRKY), str(PACKAGE_ROOT)])


@pytest.fixture
def quirk(monkeypatch):
    def choose(name: str, op: str = "") -> None:
        monkeypatch.setenv("QUIRK", name)
        monkeypatch.setenv("QUIRK_OP", op)
    monkeypatch.delenv("QUIRK", raising=False)
    return choose


def run_doctor(**options) -> tuple[int, dict[str, str], str]:
    out = io.StringIO()
    code = doctor.run_doctor(COMMAND, out=out, timeout=5, **options)
    lines = {}
    for line in out.getvalue().splitlines():
        status, _, rest = line.partition("  ")
        if status in ("PASS", "FAIL", "WARN", "SKIP"):
            name = rest.split()[0]
            lines.setdefault(name, f"{status} {rest}")
    return code, lines, out.getvalue()


def test_every_declared_op_is_sent_once_and_passes_on_a_good_adapter(quirk):
    code, checks, output = run_doctor()
    assert code == 0, output
    for op in SMOKE_OPS:
        assert checks[op].startswith("PASS"), (op, output)


def test_a_log_line_on_stdout_inside_read_store_is_found(quirk):
    quirk("stdout_log", "read_store")
    code, checks, output = run_doctor()
    assert code == 1
    assert checks["read_store"].startswith("FAIL") and "[quirky] reading" in checks["read_store"]
    assert "send logs to stderr" in checks["read_store"]
    # describe alone never showed it, but the same output must not call stdout clean
    assert checks["clean-stdout"].startswith("FAIL") and "see read_store" in checks["clean-stdout"]


def test_a_crash_on_a_real_request_fails_that_op_and_shows_stderr(quirk):
    quirk("crash", "add_goal")
    code, checks, output = run_doctor()
    assert code == 1 and checks["add_goal"].startswith("FAIL")
    assert "exited with code 3" in checks["add_goal"]
    assert "quirky: crashing on add_goal" in output
    assert checks["add_next_action"].startswith("PASS")  # the adapter was restarted for the next op


def test_an_answer_that_breaks_the_result_schema_is_found(quirk):
    quirk("bad_result", "read_store")
    code, checks, _ = run_doctor()
    assert code == 1 and checks["read_store"].startswith("FAIL")
    assert "schema" in checks["read_store"] and "/result/entries" in checks["read_store"]


def test_a_declared_op_answered_unsupported_fails(quirk):
    quirk("unsupported", "merge_stores")
    code, checks, _ = run_doctor()
    assert code == 1 and "declared in describe.ops but answered unsupported" in checks["merge_stores"]


def test_a_writer_that_changes_nothing_is_warned_about(quirk):
    quirk("ignores_store")
    code, checks, _ = run_doctor()
    assert code == 0
    assert checks["add_goal"].startswith("WARN") and "changed nothing" in checks["add_goal"]
    assert checks["read_store"].startswith("PASS")


def test_an_adapter_that_exits_after_its_first_answer_is_told_to_use_oneshot(quirk):
    quirk("one_answer")
    code, checks, output = run_doctor()
    assert code == 1
    assert checks["answers"].startswith("FAIL") and "--oneshot" in checks["answers"], output
    code, checks, output = run_doctor(oneshot=True)
    assert code == 0, output
    assert all(checks[op].startswith("PASS") for op in SMOKE_OPS), output
