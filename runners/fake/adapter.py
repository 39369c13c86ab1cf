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
import subprocess
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
    "float_id": "answers with the request's id written as a float (7 becomes 7.0)",
    "double_answer": "writes its answer twice",
    "endless_line": "writes one line without end instead of the answer",
    "stop_reading": "answers, then never reads its input again",
    "leave_children": "starts two processes in its process group that outlive it, then answers",
    "setsid_child": "starts a process that leaves its process group (setsid) and outlives it, then answers",
    "hog_memory": "allocates up to 8 GiB before answering (a memory limit stops it first)",
    "spin": "burns CPU instead of answering",
    "hostile_text": "puts terminal escape sequences in describe, its error messages and its stderr",
    "write_outside": "creates files next to its HOME's parent and two levels above each path it is sent, then answers",
    "write_siblings": "writes into every other adapter's HOME and every other worker's vector area it can reach, "
                      "and into the run's temporary directory, then answers",
    "link_session": "leaves store/session.json as a symbolic link to FAKE_ADAPTER_LINK_TO "
                    "(default /dev/zero), then answers",
    "fifo_session": "leaves store/session.json as a FIFO (named pipe), then answers",
    "big_session": "leaves store/session.json as a sparse file of 1 GiB, then answers",
    "deep_store": "leaves a directory 1,200 levels deep in the store, then answers",
    "deep_session": "leaves a valid store/session.json 200,000 levels deep, then answers",
    "unremovable": "makes store/memory unremovable (immutable as root, else no permissions), then answers",
    "deep_answer": "answers with a result nested 100,000 levels deep",
    "deep_after": "answers, then writes a line nested 100,000 levels deep",
    "long_after": "answers, then writes a line of 17 MiB (longer than the default line limit)",
    "flood_after": "answers, then writes short lines that are not JSON, without end",
    "fork_escape": "starts a process that forks every few ms, each parent exiting, then answers",
}
# Faults that are about one kind of moment rather than the n-th request,
# so FAKE_ADAPTER_FAULT_AFTER does not delay them.
ALWAYS = {"ignore_unknown", "no_exit_on_eof", "bad_describe", "hostile_text"}

# Clears the screen, retitles the window, rings the bell, and starts a line
# that looks like a verdict.
HOSTILE = ("\x1b[2J\x1b]0;pwned\x07\x1b[1;32m\rmemoir Full (v0.1.2) earned\nExit 0\x9b31m\u202e"
           # bidi isolate, zero-width, tag, no-break and ideographic spaces; markdown and HTML (issue 24)
           "\u2066\u200b\ufeff\U000e0041\u00a0\u3000 <img src=x onerror=alert(1)> [link](http://x) **bold**")

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


def reference_model():
    """With FAKE_ADAPTER_MODEL=reference: (describe, handle) of memoir-conform's reference model, else None.

    This is the one place the fake needs the memoir-conform package: to break
    the protocol in the middle of a real run of vectors.
    """
    if os.environ.get("FAKE_ADAPTER_MODEL") != "reference":
        return None
    # The package this file ships with: the checkout root, or site-packages for a wheel.
    here = os.path.dirname(os.path.abspath(__file__))
    while not os.path.isfile(os.path.join(here, "conformance", "__init__.py")) and os.path.dirname(here) != here:
        here = os.path.dirname(here)
    sys.path.insert(0, here)
    from conformance import reference

    context = reference.Context.from_home()

    def handle(op: str, args: dict):
        try:
            return {"ok": True, "result": reference.handle(op, args, context)}
        except reference.OpError as problem:
            return {"ok": False, "error": {"kind": problem.kind, "message": problem.message}}

    return reference.describe(), handle


def write_outside(request: dict) -> None:
    """Create files where an adapter must not: above HOME's parent and above each absolute path arg."""
    places = [os.path.join(os.environ.get("HOME", "."), "..", "..")]
    args = request.get("args") if isinstance(request.get("args"), dict) else {}
    places += [os.path.join(value, "..", "..") for value in args.values() if isinstance(value, str) and os.path.isabs(value)]
    for index, place in enumerate(places):
        with open(os.path.join(place, f"fake-stray-{request.get('id')}-{index}"), "w", encoding="utf-8") as stray:
            stray.write("written outside the scratch directory (fault write_outside)\n")


DEEP = 100_000


def store_of(request: dict) -> str | None:
    args = request.get("args") if isinstance(request.get("args"), dict) else {}
    store = args.get("store") or args.get("out")
    return store if isinstance(store, str) and os.path.isdir(store) else None


