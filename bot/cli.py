"""The `hippo` command line. Core memory commands live in bot/cli_memory.py; each feature adds its
own commands through a module listed in COMMAND_MODULES (`add_commands(sub)`)."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from dataclasses import replace

from jobs.config import Config, ConfigError
from jobs.runtime import Runtime
from memory.errors import MemoryStoreError

# Each module: `add_commands(sub)` adding subparsers whose defaults set
# `func=handler`, `handler(args: argparse.Namespace, rt: Runtime) -> int`.
COMMAND_MODULES: tuple[str, ...] = (
    "bot.cli_memory",
    "bot.cli_mcp",
    "bot.cli_server",
    "bot.cli_dream",
    "bot.cli_github",
    "bot.cli_remote",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hippo", description="Team memory for AI agents.")
    parser.add_argument("--remote", help="memory remote (overrides HIPPO_MEMORY_REMOTE)")
    parser.add_argument("--data-dir", help="hippo's cache folder (overrides HIPPO_DATA_DIR)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).add_commands(sub)
    # The global options work after the command too (`hippo init --remote URL`).
    for command in sub.choices.values():
        command.add_argument("--remote", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
        command.add_argument("--data-dir", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    return parser


def main(argv: Sequence[str] | None = None, config: Config | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        config = config or Config.from_env()
    except ConfigError as exc:
        print(f"hippo: {exc}", file=sys.stderr)
        return 2
    if args.remote:
        config = replace(config, memory_remote=args.remote)
    if args.data_dir:
        from pathlib import Path

        config = replace(config, data_dir=Path(args.data_dir))
    try:
        return int(args.func(args, Runtime(config)))
    except ConfigError as exc:
        print(f"hippo: {exc}", file=sys.stderr)
        return 2
    except MemoryStoreError as exc:
        print(f"hippo: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
