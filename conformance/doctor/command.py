"""`memoir-conform doctor`: check an adapter's protocol hygiene before a real run.

Each check watches the raw stdout of the adapter (docs/adapter-protocol.md)
and, when it fails, says in plain words what to fix. After the hygiene
checks, every op the adapter declares is sent once on a tiny store
(`conformance.doctor.smoke`). Exit codes: 0 every
check passed (warnings allowed), 1 some check failed, 2 the adapter could
not be started or did not answer `describe`.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import tempfile
from pathlib import Path
from typing import TextIO

from conformance import SPEC_VERSION, SPEC_VERSIONS
from conformance.protocol.client import DEFAULT_TIMEOUT, EXIT_GRACE
from conformance.protocol.messages import (
    HANDSHAKE_PROTOCOL,
    LEVELS,
    OPS_FOR_LEVEL,
    SUPPORTED_PROTOCOLS,
    AdapterFault,
    Describe,
    ErrorResponse,
    InvalidMessage,
    OkResponse,
    Request,
    negotiate,
)
from conformance.protocol.process import (
    AdapterLimits,
    StartError,
    resolve_command,
    sandbox_problem,
)
from conformance.protocol.sandbox_probes import probe_sandbox
from conformance.runner.adapter_files import remove_tree
from conformance.safe_text import printable
from conformance.options import ADAPTER_HELP, add_cli_option, chosen_adapter, missing_paths_hint
from conformance.doctor.probe import (FIX_ANSWER, FIX_FLUSH, FIX_STDOUT, Check, Probe, Reply, _is_id_problem,
                                      _reply_problem, _shown)
from conformance.doctor.smoke import smoke_checks

# Request ids the doctor uses: distinctive, so an adapter that invents its
# own ids (a counter, always 1, ...) cannot echo them by accident.
ECHO_IDS = (7001, 90210)
UNKNOWN_OP = "doctor_no_such_op"
KNOWN_CAPS = ("goals", "next_actions", "parked_actions", "open_questions",
              "decisions", "completed_actions", "completed_goals", "history")
PROTOCOL_OPS = frozenset(op for ops in OPS_FOR_LEVEL.values() for op in ops) | {"describe"}

def _describe_problem(reply: Reply, timeout: float) -> tuple[str, str]:
    """(summary, fix) for a describe that did not get a usable answer."""
    if reply.problem == "late":
        return ("the describe answer arrived only after stdin was closed", FIX_FLUSH)
    if reply.problem == "timeout":
        return (f"no answer to describe within {timeout:g} s", FIX_ANSWER)
    if reply.problem == "exited":
        code = "an unknown code" if reply.exit_code is None else f"code {reply.exit_code}"
        return (f"the adapter exited with {code} before answering describe", "see its stderr below")
    outcome = reply.outcome
    if isinstance(outcome, AdapterFault):
        fixes = {
            "not_json": FIX_STDOUT,
            "wrong_id": "copy the request's id into its response",
            "bad_message": "see the response shape in docs/adapter-protocol.md",
            "too_long": "keep each response line under the limit",
        }
        if _is_id_problem(outcome):
            return (outcome.detail, "copy the request's id into its response unchanged, as an integer")
        return (outcome.detail, fixes.get(outcome.kind, ""))
    if isinstance(outcome, ErrorResponse):
        return (f"describe was answered with an error ({outcome.kind}: {outcome.message})",
                "every adapter must answer describe")
    return ("", "")


def check_handshake(probe: Probe) -> tuple[list[Check], Describe | None]:
    checks: list[Check] = []
    try:
        reply = probe.roundtrip(Request(HANDSHAKE_PROTOCOL, 1, "describe", {}))
    except StartError as error:
        return [Check("starts", "FAIL", str(error), "check the command: run it by hand in a shell")], None
    summary, fix = _describe_problem(reply, probe.timeout)
    if reply.problem == "exited":
        return [Check("starts", "FAIL", summary, fix)], None
    checks.append(Check("starts", "PASS", "the adapter starts" if probe.oneshot else "the adapter starts and stays up"))
    if summary:
        return checks + [Check("describe", "FAIL", summary, fix)], None
    try:
        described = Describe.from_json(reply.outcome.result, at="/result")
    except InvalidMessage as error:
        return checks + [Check("describe", "FAIL", f"the describe result breaks the protocol schema at {error}",
                               "see the describe result in docs/adapter-protocol.md")], None
    chosen = negotiate(described.protocols)
    if chosen is None:
        return checks + [Check("describe", "FAIL",
                               f"no shared protocol version: the adapter offers {list(described.protocols)}, "
                               f"memoir-conform speaks {list(SUPPORTED_PROTOCOLS)}",
                               "offer protocol 1 in describe.protocols")], None
    checks.append(Check("describe", "PASS",
                        f"{described.name} {described.version}, protocols {list(described.protocols)} "
                        f"(using {chosen}), claims {', '.join(described.claims) or 'nothing'}"))
    return checks, described


def check_claims(described: Describe) -> Check:
    problems: list[str] = []
    fixes: list[str] = []
    failed = False
    for level in described.claims:
        missing = [op for op in OPS_FOR_LEVEL[level] if op not in described.ops]
        if missing:
            failed = True
            problems.append(f"claims {level} but does not list {', '.join(missing)} in ops")
            fixes.append("list every op the claimed level needs, or claim a lower level")
    claimed = [LEVELS.index(level) for level in described.claims]
    if claimed and sorted(claimed) != list(range(max(claimed) + 1)):
        implied = ", ".join(LEVELS[: max(claimed) + 1])
        problems.append(f"levels are cumulative (spec 8): claiming {LEVELS[max(claimed)]} means claiming {implied}")
        fixes.append(f'use "claims": {json.dumps(list(LEVELS[: max(claimed) + 1]))}')
    if not described.claims:
        problems.append("claims no conformance level, so no level can be earned")
        fixes.append('claim the level you aim for, for example "claims": ["reader"]')
    if described.spec != SPEC_VERSION:
        known = "an older" if described.spec in SPEC_VERSIONS else "an unknown"
        problems.append(f"describes spec {described.spec!r}, {known} version; this kit tests {SPEC_VERSION}")
        fixes.append(f'set "spec": "{SPEC_VERSION}" once the implementation follows it')
    strange = [op for op in described.ops if op not in PROTOCOL_OPS]
    if strange:
        problems.append(f"lists ops the protocol does not define: {', '.join(strange)}")
        fixes.append("check their spelling (extension ops are fine)")
    if not problems:
        return Check("claims", "PASS", f"claims {', '.join(described.claims)} with the ops they need")
    return Check("claims", "FAIL" if failed else "WARN", "; ".join(problems), "; ".join(fixes))


def check_caps(described: Describe) -> Check:
    missing = [name for name in KNOWN_CAPS if name not in described.caps]
    if missing:
        return Check("caps", "WARN", f"caps omit {', '.join(missing)}: the reference values are assumed (spec 4.1)",
                     "declare every cap the implementation applies")
    return Check("caps", "PASS", ", ".join(f"{name} {described.caps[name]}" for name in KNOWN_CAPS))


def _not_checked(name: str, problem: Check) -> Check:
    return Check(name, "SKIP", f"not checked: see {problem.name}")


def check_ids(probe: Probe, protocol: int) -> list[Check]:
    checks: list[Check] = []
    for request_id in ECHO_IDS:
        reply = probe.roundtrip(Request(protocol, request_id, "describe", {}))
        problem = _reply_problem(reply, f"a describe with id {request_id}", probe.timeout, probe.oneshot)
        if problem is not None:
            return [problem] if problem.name == "echoes-ids" else [problem, _not_checked("echoes-ids", problem)]
        if reply.extra_line is not None:
            checks.append(Check("clean-stdout", "FAIL", f"an extra line followed an answer: {_shown(reply.extra_line)}",
                                FIX_STDOUT))
    checks.insert(0, Check("echoes-ids", "PASS", f"answers carry the request ids {ECHO_IDS[0]} and {ECHO_IDS[1]}"))
    if probe.oneshot:
        if len(checks) == 1:
            checks.append(Check("clean-stdout", "PASS", "nothing but answers on stdout"))
        return checks
    checks.append(Check("flushes", "PASS", "each answer arrives while stdin is still open"))
    extra = probe.quiet()
    if extra is not None:
        checks.append(Check("clean-stdout", "FAIL", f"an extra line followed an answer: {_shown(extra)}", FIX_STDOUT))
        probe.stop()
    else:
        checks.append(Check("clean-stdout", "PASS", "nothing but answers on stdout"))
    return checks


def check_unknown_op(probe: Probe, protocol: int) -> list[Check]:
    if probe.stalled:
        return [Check("unknown-op", "SKIP", "not checked: the adapter stopped answering")]
    reply = probe.roundtrip(Request(protocol, 31337, UNKNOWN_OP, {}))
    problem = _reply_problem(reply, f"the unknown op {UNKNOWN_OP!r}", probe.timeout, probe.oneshot)
    if problem is not None:
        return [problem, _not_checked("unknown-op", problem)]
    outcome = reply.outcome
    fix = ('answer an op you do not implement with {"ok": false, "error": {"kind": "unsupported", ...}}: '
           "the vectors that need it are then reported as not applicable")
    if isinstance(outcome, ErrorResponse) and outcome.kind == "unsupported":
        return [Check("unknown-op", "PASS", "an unknown op is answered with unsupported")]
    if isinstance(outcome, OkResponse):
        return [Check("unknown-op", "FAIL", f"the unknown op {UNKNOWN_OP!r} was answered with ok", fix)]
    return [Check("unknown-op", "FAIL", f"the unknown op was answered with {outcome.kind}, not unsupported", fix)]


def check_exit(probe: Probe) -> Check:
    fix = "exit with code 0 when stdin reaches end of file"
    if probe.oneshot:
        codes = probe.exit_codes
        if None in codes:
            return Check("exits-on-eof", "FAIL", f"a one-shot process was still running {EXIT_GRACE:g} s after its answer", fix)
        if any(codes):
            return Check("exits-on-eof", "FAIL", f"one-shot processes exited with codes {sorted(set(codes))}", fix)
        return Check("exits-on-eof", "PASS", "every one-shot process exited 0 after its answer")
    if probe.process is None:
        probe.start()
    process = probe.process
    process.close_stdin()
    code = process.wait(EXIT_GRACE)
    left = process.leftovers() if code == 0 else []
    probe.stop()
    if code is None:
        return Check("exits-on-eof", "FAIL", f"still running {EXIT_GRACE:g} s after end of input", fix)
    if code != 0:
        return Check("exits-on-eof", "FAIL", f"exited with code {code} at end of input", fix)
    if left:
        return Check("exits-on-eof", "WARN",
                     f"exits 0 at end of input but leaves {len(left)} process(es) it started running "
                     f"(pids {', '.join(map(str, left))}); the runner stops them",
                     "stop (and wait for) the processes the adapter starts before it exits")
    return Check("exits-on-eof", "PASS", "exits 0 at end of input")


def check_oneshot(argv: list[str], scratch: Path, timeout: float, limits: AdapterLimits = AdapterLimits()) -> Check:
    """Optional in persistent mode: would the adapter also work with --oneshot?"""
    probe = Probe(argv, scratch, timeout, oneshot=True, limits=limits)
    reply = probe.roundtrip(Request(HANDSHAKE_PROTOCOL, 1, "describe", {}))
    summary, fix = _describe_problem(reply, timeout)
    if summary:
        return Check("oneshot", "WARN", f"one-shot mode: {summary}", fix)
    if reply.exit_code != 0:
        exit_text = "did not exit" if reply.exit_code is None else f"exited with code {reply.exit_code}"
        return Check("oneshot", "WARN", f"one-shot mode: answered describe but {exit_text} after end of input",
                     "exit 0 once stdin is closed and the answer is written")
    return Check("oneshot", "PASS", "works in one-shot mode too (a fresh process per request)")


def check_sandbox(requested: bool) -> Check:
    """Does `--sandbox` work here? FAIL only when it was asked for and cannot work."""
    problem = sandbox_problem()
    if requested and problem:
        return Check("sandbox", "FAIL", f"--sandbox cannot work here: {problem}",
                     "install bubblewrap, or run without --sandbox")
    if requested:
        return Check("sandbox", "PASS", "every check above ran in the bubblewrap sandbox "
                                        "(file system read-only except the scratch directory, no network)")

    if problem:
        return Check("sandbox", "SKIP", f"--sandbox is not available here: {problem}")
    return Check("sandbox", "SKIP", "not checked: --sandbox works here (bubblewrap); "
                                    "add --sandbox to run these checks inside it")


def sandbox_probe_checks() -> list[Check]:
    """The sandbox's promises, each tried from inside it by a probe (`sandbox_probes`)."""
    return [Check(result.name, "PASS" if result.held else "FAIL", result.summary,
                  "" if result.held else "update bubblewrap; run doctor --sandbox again, and report it if it persists")
            for result in probe_sandbox()]