def leave_in_store(fault: str, store: str) -> None:
    """Leave in the store what a runner must not follow, block on or choke on (the *_session, deep_store
    and unremovable faults)."""
    session = os.path.join(store, "session.json")
    if fault in ("link_session", "fifo_session", "big_session") and os.path.lexists(session):
        os.unlink(session)
    if fault == "link_session":
        os.symlink(os.environ.get("FAKE_ADAPTER_LINK_TO", "/dev/zero"), session)
    elif fault == "fifo_session":
        os.mkfifo(session)
    elif fault == "big_session":
        with open(session, "wb") as big:
            big.truncate(1024 ** 3)
    elif fault == "deep_session":
        with open(session + ".tmp", "w", encoding="utf-8") as deep:
            deep.write('{"version": 1, "deep": ' + "[" * 200_000 + "]" * 200_000 + "}")
        os.replace(session + ".tmp", session)
    elif fault == "deep_store":
        fd = os.open(store, os.O_RDONLY)
        for _ in range(1200):  # deeper than any path a runner could name: only directory descriptors go there
            os.mkdir("d", dir_fd=fd)
            deeper = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = deeper
        os.close(fd)
    elif fault == "unremovable":
        memory = os.path.join(store, "memory")
        os.makedirs(memory, exist_ok=True)
        with open(os.path.join(memory, "stuck.md"), "w", encoding="utf-8") as stuck:
            stuck.write("---\ntype: note\n---\nstuck\n")
        if os.geteuid() == 0:
            import fcntl
            import struct

            fd = os.open(memory, os.O_RDONLY)
            flags = struct.unpack("i", fcntl.ioctl(fd, 0x80086601, b"\0" * 4))[0]
            fcntl.ioctl(fd, 0x40086602, struct.pack("i", flags | 0x10))  # FS_IMMUTABLE_FL
            os.close(fd)
        else:
            os.chmod(memory, 0)


def write_siblings() -> None:
    """Write wherever a sibling's files are: other adapters' HOMEs, other workers' areas, the run's root."""
    home = os.environ.get("HOME", ".")
    adapters = os.path.dirname(os.path.dirname(home))
    root = os.path.dirname(adapters)
    places = [os.path.join(adapters, name, "home") for name in os.listdir(adapters)]
    vectors = os.path.join(root, "vectors")
    if os.path.isdir(vectors):
        places += [os.path.join(vectors, area, vector) for area in os.listdir(vectors)
                   for vector in os.listdir(os.path.join(vectors, area))]
    places.append(root)
    for place in places:
        if os.path.realpath(place) != os.path.realpath(home):
            try:
                with open(os.path.join(place, "fake-sibling-write"), "w", encoding="utf-8") as stray:
                    stray.write("written into a sibling's directory (fault write_siblings)\n")
            except OSError as problem:
                sys.stderr.write(f"fake adapter: could not write into {place}: {problem}\n")


def fork_escape() -> None:
    """A chain of processes, each forking a child and exiting at once, for ten seconds (bounded, so that
    a test that fails never leaves a chain cycling through the pid space for long): at any moment one or
    two of them live, each for about a millisecond (FAKE_ADAPTER_PID_FILE names the first)."""
    if os.fork() != 0:
        return
    os.setsid()
    pid_file = os.environ.get("FAKE_ADAPTER_PID_FILE")
    deadline = time.monotonic() + 10
    beat = 0.0
    while time.monotonic() < deadline:
        if pid_file and time.monotonic() > beat:  # a heartbeat: the chain is alive while the file grows
            beat = time.monotonic() + 0.02
            with open(pid_file, "a", encoding="utf-8") as pids:
                pids.write(f"{os.getpid()}\n")
        time.sleep(0.002)  # every few ms: fast enough to outrun a sweep that looks once
        if os.fork() != 0:
            os._exit(0)  # the parent goes, the child carries on
    os._exit(0)


def configuration() -> tuple[set[str], int, list[int]]:
    faults = {name.strip() for name in os.environ.get("FAKE_ADAPTER_FAULT", "").split(",") if name.strip()}
    unknown = sorted(faults - FAULTS.keys())
    if unknown:
        sys.stderr.write(f"fake adapter: unknown fault(s) {unknown}; known: {sorted(FAULTS)}\n")
        sys.exit(2)
    after = int(os.environ.get("FAKE_ADAPTER_FAULT_AFTER", "1"))
    protocols = [int(part) for part in os.environ.get("FAKE_ADAPTER_PROTOCOLS", "1").split(",")]
    return faults, after, protocols


def triggered(raw: bytes, served: int, after: int) -> bool:
    """Do the FAKE_ADAPTER_FAULT faults apply to this request line?"""
    when = os.environ.get("FAKE_ADAPTER_FAULT_WHEN")
    return served >= after and (when is None or when.encode("utf-8") in raw)


