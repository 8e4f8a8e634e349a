"""The `hippo` command line. Core memory commands live in bot/cli_memory.py; each feature adds its
own commands through a module listed in COMMAND_MODULES (`add_commands(sub)`)."""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import signal
import sys
import threading
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

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


def version() -> str:
    """The installed distribution's version (`hippo-memory`, see pyproject.toml)."""
    try:
        return importlib.metadata.version("hippo-memory")
    except importlib.metadata.PackageNotFoundError:  # run from a checkout that was not installed
        return "unknown (not installed)"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hippo", description="Team memory for AI agents.")
    parser.add_argument("--version", action="version", version=f"hippo {version()}")
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
    rt = Runtime(config)
    previous = _exit_on_sigterm()
    try:
        return int(args.func(args, rt))
    except ConfigError as exc:
        print(f"hippo: {exc}", file=sys.stderr)
        return 2
    except MemoryStoreError as exc:
        print(f"hippo: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    finally:
        rt.close()  # leave the embedded Redis (the last hippo process to leave stops it)
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _stop(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def _exit_on_sigterm() -> Any:
    """SIGTERM (a process manager, `kill`) unwinds like Ctrl-C: `finally` blocks run, children
    are stopped and the embedded Redis is left. Returns the handler it replaced (main thread only).
    """
    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, _stop)


if __name__ == "__main__":
    raise SystemExit(main())
