"""bot/cli/commands.py, the table `hippo --help` is answered from, says what the command modules
add: the same commands, in the same order, with the same line of help; and a command line built
from the table alone parses as with every module loaded."""

from __future__ import annotations

import argparse
import importlib

import pytest

from bot.cli.commands import COMMANDS, module_of
from bot.cli.main import ALL, build_parser, parse


def _added(module: str) -> list[tuple[str, str | None]]:
    """The commands `module`'s add_commands adds, with their help."""
    sub = argparse.ArgumentParser().add_subparsers()
    importlib.import_module(module).add_commands(sub)
    return [(a.dest, a.help) for a in sub._choices_actions]


@pytest.mark.parametrize(("module", "commands"), COMMANDS)
def test_the_table_lists_what_each_module_adds(
    module: str, commands: tuple[tuple[str, str], ...]
) -> None:
    assert _added(module) == list(commands)


def test_help_from_the_table_is_the_help_of_every_module() -> None:
    assert build_parser(None).format_help() == build_parser(ALL).format_help()
    assert module_of("log") == "bot.cli.memory" and module_of("completion") is None


@pytest.mark.parametrize(
    "argv",
    [
        ["--remote", "/tmp/r.git", "note", "--memory", "me", "the queue drains", "--tag", "a"],
        ["--data-dir", "/tmp/d", "search", "--all", "ledger"],
        ["reminders", "close", "r-1a2b"],
        ["--mem", "team", "log", "-S", "x"],
        ["doctor", "--json"],
    ],
)
def test_a_command_line_parses_as_with_every_module(argv: list[str]) -> None:
    _, args = parse(argv)
    assert vars(args) == vars(build_parser(ALL).parse_args(argv))