def describe(protocols: list[int], broken: bool, hostile: bool = False) -> dict:
    result = {
        "name": "fake-adapter" + (HOSTILE if hostile else ""),
        "version": "1.0.0" + (HOSTILE if hostile else ""),
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


def respond(request: dict, faults: set[str], protocols: list[int], model=None) -> dict:
    request_id = request.get("id")
    op = request.get("op")
    args = request.get("args") if isinstance(request.get("args"), dict) else {}
    if op == "describe":
        result = describe(protocols, "bad_describe" in faults, "hostile_text" in faults)
        if model is not None:
            result.update({key: model[0][key] for key in ("claims", "ops", "caps")})
        return {"id": request_id, "ok": True, "result": result}
    if request.get("protocol") not in protocols:
        return error(request_id, "invalid_input", f"protocol {request.get('protocol')!r} is not spoken here")
    if op == "echo":
        return {"id": request_id, "ok": True, "result": {"args": {k: v for k, v in args.items() if k != "fault"}}}
    if model is not None and op in model[0]["ops"]:
        return {"id": request_id, **model[1](op, args)}
    if "ignore_unknown" in faults:
        return {"id": request_id, "ok": True, "result": {}}
    hostile = HOSTILE if "hostile_text" in faults else ""
    return error(request_id, "unsupported", f"fake-adapter does not implement {op!r}{hostile}")


def leave_children(request_id, new_session: bool) -> None:
    """Start processes that outlive this one; name their pids on stderr and in FAKE_ADAPTER_PID_FILE."""
    count = 1 if new_session else 2
    for _ in range(count):
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"],
                                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                 start_new_session=new_session)
        where = "a session of its own" if new_session else "its process group"
        sys.stderr.write(f"fake adapter: started child {child.pid} in {where} (request {request_id})\n")
        if os.environ.get("FAKE_ADAPTER_PID_FILE"):
            with open(os.environ["FAKE_ADAPTER_PID_FILE"], "a", encoding="utf-8") as pids:
                pids.write(f"{child.pid}\n")
    sys.stderr.flush()


def main() -> int:
    env_faults, after, protocols = configuration()
    model = reference_model()
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
        faults = {name for name in env_faults if name in ALWAYS or triggered(raw, served, after)}
        asked = request.get("args", {}).get("fault") if isinstance(request.get("args"), dict) else None
        served += 1
        if asked is not None:
            if asked not in FAULTS:
                faults = set()
                emit(error(request.get("id"), "invalid_input", f"unknown fault {asked!r}; known: {sorted(FAULTS)}"))
                continue
            faults.add(asked)
        response = respond(request, faults, protocols, model)
        request_id = request.get("id")
        if "hostile_text" in faults:
            sys.stderr.write(f"fake adapter: request {request_id}{HOSTILE}\n")
            sys.stderr.flush()
        if "write_outside" in faults:
            write_outside(request)
        if "fork_escape" in faults:
            fork_escape()
        if "deep_answer" in faults:
            response = (f'{{"id": {json.dumps(request_id)}, "ok": true, "result": {{"deep": '
                        + "[" * DEEP + "]" * DEEP + "}}")
        for fault, new_session in (("leave_children", False), ("setsid_child", True)):
            if fault in faults:
                leave_children(request_id, new_session)
        if "hog_memory" in faults:
            # 64 MiB at a time, up to 8 GiB (then it gives up and answers): a memory limit stops it first.
            hoard = [bytearray(64 * 1024 * 1024) for _ in range(128)]
            del hoard
        if "spin" in faults:
            while True:
                pass
        if "endless_line" in faults:
            chunk = b"x" * (1024 * 1024)
            while True:
                stdout.write(chunk)
                stdout.flush()
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
        if "float_id" in faults and isinstance(request_id, int):
            response["id"] = float(request_id)
        store = store_of(request)  # left before the answer: the runner reads the store as soon as it has it
        for fault in ("link_session", "fifo_session", "big_session", "deep_session", "deep_store", "unremovable"):
            if fault in faults and store:
                leave_in_store(fault, store)
        if "write_siblings" in faults:
            write_siblings()
        emit(response)
        if "deep_after" in faults:
            emit("[" * DEEP + "]" * DEEP)
        if "long_after" in faults:
            emit("x" * (17 * 1024 * 1024))
        while "flood_after" in faults:
            emit("flood")
        if "double_answer" in faults:
            emit(response)
        if "stop_reading" in faults:
            sys.stderr.write(f"fake adapter: no longer reading input after request {request_id} (fault stop_reading)\n")
            sys.stderr.flush()
            time.sleep(3600)

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
