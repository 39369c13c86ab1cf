"""toymemo: a small command-line memoir tool, the implementation the CLI adapter tests drive.

It is a program of its own, with its own command line (subcommands,
options, exit codes, a JSON export), the way a real memoir CLI looks; the
memoir logic itself comes from the kit's reference model. Exit codes: 0
done, 2 a usage error (argparse), 3 the input was refused, 4 a feature
this build lacks, 1 anything else.

    toymemo --version
    toymemo read STORE [--json]
    toymemo add-goal | complete-goal | add-action | complete-action --store S TEXT
    toymemo ask --store S --text-file FILE
    toymemo decide --store S [--why W] [--rejected R] TEXT
    toymemo hide --store S [--purge] TEXT
    toymemo log --store S [--id ID] < SUMMARY
    toymemo new-entry --store S LINK --fields-file FILE < BODY
    toymemo set-fields --store S LINK --set JSON --unset JSON
    toymemo merge LOCAL REMOTE [--output FILE]
    toymemo merge-stores LOCAL REMOTE --into DIR

`--store` may be left out when TOYMEMO_STORE names the store.
TOYMEMO_SLEEP=S makes every command wait S seconds first (a hung tool).
TOYMEMO_NO_PURGE=1 builds it without purging (`hide --purge` exits 4).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

# The model is imported by the commands that use it, not here: each command
# then loads only its part of the model (`--version` none), as a tool that
# starts fast does. benchmarks/README.md measures both ways (the CLI-template
# section): how much of a request's time is the tool's start.

VERSION = "toymemo 0.3.1"
REFUSED, LACKING = 3, 4

SESSION_COMMANDS = {
    "add-goal": "add_goal",
    "complete-goal": "complete_goal",
    "add-action": "add_next_action",
    "complete-action": "complete_next_action",
}


class Lacking(Exception):
    """A feature this build does not have."""


def machine_id() -> str:
    """This machine's id, kept under $HOME like a real tool keeps its settings."""
    import uuid

    path = Path(os.environ["HOME"]) / ".toymemo" / "machine-id"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(str(uuid.uuid4()), encoding="utf-8")
    return path.read_text(encoding="utf-8").strip()


def stamp():
    from datetime import datetime, timezone

    from conformance.model.dates import format_timestamp
    from conformance.model.writer import Stamp

    return Stamp(format_timestamp(datetime.now(timezone.utc)), machine_id(), "toymemo")


def store_path(args) -> Path:
    value = args.store or os.environ.get("TOYMEMO_STORE")
    if not value:
        from conformance.model.writer import WriterError

        raise WriterError("no store: give --store or set TOYMEMO_STORE")
    return Path(value)


def session_op(op: str, args, **fields) -> None:
    from conformance.model import store as memoir_store
    from conformance.model.session import DEFAULT_CAPS

    for line in memoir_store.apply_session_op(store_path(args), op, stamp(), DEFAULT_CAPS, **fields):
        print(f"toymemo: {line}", file=sys.stderr)


def cmd_read(args) -> None:
    from conformance.model import store as memoir_store

    document = memoir_store.read_store(Path(args.store_dir))
    if args.json:
        print(json.dumps({"format": "toymemo-export/1", "data": document}, ensure_ascii=False))
        return
    for entry in document["entries"]:
        print(f"{entry['link']}: {entry['status']} {entry.get('type') or ''}")
    for name, texts in document["session"]["live"].items():
        for text in texts:
            print(f"{name}: {text}")


def cmd_session_text(args) -> None:
    session_op(SESSION_COMMANDS[args.command], args, text=args.text)


def cmd_ask(args) -> None:
    session_op("add_question", args, text=Path(args.text_file).read_text(encoding="utf-8"))


def cmd_decide(args) -> None:
    session_op("add_decision", args, text=args.text, why=args.why, rejected=args.rejected)


def cmd_hide(args) -> None:
    if args.purge and os.environ.get("TOYMEMO_NO_PURGE"):
        raise Lacking("this build of toymemo cannot purge decisions")
    session_op("hide_decision", args, text=args.text, purge=args.purge)


def cmd_log(args) -> None:
    session_op("record_session", args, summary=sys.stdin.read(), session_id=args.id)


def cmd_new_entry(args) -> None:
    from conformance.model import store as memoir_store

    fields = json.loads(Path(args.fields_file).read_text(encoding="utf-8"))
    memoir_store.write_entry(store_path(args), args.link, fields, sys.stdin.read(), stamp())


def cmd_set_fields(args) -> None:
    from conformance.model import store as memoir_store

    memoir_store.update_entry(store_path(args), args.link, json.loads(args.set), json.loads(args.unset), stamp())


def cmd_merge(args) -> None:
    from conformance.model.merge import merge_session_texts
    from conformance.model.session import DEFAULT_CAPS

    texts = [Path(path).read_text(encoding="utf-8") for path in (args.local, args.remote)]
    merged = json.dumps(merge_session_texts(*texts, caps=DEFAULT_CAPS), indent=2, ensure_ascii=False)
    if args.output:
        Path(args.output).write_text(merged + "\n", encoding="utf-8")
    else:
        print(merged)


def cmd_merge_stores(args) -> None:
    from conformance.model import store as memoir_store
    from conformance.model.session import DEFAULT_CAPS

    memoir_store.merge_stores(args.local, args.remote, args.into, DEFAULT_CAPS)


def parser() -> argparse.ArgumentParser:
    main = argparse.ArgumentParser(prog="toymemo", description="a small memoir store tool")
    main.add_argument("--version", action="version", version=VERSION)
    commands = main.add_subparsers(dest="command", required=True)

    def command(name: str, handler, *, store: bool = True) -> argparse.ArgumentParser:
        sub = commands.add_parser(name)
        if store:
            sub.add_argument("--store", help="the store directory (default: $TOYMEMO_STORE)")
        sub.set_defaults(handler=handler)
        return sub

    read = command("read", cmd_read, store=False)
    read.add_argument("store_dir")
    read.add_argument("--json", action="store_true")
    for name in SESSION_COMMANDS:
        command(name, cmd_session_text).add_argument("text")
    command("ask", cmd_ask).add_argument("--text-file", required=True)
    decide = command("decide", cmd_decide)
    decide.add_argument("--why")
    decide.add_argument("--rejected")
    decide.add_argument("text")
    hide = command("hide", cmd_hide)
    hide.add_argument("--purge", action="store_true")
    hide.add_argument("text")
    command("log", cmd_log).add_argument("--id")
    entry = command("new-entry", cmd_new_entry)
    entry.add_argument("link")
    entry.add_argument("--fields-file", required=True)
    fields = command("set-fields", cmd_set_fields)
    fields.add_argument("link")
    fields.add_argument("--set", required=True)
    fields.add_argument("--unset", required=True)
    merge = command("merge", cmd_merge, store=False)
    merge.add_argument("local")
    merge.add_argument("remote")
    merge.add_argument("--output", "-o")
    stores = command("merge-stores", cmd_merge_stores, store=False)
    stores.add_argument("local")
    stores.add_argument("remote")
    stores.add_argument("--into", required=True)
    return main


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    time.sleep(float(os.environ.get("TOYMEMO_SLEEP", "0")))
    try:
        args.handler(args)
    except Lacking as error:
        print(f"toymemo: {error}", file=sys.stderr)
        return LACKING
    except Exception as error:
        from conformance.model.writer import WriterError

        if not isinstance(error, WriterError):
            raise
        print(f"toymemo: refused: {error}", file=sys.stderr)
        return REFUSED
    return 0


if __name__ == "__main__":
    sys.exit(main())
