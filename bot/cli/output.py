"""What every command shares: exit codes, `--json` output, progress on a terminal.

Exit codes (docs/CLI.md's table lists the same):

| code | meaning |
| 0 | done |
| 1 | the command ran but could not do what was asked: nothing matched, the write was refused
      (a secret, a forgotten fact, a conflict), lint found problems, a dream is already running |
| 2 | usage or configuration: a bad option or argument, a setting that cannot work |
| 3 | unreachable: the memory remote, Redis or an outside API did not answer or failed |
| 130 | interrupted (Ctrl-C) |
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable, Iterator
from typing import Any

OK = 0
FAILED = 1
USAGE = 2
UNREACHABLE = 3
INTERRUPTED = 130
PIPE_CLOSED = 141  # 128 + SIGPIPE, as git and the shell report a reader that left

Advance = Callable[[str], None]  # progress: one unit done, with a word about it


def add_json(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--json",
        action="store_true",
        help="print the result as JSON on stdout (errors stay one line on stderr)",
    )


def print_json(data: Any) -> None:
    import json  # not for `--help`

    print(json.dumps(data, indent=2, ensure_ascii=False, default=str))


def error(message: str) -> None:
    """One line on stderr: what went wrong and what to do."""
    print(f"hippo: {message}", file=sys.stderr)


@contextlib.contextmanager
def progress(label: str, total: int | None = None) -> Iterator[Advance]:
    """A progress bar on stderr when it is a terminal (rich); silent otherwise (pipes, CI,
    logs). Yields `advance(what)`: one unit of `total` done (a spinner when total is None)."""
    if not sys.stderr.isatty():
        yield lambda _what: None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    columns = [SpinnerColumn(), TextColumn("{task.description}")]
    if total is not None:
        columns += [BarColumn(), MofNCompleteColumn()]
    columns.append(TimeElapsedColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(label, total=total)

        def advance(what: str) -> None:
            bar.update(task, advance=1, description=f"{label}: {what}" if what else label)

        yield advance
