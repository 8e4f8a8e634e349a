"""Which intent a Slack request's text asks for: each intent module's `parse`, in order.

The first parser that matches wins, and help (last) catches the rest. A new intent is a module
with `parse(text: str) -> Intent | None` (the `Parse` protocol, bot/slack/intent.py), imported
here and added to INTENTS before help. Claiming and enqueueing are bot/slack/dedupe.py.
"""

from __future__ import annotations

from bot.slack import agent, dream, forget, help, instructions, notes, recall, reminders
from bot.slack.intent import Intent, Parse

# Each parser matches its own first words ("save a note", "in this channel", "forget",
# "recall"…), so only the last two depend on the order; notes, the most common, go first so
# saving one asks no other parser.
INTENTS: tuple[Parse, ...] = (
    notes.parse,
    reminders.parse,  # "remind the team to …", "reminders", "reminders done ID"
    instructions.parse,
    forget.parse,
    recall.parse,
    dream.parse,  # "dream": run a dream now (admins)
    agent.parse,  # questions and requests for the agent ("why…?", "explain…")
    help.parse,  # matches anything: unknown requests get help
)


def route(text: str) -> Intent:
    """The intent of `text` (already plain): the first feature whose parser matches."""
    for parse in INTENTS:
        intent = parse(text)
        if intent is not None:
            return intent
    raise LookupError("no intent matched; help.parse must be last in INTENTS")
