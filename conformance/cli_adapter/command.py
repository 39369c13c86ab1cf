"""The `init` subcommand: write a starting file for one of the kit's configurations.

`memoir-conform init cli [FILE]` writes the commented CLI adapter
configuration (template.toml beside this module) and never overwrites a
file that is already there.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

TEMPLATE = Path(__file__).resolve().with_name("template.toml")
DEFAULT_FILE = "memoir-cli.toml"


def register(subparsers) -> None:
    parser = subparsers.add_parser("init", help="write a commented starting file (init cli: a CLI adapter configuration)",
                                   description="Write a commented starting file; an existing file is never overwritten.")
    kinds = parser.add_subparsers(dest="kind", metavar="KIND", required=True)
    cli = kinds.add_parser("cli", help="a configuration for testing a command-line tool with --cli (docs/cli-adapter.md)",
                           description="Write a commented CLI adapter configuration to map each protocol op "
                                       "to a command of your tool (docs/cli-adapter.md).")
    cli.add_argument("file", nargs="?", type=Path, default=Path(DEFAULT_FILE),
                     help=f"where to write it (default {DEFAULT_FILE})")
    cli.set_defaults(handler=init_cli)


def init_cli(args: argparse.Namespace) -> int:
    try:
        with open(args.file, "x", encoding="utf-8") as out:  # "x": never overwrite
            out.write(TEMPLATE.read_text(encoding="utf-8").replace("THIS_FILE", str(args.file)))
    except FileExistsError:
        print(f"memoir-conform init: {args.file} already exists; not overwritten "
              "(move it away or name another file)", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"memoir-conform init: cannot write {args.file}: {error.strerror or error}", file=sys.stderr)
        return 2
    print(f"wrote {args.file}: edit its commands for your tool, then run\n"
          f"  memoir-conform doctor --cli {args.file}\n"
          f"  memoir-conform run --cli {args.file}")
    return 0
