"""Every `hippo` command as plain data: the module that adds it (its `add_commands(sub)`) and the
line `hippo --help` shows for it, in the order shown. `hippo --help` and a usage error are
answered from this table alone; a command imports only its own module (bot/cli/main.py), where
importing all eleven cost every start ~30 ms of CPU. tests/bot/test_cli_commands.py checks that
the table says what the modules add.
"""

from __future__ import annotations

# (module, ((command, help), ...)); a module's commands are listed together, as it adds them.
COMMANDS: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    (
        "bot.cli.memory",
        (
            ("init", "create the memory repository (and a local bare remote)"),
            ("note", "save a note (to the topic it names, else inbox.md)"),
            ("forget", "remove matching entries and tombstone them"),
            ("search", 'search the memory (words and "quoted phrases")'),
            ("migrate", "bring the memory to the format version this hippo writes"),
            ("show", "print a file of the memory"),
            ("log", "history of the memory, or of one file"),
            ("lint", "check grammar, links, index size, secrets, metadata"),
        ),
    ),
    (
        "bot.cli.brief",
        (("brief", "what to know before a task: conventions, pitfalls, preferences, memory"),),
    ),
    (
        "bot.cli.reminders",
        (
            ("remind", "save a reminder: due on a day, until a day, or after something happens"),
            ("reminders", "list open reminders, or close one: `hippo reminders close ID`"),
        ),
    ),
    ("bot.cli.mcp", (("mcp", "serve the memory to an agent over MCP (stdio)"),)),
    (
        "bot.cli.server",
        (
            ("serve", "the web app under gunicorn (Slack, GitHub, console, MCP)"),
            ("worker", "a Celery worker"),
            ("beat", "Celery beat (run exactly one)"),
            ("dev", "web + worker + beat in one terminal, for a laptop"),
            ("socket", "Slack over Socket Mode (needs SLACK_APP_TOKEN)"),
        ),
    ),
    ("bot.cli.dream", (("dream", "run the nightly dream now (verify, tidy, index, digest)"),)),
    ("bot.cli.checks", (("checks", "the checks the team declares in .hippo/checks.yml"),)),
    ("bot.cli.archive", (("archive", "the archive's cold storage: roll old months up, or count"),)),
    ("bot.cli.github", (("github", "learn conventions from the agent's ended pull requests"),)),
    (
        "bot.cli.remote",
        (
            ("doctor", "check the memory remote: settings, reach, fetch, push permission"),
            ("maintenance", "repack and prune the cache (and a local remote)"),
        ),
    ),
    (
        "bot.cli.workspaces",
        (
            (
                "workspaces",
                "list the Slack workspaces hippo is installed in; set one's remote or digest "
                "channel",
            ),
        ),
    ),
)


def module_of(command: str | None) -> str | None:
    """The module that adds `command` (None: not one of the table's, e.g. `completion`)."""
    return next((m for m, cmds in COMMANDS for name, _ in cmds if name == command), None)