def stdout_verdict(checks: list[Check]) -> list[Check]:
    """`clean-stdout` passes only if no check saw a stray line on stdout: an op of the
    smoke tests that logs to stdout fails it too, not only its own line."""
    dirty = [check.name for check in checks if check.fix == FIX_STDOUT and check.name != "clean-stdout"]
    if not dirty:
        return checks
    return [Check("clean-stdout", "FAIL", f"stdout carried more than answers: see {', '.join(dirty)}", FIX_STDOUT)
            if check.name == "clean-stdout" and check.status == "PASS" else check for check in checks]


def _without_repeats(checks: list[Check]) -> list[Check]:
    """One line per check: a problem met again by a later check is shown once."""
    seen: set[str] = set()
    kept = []
    for check in checks:
        if check.name in seen and check.status == "FAIL":
            continue
        seen.add(check.name)
        kept.append(check)
    return kept


def run_doctor(
    command: str,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    oneshot: bool = False,
    sandbox: bool = False,
    out: TextIO | None = None,
) -> int:
    """Run every check against `command`, print one line each; return the exit code."""
    out = out if out is not None else sys.stdout

    def show(line: str) -> None:
        # The adapter's name, messages and stderr included: control characters made visible, but a
        # check's stderr keeps its real line breaks (Check.line puts each on a line of its own).
        print(printable(line, multiline=True), file=out)

    mode = "one-shot" if oneshot else "persistent"
    show(f"memoir-conform doctor: {command} ({mode} mode{', sandboxed' if sandbox else ''}, timeout {timeout:g} s)")
    try:
        argv = resolve_command(command)
    except (StartError, ValueError) as error:
        show(Check("starts", "FAIL", f"cannot read the command: {error}").line())
        return 2
    sandbox_check = check_sandbox(sandbox)
    if sandbox_check.status == "FAIL":
        show(sandbox_check.line())
        return 2
    limits = AdapterLimits(sandbox=sandbox)
    # Removed by remove_tree, not TemporaryDirectory: an adapter may leave a tree
    # too deep for a recursive removal, or take its permissions away.
    scratch = Path(tempfile.mkdtemp(prefix="memoir-conform-doctor-"))
    try:
        probe = Probe(argv, scratch, timeout, oneshot, limits)
        try:
            checks, described = check_handshake(probe)
            if described is not None:
                protocol = negotiate(described.protocols)
                checks.append(check_claims(described))
                checks.append(check_caps(described))
                checks.extend(check_ids(probe, protocol))
                checks.extend(check_unknown_op(probe, protocol))
                checks.extend(smoke_checks(probe, described, protocol, scratch))
                checks = stdout_verdict(checks)
                exit_check = check_exit(probe)
                checks.append(exit_check)
                if oneshot:
                    pass
                elif exit_check.status == "FAIL":
                    # One-shot mode needs exactly what just failed: exiting at end of input.
                    checks.append(_not_checked("oneshot", exit_check))
                else:
                    checks.append(check_oneshot(argv, scratch, timeout, limits))
        except StartError as error:  # it started once, then could not be restarted
            checks.append(Check("starts", "FAIL", str(error)))
        finally:
            probe.stop()
        stderr = probe.failure_stderr or probe.stderr
    finally:
        remove_tree(scratch)
    checks = _without_repeats(checks) + [sandbox_check]
    if sandbox:
        checks += sandbox_probe_checks()
    for check in checks:
        show(check.line())
    failed = [check for check in checks if check.status == "FAIL"]
    warned = [check for check in checks if check.status == "WARN"]
    passed = [check for check in checks if check.status == "PASS"]
    if failed and stderr.strip():
        show("adapter stderr (last lines):")
        for line in stderr.strip().splitlines()[-10:]:
            show(f"  | {line}")
    if described is None:
        hint = missing_paths_hint(command)
        if hint:
            show(f"hint: {hint}")
        print("could not start the adapter: fix the first FAIL above, then run doctor again", file=out)
        return 2
    print(f"{len(passed)} passed, {len(failed)} failed, {len(warned)} warnings", file=out)
    return 1 if failed else 0


