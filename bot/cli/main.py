"""The `hippo` command line. Core memory commands live in bot/cli/memory.py; each feature adds its
own commands with `add_commands(sub)` (the `AddCommands` protocol), listed in bot/cli/commands.py
with the line `--help` shows for each. A run imports the module of its own command only:
`hippo --help` and a usage error import none, and command modules import heavy libraries
(Celery, Slack, Flask, PyGithub, anthropic) inside the handlers.

Exit codes are bot/cli/output.py's (0 done, 1 not done, 2 usage or configuration, 3 unreachable,
130 interrupted); errors are one line on stderr.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from bot.cli import output as out
from bot.cli import scopes
from bot.cli.commands import COMMANDS, module_of

if TYPE_CHECKING:
    from jobs.config import Config
    from jobs.runtime import Runtime

ALL = "*"  # build_parser's `chosen` for every command in full (completion scripts, tests)


class AddCommands(Protocol):
    """A command module's `add_commands(sub)`: subparsers whose defaults set `func=handler`,
    `handler(args: argparse.Namespace, rt: Runtime) -> int`."""

    def __call__(self, sub: Any) -> None: ...


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


def build_parser(chosen: str | None = ALL) -> argparse.ArgumentParser:
    """The parser, with the module adding command `chosen` in full (ALL: every module; None:
    none). Every other command is its line of help only, taking any arguments: enough for
    `hippo --help`, a usage error, and to learn which command a command line runs."""
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
    wanted = module_of(chosen)
    full = []
    for module, commands in COMMANDS:
        if chosen == ALL or module == wanted:
            add_commands: AddCommands = importlib.import_module(module).add_commands
            before = set(sub.choices)
            add_commands(sub)
            full += [sub.choices[name] for name in sub.choices if name not in before]
        else:
            for name, line in commands:
                sub.add_parser(name, help=line, add_help=False)
    completion = sub.add_parser(
        "completion",
        help="print a shell completion script",
        description='Print a completion script: eval "$(hippo completion bash)" in ~/.bashrc, '
        "or save `hippo completion zsh` as _hippo on your $fpath.",
    )
    completion.add_argument("shell", choices=["bash", "zsh", "tcsh"], help="your shell")
    completion.set_defaults(func=None, completion=True)
    # The global options work after the command too (`hippo init --remote URL`).
    for command in [*full, completion]:
        command.add_argument("--remote", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
        command.add_argument("--data-dir", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
        scopes.add_flag(command, hidden=True)
    return parser


def parse(argv: Sequence[str] | None) -> tuple[argparse.ArgumentParser, argparse.Namespace]:
    """Parse `argv` in two steps: which command it runs, from the table alone (`--help`,
    `--version` and an unknown command end here), then with that command's module loaded."""
    known, _ = build_parser(None).parse_known_args(argv)
    parser = build_parser(ALL if known.command == "completion" else known.command)
    return parser, parser.parse_args(argv)


def main(argv: Sequence[str] | None = None, config: Config | None = None) -> int:
    parser, args = parse(argv)
    if getattr(args, "completion", False):
        import shtab

        print(shtab.complete(parser, args.shell))
        return out.OK
    if not getattr(args, "func", None):
        parser.print_help()
        return out.USAGE
    from jobs.config import ConfigError
    from memory.errors import LockTimeout, MemoryStoreError, RemoteError

    try:
        config = _config(args, config)
    except ConfigError as exc:
        out.error(str(exc))
        return out.USAGE
    from jobs.runtime import Runtime  # the store and git: not for --help or a usage error

    rt: Runtime = Runtime(config)
    previous = _exit_on_sigterm()
    args.actor = _actor(rt, args)
    try:
        code = int(args.func(args, scopes.scoped(args, rt)))
        _record_person(rt)
        return code
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


def _config(args: argparse.Namespace, given: Config | None) -> Config:
    """The settings: `given` (tests) or the environment's; --remote and --data-dir win."""
    from dataclasses import replace
    from pathlib import Path

    from jobs.config import Config

    config = given or Config.from_env()
    if args.remote:
        config = replace(config, memory_remote=args.remote)
    if args.data_dir:
        config = replace(config, data_dir=Path(args.data_dir))
    return config


def _actor(rt: Any, args: argparse.Namespace) -> Any:
    """Who is at the command, resolved once (jobs/actors.py): a person holding the remote's
    keys, HIPPO_USER when set, else the author git would write here (memory/git/identity.py:
    user.name, GIT_AUTHOR_NAME), else "hippo cli"; what the command writes is theirs (with
    git's email for them) unless --by names another."""
    from jobs import actors
    from memory.git.identity import person

    git = person()
    args.email = git.email if git is not None else ""
    name = rt.config.user or (git.name if git is not None else "") or "hippo cli"
    return actors.resolve(rt, actors.CliRequest(name))


def _record_person(rt: Any) -> None:
    """Who used hippo, once per command, when the command talked to Redis (jobs/people.py: the
    nightly dream tends their own memory). `hippo note` and `hippo search` load no Redis, so
    jobs.people is not even imported for them."""
    if "redis" in vars(rt):
        from jobs import people

        people.seen(rt, rt.config.user)


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
