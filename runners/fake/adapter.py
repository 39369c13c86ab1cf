#!/usr/bin/env python3
"""A fake memoir-conform adapter that breaks the protocol on command.

It speaks protocol 1 correctly (see docs/adapter-protocol.md) and implements
one op of its own, `echo`, which returns its args. Faults are chosen with the
environment variable FAKE_ADAPTER_FAULT (a comma-separated list) and/or a
per-request arg "fault"; see runners/fake/README.md for what each one does
and what `memoir-conform doctor` says about it.

Standard library only, so that it doubles as a minimal example adapter.
"""

from __future__ import annotations

import json
import os
import sys
import time

FAULTS = {
    "sleep": "never answers (sleeps until it is stopped)",
    "crash": "writes to stderr and exits with code 3 instead of answering",
    "garbage": "prints a line that is not JSON instead of the answer",
    "wrong_id": "answers with the wrong id",
    "log_to_stdout": "writes a log line to stdout before the answer",
    "no_flush": "holds its answers back until end of input",
    "ignore_unknown": "answers an unknown op with ok instead of unsupported",
    "no_exit_on_eof": "keeps running after end of input",
    "bad_describe": "answers describe with a result that breaks the schema",
    "bad_response": "answers ok without a result",
}
# Faults that are about one kind of moment rather than the n-th request,
# so FAKE_ADAPTER_FAULT_AFTER does not delay them.
ALWAYS = {"ignore_unknown", "no_exit_on_eof", "bad_describe"}

CAPS = {
    "goals": 3,
    "next_actions": 8,
    "parked_actions": 20,
    "open_questions": 5,
    "decisions": 10,
    "completed_actions": 50,
    "completed_goals": 50,
    "history": 30,
}


def configuration() -> tuple[set[str], int, list[int]]:
    faults = {name.strip() for name in os.environ.get("FAKE_ADAPTER_FAULT", "").split(",") if name.strip()}
    unknown = sorted(faults - FAULTS.keys())
    if unknown:
        sys.stderr.write(f"fake adapter: unknown fault(s) {unknown}; known: {sorted(FAULTS)}\n")
        sys.exit(2)
    after = int(os.environ.get("FAKE_ADAPTER_FAULT_AFTER", "1"))
    protocols = [int(part) for part in os.environ.get("FAKE_ADAPTER_PROTOCOLS", "1").split(",")]
    return faults, after, protocols


def describe(protocols: list[int], broken: bool) -> dict:
    result = {
        "name": "fake-adapter",
        "version": "1.0.0",
        "protocols": protocols,
        "spec": "0.1.2",
        "claims": [],
        "ops": ["echo"],
        "caps": CAPS,
    }
    if broken:
        result["protocols"] = [str(number) for number in protocols]
    return result


def error(request_id, kind: str, message: str) -> dict:
    return {"id": request_id, "ok": False, "error": {"kind": kind, "message": message}}


def respond(request: dict, faults: set[str], protocols: list[int]) -> dict:
    request_id = request.get("id")
    op = request.get("op")
    args = request.get("args") if isinstance(request.get("args"), dict) else {}
    if op == "describe":
        return {"id": request_id, "ok": True, "result": describe(protocols, "bad_describe" in faults)}
    if request.get("protocol") not in protocols:
        return error(request_id, "invalid_input", f"protocol {request.get('protocol')!r} is not spoken here")
    if op == "echo":
        return {"id": request_id, "ok": True, "result": {"args": {k: v for k, v in args.items() if k != "fault"}}}
    if "ignore_unknown" in faults:
        return {"id": request_id, "ok": True, "result": {}}
    return error(request_id, "unsupported", f"fake-adapter does not implement {op!r}")


def main() -> int:
    env_faults, after, protocols = configuration()
    stdout = sys.stdout.buffer
    held: list[bytes] = []
    served = 0

    def emit(obj) -> None:
        line = (obj if isinstance(obj, str) else json.dumps(obj)).encode("utf-8") + b"\n"
        if "no_flush" in faults:
            held.append(line)
        else:
            stdout.write(line)
            stdout.flush()

    for raw in sys.stdin.buffer:
        if not raw.strip():
            continue
        try:
            request = json.loads(raw)
        except ValueError as problem:
            faults = set()
            emit(error(None, "invalid_input", f"not JSON: {problem}"))
            continue
        if not isinstance(request, dict):
            faults = set()
            emit(error(None, "invalid_input", "a request is a JSON object"))
            continue
        faults = {name for name in env_faults if name in ALWAYS or served >= after}
        asked = request.get("args", {}).get("fault") if isinstance(request.get("args"), dict) else None
        served += 1
        if asked is not None:
            if asked not in FAULTS:
                faults = set()
                emit(error(request.get("id"), "invalid_input", f"unknown fault {asked!r}; known: {sorted(FAULTS)}"))
                continue
            faults.add(asked)
        response = respond(request, faults, protocols)
        request_id = request.get("id")
        if "sleep" in faults:
            sys.stderr.write(f"fake adapter: sleeping instead of answering request {request_id} (fault sleep)\n")
            sys.stderr.flush()
            time.sleep(3600)
        if "crash" in faults:
            sys.stderr.write(f"fake adapter: crashing on request {request_id} (fault crash)\n")
            sys.stderr.flush()
            os._exit(3)
        if "log_to_stdout" in faults:
            emit(f"[fake-adapter] handling request {request_id}")
        if "garbage" in faults:
            emit("<<< this line is not JSON >>>")
            continue
        if "wrong_id" in faults and isinstance(request_id, int):
            response["id"] = request_id + 1000
        if "bad_response" in faults:
            response = {"id": request_id, "ok": True}
        emit(response)

    if held:
        stdout.write(b"".join(held))
        stdout.flush()
    if "no_exit_on_eof" in env_faults:
        sys.stderr.write("fake adapter: ignoring end of input (fault no_exit_on_eof)\n")
        sys.stderr.flush()
        time.sleep(3600)
    return 0


if __name__ == "__main__":
    sys.exit(main())