def add_doctor_parser(subparsers) -> argparse.ArgumentParser:
    """Register `doctor` on an argparse subparsers object; sets `handler`."""
    parser = subparsers.add_parser(
        "doctor",
        help="check an adapter's protocol hygiene before a run",
        description=(
            "Start the adapter and check that it answers describe, echoes ids, flushes each line, "
            "keeps logs off stdout, answers unknown ops with unsupported and exits 0 at end of input. "
            "Exit codes: 0 all checks passed, 1 some check failed, 2 the adapter could not be started."
        ),
    )
    chosen = parser.add_mutually_exclusive_group(required=True)
    chosen.add_argument("--adapter", metavar="CMD", help=ADAPTER_HELP)
    add_cli_option(chosen)
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, metavar="S",
                        help=f"seconds to wait for each answer (default {DEFAULT_TIMEOUT:g})")
    parser.add_argument("--oneshot", action="store_true",
                        help="the adapter serves one request per process (for example a shell script)")
    parser.add_argument("--sandbox", action="store_true",
                        help="run the adapter in a bubblewrap sandbox, as `run --sandbox` does")
    parser.set_defaults(handler=handler)
    return parser


register_doctor = register = add_doctor_parser   # `register` is what conformance.cli calls


def handler(args: argparse.Namespace) -> int:
    if args.timeout <= 0:
        print("memoir-conform doctor: --timeout must be a positive number of seconds", file=sys.stderr)
        return 2
    adapter = chosen_adapter(args, "memoir-conform doctor")
    if adapter is None:
        return 2
    command = adapter.command if isinstance(adapter.command, str) else shlex.join(adapter.command)
    return run_doctor(command, timeout=adapter.timeout, oneshot=args.oneshot, sandbox=args.sandbox)
