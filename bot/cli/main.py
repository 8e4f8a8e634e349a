"""The `hippo` command line. Core memory commands live in bot/cli/memory.py; each feature adds its
own commands with `add_commands(sub)` (the `AddCommands` protocol), imported here and listed in
COMMANDS. Command modules import heavy libraries (Celery, Slack, Flask, PyGithub, anthropic) inside
the handlers, so `hippo --help` imports none of them.

Exit codes are bot/cli/output.py's (0 done, 1 not done, 2 usage or configuration, 3 unreachable,
130 interrupted); errors are one line on stderr.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol

from bot.cli import (
    archive,
    brief,
    checks,
    dream,
    github,
    mcp,
    reminders,
    remote,
    scopes,
    server,
    workspaces,
)
from bot.cli import memory as memory_commands
from bot.cli import output as out
from jobs.config import Config, ConfigError
from memory.errors import LockTimeout, MemoryStoreError, RemoteError

if TYPE_CHECKING:
    from jobs.runtime import Runtime


class AddCommands(Protocol):
    """A command module's `add_commands(sub)`: subparsers whose defaults set `func=handler`,
    `handler(args: argparse.Namespace, rt: Runtime) -> int`."""

    def __call__(self, sub: Any) -> None: ...


COMMANDS: tuple[AddCommands, ...] = (
    memory_commands.add_commands,
    brief.add_commands,
    reminders.add_commands,
    mcp.add_commands,
    server.add_commands,
    dream.add_commands,
    checks.add_commands,
    archive.add_commands,
    github.add_commands,
    remote.add_commands,
    workspaces.add_commands,
)


EPILOG = """exit codes: 0 done; 1 not done (nothing matched, refused, problems found, busy);
2 usage or configuration; 3 unreachable (remote, Redis, an API); 130 interrupted;
141 the reader of the output left early (`| head`).
Shell completion: eval "$(hippo completion bash)" (or zsh, tcsh)."""


def version() -> str:
    """The installed distribution's version (`hippo-memory`, see pyproject.toml)."""
    import importlib.metadata  # ~15 ms: only for --version, not for every command

    try:
        return importlib.metadata.version("hippo-memory")
    except importlib.metadata.PackageNotFoundError:  # run from a checkout that was not installed
        return "unknown (not installed)"


class _Version(argparse.Action):
    """argparse's "version" action, asking the installed metadata only when it is used."""

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        print(f"hippo {version()}")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hippo",
        description="Team memory for AI agents.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=_Version, nargs=0, help="show the version and exit")
    parser.add_argument(
        "--remote", metavar="URL", help="memory remote (overrides HIPPO_MEMORY_REMOTE)"
    )
    parser.add_argument(
        "--data-dir", metavar="DIR", help="hippo's cache folder (overrides HIPPO_DATA_DIR)"
    )
    scopes.add_flag(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for add_commands in COMMANDS:
        add_commands(sub)
    completion = sub.add_parser(
        "completion",
        help="print a shell completion script",
        description='Print a completion script: eval "$(hippo completion bash)" in ~/.bashrc, '
        "or save `hippo completion zsh` as _hippo on your $fpath.",
    )
    completion.add_argument("shell", choices=["bash", "zsh", "tcsh"], help="your shell")
    completion.set_defaults(func=None, completion=True)
    # The global options work after the command too (`hippo init --remote URL`).
    for command in sub.choices.values():
        command.add_argument("--remote", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
        command.add_argument("--data-dir", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
        scopes.add_flag(command, hidden=True)
    return parser


def main(argv: Sequence[str] | None = None, config: Config | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "completion", False):
        import shtab

        print(shtab.complete(parser, args.shell))
        return out.OK
    if not getattr(args, "func", None):
        parser.print_help()
        return out.USAGE
    try:
        config = config or Config.from_env()
    except ConfigError as exc:
        out.error(str(exc))
        return out.USAGE
    if args.remote:
        config = replace(config, memory_remote=args.remote)
    if args.data_dir:
        from pathlib import Path

        config = replace(config, data_dir=Path(args.data_dir))
    from jobs.runtime import Runtime  # the store and git: not for --help or a usage error

    rt: Runtime = Runtime(config)
    previous = _exit_on_sigterm()
    try:
        return int(args.func(args, scopes.scoped(args, rt)))
    except ConfigError as exc:  # a setting a command reads late (e.g. the remote's auth)
        out.error(str(exc))
        return out.USAGE
    except (RemoteError, LockTimeout) as exc:
        out.error(str(exc))
        return out.UNREACHABLE
    except MemoryStoreError as exc:
        out.error(str(exc))
        return out.FAILED
    except KeyboardInterrupt:
        return out.INTERRUPTED
    except BrokenPipeError:
        # The reader left early (`hippo search … | head`): stop quietly, as git does; stdout
        # goes to /dev/null so that flushing it at exit raises nothing more.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return out.PIPE_CLOSED
    except Exception as exc:
        if not _is_redis_error(exc):
            raise
        out.error(f"Redis did not answer ({exc}); check REDIS_URL")
        return out.UNREACHABLE
    finally:
        rt.close()  # leave the embedded Redis (the last hippo process to leave stops it)
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _is_redis_error(exc: Exception) -> bool:
    """A Redis error, without importing redis for commands that never use it (a command that
    used Redis has imported it)."""
    redis = sys.modules.get("redis")
    return redis is not None and isinstance(exc, redis.RedisError)


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
