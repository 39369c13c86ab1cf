"""The implementations a vector can run against.

`Implementation` is the small protocol the executor needs: `describe`,
`call(op, args)` returning an `OkResponse`, an `ErrorResponse` or an
`AdapterFault` (conformance.protocol.messages), `fork` for another
independent instance, and `call_in_parallel` for the concurrency vectors,
which need several OS processes writing one store at once.

- `AdapterImplementation`: an adapter subprocess, through `AdapterClient`.
- `ModelImplementation`: the reference model in-process
  (`conformance.reference.handle`), for the kit's self-test.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import traceback
import uuid
from dataclasses import replace
from pathlib import Path
from typing import Protocol, Sequence

import conformance
from conformance import reference
from conformance.protocol.client import DEFAULT_TIMEOUT, AdapterClient, LateFault
from conformance.protocol.messages import AdapterFault, Describe, ErrorResponse, OkResponse, Outcome
from conformance.protocol.process import STDERR_TAIL_BYTES, AdapterLimits

Call = tuple[str, dict]


class Implementation(Protocol):
    label: str   # shown in reports: the command, or "reference model (in-process)"
    mode: str    # "persistent", "oneshot" or "in-process"
    owner: str | None          # charged with faults found later (the runner sets the vector id)
    scratch_dir: Path | None   # the adapter's own scratch directory, if it has one

    def describe(self) -> Describe | AdapterFault: ...

    def call(self, op: str, args: dict) -> Outcome: ...

    def stderr_tail(self) -> str: ...

    def start_stderr_capture(self) -> None: ...

    def take_stderr_capture(self) -> str: ...

    def fork(self, writable: Path | None = None) -> Implementation: ...

    def call_in_parallel(self, jobs: Sequence[Sequence[Call]]) -> list[list[Outcome]] | AdapterFault: ...

    def late_faults(self) -> list[LateFault]: ...

    def close(self) -> None: ...


class AdapterImplementation:
    """An implementation under test behind its adapter command."""

    def __init__(self, command: str | Sequence[str], *, workdir: Path, oneshot: bool = False,
                 timeout: float = DEFAULT_TIMEOUT, limits: AdapterLimits = AdapterLimits()):
        self.command = command
        self.workdir = Path(workdir)
        self.oneshot = oneshot
        self.timeout = timeout
        self.limits = limits
        self.client = AdapterClient(command, oneshot=oneshot, timeout=timeout, workdir=self.workdir, limits=limits)
        self.label = self.client.command
        self.mode = "oneshot" if oneshot else "persistent"
        self.scratch_dir = self.client.scratch_dir
        self._described: Describe | None = None
        self._forks_stderr: list[str] = []   # of the processes call_in_parallel started while capturing

    @property
    def protocol(self) -> int | None:
        return self.client.protocol

    @property
    def owner(self) -> str | None:
        return self.client.owner

    @owner.setter
    def owner(self, owner: str | None) -> None:
        self.client.owner = owner

    def late_faults(self) -> list[LateFault]:
        return list(self.client.late_faults)

    def describe(self) -> Describe | AdapterFault:
        if self._described is None:
            answer = self.client.describe()
            if isinstance(answer, AdapterFault):
                return answer
            self._described = answer
        return self._described

    def call(self, op: str, args: dict) -> Outcome:
        return self.client.request(op, args)

    def stderr_tail(self) -> str:
        return self.client.stderr_tail()

    def start_stderr_capture(self) -> None:
        self._forks_stderr = []
        self.client.start_stderr_capture()

    def take_stderr_capture(self) -> str:
        return "".join([*self._forks_stderr, self.client.take_stderr_capture()])[-STDERR_TAIL_BYTES:]

    @property
    def restarts(self) -> int:
        """Restarts of the adapter after faults (the report's notes count them)."""
        return self.client.stats.restarts

    def fork(self, writable: Path | None = None) -> AdapterImplementation:
        """Another instance of the adapter; `writable`: the vectors' area it may write in instead of this one's."""
        limits = self.limits if writable is None else replace(self.limits, writable=(Path(writable),))
        return AdapterImplementation(self.command, workdir=self.workdir, oneshot=self.oneshot, timeout=self.timeout,
                                     limits=limits)

    def call_in_parallel(self, jobs: Sequence[Sequence[Call]]) -> list[list[Outcome]] | AdapterFault:
        """One adapter process per job, all started before any writes."""
        forks = [self.fork() for _ in jobs]
        for fork in forks:
            fork.start_stderr_capture()
            fork.owner = self.owner
        try:
            for fork in forks:
                started = fork.describe()
                if isinstance(started, AdapterFault):
                    return started
            results: list[list[Outcome]] = [[] for _ in jobs]
            barrier = threading.Barrier(len(jobs))

            def work(index: int) -> None:
                barrier.wait()
                for op, args in jobs[index]:
                    results[index].append(forks[index].call(op, args))

            threads = [threading.Thread(target=work, args=(index,), daemon=True) for index in range(len(jobs))]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            return results
        finally:
            for fork in forks:
                fork.close()
                self._forks_stderr.append(fork.take_stderr_capture())
                self.client.late_faults.extend(fork.late_faults())

    def close(self) -> None:
        self.client.close()


def _outcome_from_json(document: dict) -> Outcome:
    if document.get("ok"):
        return OkResponse(0, document.get("result", {}))
    if "fault" in document:
        return AdapterFault("crashed", document["fault"], document.get("stderr_tail", ""))
    return ErrorResponse(0, document["error"]["kind"], document["error"]["message"])


def _outcome_to_json(outcome: Outcome) -> dict:
    if isinstance(outcome, AdapterFault):
        return {"ok": False, "fault": outcome.detail, "stderr_tail": outcome.stderr_tail}
    return outcome.to_json()


class ModelImplementation:
    """The reference model, called in this process (with other caps than the
    reference ones when given: caps are the implementation's, spec 4.1)."""

    label = "reference model (in-process)"
    mode = "in-process"
    protocol = 1
    owner: str | None = None
    scratch_dir = None

    def __init__(self, machine_id: str | None = None, caps: dict | None = None):
        self.context = reference.Context(machine_id=machine_id or str(uuid.uuid4()), machine_label="memoir-conform")
        self.context.caps.update(caps or {})
        self._last_traceback = ""
        self._captured: list[str] | None = None

    def describe(self) -> Describe:
        return Describe.from_json(reference.describe(caps=self.context.caps))

    def call(self, op: str, args: dict) -> Outcome:
        try:
            return OkResponse(0, reference.handle(op, dict(args), self.context))
        except reference.OpError as error:
            return ErrorResponse(0, error.kind, error.message)
        except Exception as error:  # noqa: BLE001 - a model bug is reported on its vector, like an adapter crash
            self._last_traceback = traceback.format_exc()
            if self._captured is not None:
                self._captured.append(self._last_traceback)
            return AdapterFault("crashed", f"{type(error).__name__}: {error}", self._last_traceback[-4000:])

    def stderr_tail(self) -> str:
        return self._last_traceback[-4000:]

    def start_stderr_capture(self) -> None:
        self._captured = []

    def take_stderr_capture(self) -> str:
        """The tracebacks of the model's crashes since `start_stderr_capture` (the model writes no stderr)."""
        captured, self._captured = self._captured or [], None
        return "".join(captured)[-4000:]

    def fork(self, writable: Path | None = None) -> ModelImplementation:
        return type(self)(caps=self.context.caps)

    def call_in_parallel(self, jobs: Sequence[Sequence[Call]]) -> list[list[Outcome]] | AdapterFault:
        """One OS process per job (threads would share one lock-holding process)."""
        env = dict(os.environ)
        package_root = str(Path(conformance.__file__).resolve().parents[1])
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [package_root, env.get("PYTHONPATH")]))
        command = [sys.executable, "-c", "from conformance.runner.implementations import model_worker; model_worker()"]
        processes = []
        try:
            for job in jobs:
                process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                           stderr=subprocess.PIPE, text=True, env=env)
                processes.append(process)
                process.stdin.write(json.dumps({"calls": [list(call) for call in job], "caps": self.context.caps}) + "\n")
                process.stdin.flush()
            for process in processes:
                if process.stdout.readline().strip() != "ready":
                    return AdapterFault("start_failed", "a model worker process did not start", process.stderr.read()[-4000:])
            for process in processes:  # all are waiting: release them together
                process.stdin.write("go\n")
                process.stdin.flush()
            results = []
            for process in processes:
                out, err = process.communicate(timeout=120)
                if process.returncode != 0:
                    return AdapterFault("crashed", f"a model worker exited with code {process.returncode}", err[-4000:])
                results.append([_outcome_from_json(item) for item in json.loads(out)])
            return results
        finally:
            for process in processes:
                if process.poll() is None:
                    process.kill()
                    process.wait()

    def late_faults(self) -> list[LateFault]:
        return []

    def close(self) -> None:
        pass


def model_worker() -> None:
    """Entry point of one `ModelImplementation.call_in_parallel` process."""
    job = json.loads(sys.stdin.readline())
    model = ModelImplementation(caps=job.get("caps"))
    print("ready", flush=True)
    sys.stdin.readline()
    outcomes = [_outcome_to_json(model.call(op, args)) for op, args in job["calls"]]
    print(json.dumps(outcomes), flush=True)
