"""The reference model behind a hand-written JSON Lines loop, with one quirk on request.

`QUIRK` in the environment picks it (unset: none), `QUIRK_OP` the op it hits:

- `stdout_log`: a log line on stdout before the answer to QUIRK_OP (a `console.log`);
- `crash`: exits 3 with a message on stderr instead of answering QUIRK_OP;
- `bad_result`: answers QUIRK_OP with a result that breaks the protocol schema;
- `one_answer`: answers one request, then exits 0 (a one-shot adapter run persistently);
- `unsupported`: declares QUIRK_OP but answers it `unsupported`;
- `ignores_store`: answers writer ops ok and writes nothing;
- `stderr_log`: logs every request (op and args) to stderr.

Argument 1 is the directory holding the `conformance` package.
"""

import json
import os
import sys

sys.path.insert(0, sys.argv[1])
from conformance import reference  # noqa: E402
from conformance.protocol.messages import WRITER_OPS  # noqa: E402

QUIRK = os.environ.get("QUIRK", "")
QUIRK_OP = os.environ.get("QUIRK_OP", "")


def answer(request: dict, context: reference.Context) -> dict:
    op, args = request["op"], request.get("args", {})
    if QUIRK == "stderr_log":
        print(f"quirky: {op} {json.dumps(args, sort_keys=True)[:300]}", file=sys.stderr, flush=True)
    if op == "describe":
        return {"ok": True, "result": reference.describe(name="quirky")}
    if op == QUIRK_OP and QUIRK == "crash":
        print(f"quirky: crashing on {op}", file=sys.stderr, flush=True)
        sys.exit(3)
    if op == QUIRK_OP and QUIRK == "bad_result":
        return {"ok": True, "result": {"entries": "not a list", "session": {"status": "absent", "live": {}}}}
    if op == QUIRK_OP and QUIRK == "unsupported":
        return {"ok": False, "error": {"kind": "unsupported", "message": "not done yet"}}
    if QUIRK == "ignores_store" and op in WRITER_OPS:
        return {"ok": True, "result": {}}
    if op == QUIRK_OP and QUIRK == "stdout_log":
        sys.stdout.write(f"[quirky] reading {args.get('store')}\n")
    try:
        return {"ok": True, "result": reference.handle(op, args, context)}
    except reference.OpError as error:
        return {"ok": False, "error": {"kind": error.kind, "message": error.message}}


def main() -> int:
    context = reference.Context.from_home()
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        response = {"id": request["id"], **answer(request, context)}
        sys.stdout.write(json.dumps(response) + "\n")
        sys.stdout.flush()
        if QUIRK == "one_answer":
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
