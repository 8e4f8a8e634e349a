"""What the Slack tasks say: text and Block Kit, pure (no Runtime, no I/O), like
memory/dream/digest.py.

Links to files point at the console (`public_url`, HIPPO_PUBLIC_URL). Every text that came from
the memory or from a person goes through `memory.markup.slack`: shown as typed, never a live
mention or a disguised link.
"""

from __future__ import annotations

from collections.abc import Sequence

from integrations.slack_post import Blocks
from jobs.config import console_file_url, memory_url
from memory import notes
from memory.facts import tombstones
from memory.markup import slack, slack_link
from memory.scopes import ME, ORG, TEAM, UnclearScope, label
from memory.search import Hit
from memory.trust import rules as trust

HELP_TEMPLATE = """*hippo* keeps the team's memory. Mention me or use `/hippo`:
• `@hippo save a note: <text>` (or `remember <text>`), the *Save to memory* shortcut, or a \
:{reaction}: reaction on any message: saved with a link to the message.
• `@hippo in this channel, <instruction>` or `/hippo instructions add <instruction>`: how to \
behave here. `/hippo instructions` lists them, `/hippo instructions remove N` removes one.
• `@hippo in acme/shop, <instruction>` or `/hippo instructions add --repo acme/shop \
<instruction>`: how to work in that repository (briefings and my answers about it follow \
it; `--repo` works with list and remove too).
• `@hippo forget that <fact>`: removes it and remembers that it was removed on purpose.
• `@hippo remind the team to <what> <when>` ("on Friday", "after 15 December", "after the \
migration"): shown in briefings while due and in the digest on the day. `/hippo reminders` \
lists them, `/hippo reminders done <id> [reason]` closes one.
• `@hippo what do you know about <topic>?` (or `/hippo recall <topic>`): the best matches.
• `@hippo <any other question>` in a thread: an answer from memory (written by \
Claude when hippo has an API key), citing its files and sources.
• `/hippo dream` (workspace admins): run tonight's dream now; the digest follows.
• `/hippo …` answers only you; `/hippo share …` (or `… --share`) answers for the channel.
• Write to me in a DM, no mention needed; my Home tab shows the memory at a glance.
• `/hippo help`: this message."""

FORGET_WHAT = "Forget what? Say `@hippo forget that <fact>`."
QUESTION_EXPIRED = "That question expired; ask me to forget again."


def help_text(save_reaction: str) -> str:
    """The help message, naming the save emoji (HIPPO_SAVE_REACTION)."""
    return HELP_TEMPLATE.format(reaction=save_reaction)


def short(text: str, n: int = 80) -> str:
    """`text` cut to `n` characters with an ellipsis, escaped for Slack (cut first, so no
    entity is cut in half)."""
    return slack(text if len(text) <= n else text[: n - 1].rstrip() + "…")


def file_link(public_url: str, path: str) -> str:
    """`path` as a Slack link to the console's view of it."""
    return slack_link(console_file_url(public_url, path), path)


def saved(public_url: str, path: str, text: str, scope: str = TEAM) -> str:
    """Where a note went: the team memory's file as a console link (the console shows the
    team's); a file in another memory by its memory and path."""
    if scope != TEAM:
        return f"Saved to {MEMORIES[scope]}, `{slack(path)}`: “{slack(text[:200])}”"
    return f"Saved to {file_link(public_url, path)}: “{short(text)}”"


# Several memories (jobs/memories.py): how a reply names each, and how a person names it.
MEMORIES = {ME: "your own memory", TEAM: "the team memory", ORG: "the org memory"}
SAY_MEMORY = {ME: "to my memory", TEAM: "to the team memory", ORG: "to the org memory"}


def which_memory(exc: UnclearScope) -> str:
    """The question when the router cannot tell whose note it is: nothing is saved yet."""
    options = " or ".join(f"`@hippo save a note {SAY_MEMORY[c]}: …`" for c in exc.choices)
    return (
        f"Not saved yet: which memory should “{slack(exc.text[:200])}” go to, "
        f"{' or '.join(MEMORIES[c] for c in exc.choices)}? Say it again as {options}."
    )


def forgot(what: str) -> str:
    return f"Forgot {what}. It is tombstoned in `forgotten.md`, so it will not come back unnoticed."


def forgot_matches(public_url: str, done: notes.Forgot) -> str:
    """What a forget removed, for `forgot`: each entry's text and file."""
    return "; ".join(
        f"“{short(m.text)}” from {file_link(public_url, m.path)}" for m in done.matches
    )


def nothing_matches(query: str) -> str:
    return f"Nothing in memory matches “{short(query)}”."


def which_one(query: str, count: int) -> str:
    return f"{count} entries match “{short(query)}”. Which one should I forget?"


def question_blocks(text: str, key: str, matches: tuple[notes.Match, ...]) -> Blocks:
    """One button per match (value "<question key>|<n>") and a cancel button."""
    lines = "\n".join(
        f"{i + 1}. {short(m.text, 140)} (`{slack(m.path)}`)" for i, m in enumerate(matches)
    )
    buttons: Blocks = [
        {
            "type": "button",
            "action_id": f"forget_pick_{i}",
            "value": f"{key}|{i}",
            "text": {"type": "plain_text", "text": f"Forget {i + 1}"},
        }
        for i in range(min(len(matches), 20))
    ]
    buttons.append(
        {
            "type": "button",
            "action_id": "forget_cancel",
            "value": f"{key}|-1",
            "text": {"type": "plain_text", "text": "Keep all"},
        }
    )
    return [
        {"type": "section", "text": {"type": "mrkdwn", "text": f"{text}\n{lines}"}},
        {"type": "actions", "block_id": "forget_question", "elements": buttons[:25]},
    ]


def recall_answer(
    public_url: str, query: str, found: Sequence[tuple[str, Hit]], *, labelled: bool = False
) -> str:
    """The best hits for a recall, (memory, hit) pairs from every memory read, with their files
    (in that memory's console) and sources, each labelled with its memory when `labelled`
    (more than one read: `[team]`, `[org]`, `[me]`). Lines removed on purpose (forgotten.md,
    `status: revoked`) are never "what I know": they follow, labelled, as the briefing leaves
    them out; an agent's proposed deletion (proposals.md) is not shown at all; an agent's entry
    not yet confirmed says so."""
    found = [(s, h) for s, h in found if h.path != trust.PROPOSALS]
    known = [(s, h) for s, h in found if _gone(h) is None]
    gone = [(s, h) for s, h in found if _gone(h) is not None]
    if not known and not gone:
        return f"I know nothing about “{short(query)}” yet."
    lines = [
        f"What I know about “{short(query)}”:"
        if known
        else f"I know nothing current about “{short(query)}”."
    ]
    for scope, hit in known:
        source = hit.meta.get("source")
        tail = f" ({slack_link(source, 'source')})" if source else ""
        status = (hit.meta.get("status") or "").strip().lower()
        mark = " _(tentative: not confirmed yet)_" if status == "tentative" else ""
        where = _where(public_url, scope, hit.path)
        text = f"{label(scope)} " * labelled + short(hit.text, 200)
        lines.append(f"• {text}{mark} — {where}{tail}")
    if gone:
        lines.append("Removed on purpose (not what I know):")
        lines += [
            f"• [{_gone(h)}] " + f"{label(s)} " * labelled + short(h.text, 200) + " — "
            + _where(public_url, s, h.path)
            for s, h in gone
        ]  # fmt: skip
    return "\n".join(lines)


def _where(public_url: str, scope: str, path: str) -> str:
    """`path` as a link to its memory's page in the console (`/m/<memory>/…` for another's)."""
    return file_link(public_url if scope == TEAM else memory_url(public_url, scope), path)


def own_elsewhere(count: int) -> str:
    """Where the answer is not the asker's alone: how many lines their own memory holds on it,
    and where to ask to see them (a DM, `/hippo recall`)."""
    if not count:
        return ""
    return (
        f"\n_{count} more in your own memory: ask me in a DM or with `/hippo recall` to see them._"
    )


def _gone(hit: Hit) -> str | None:
    """'forgotten' for a tombstone, 'revoked' for a revoked entry, None for a live line."""
    if hit.path == tombstones.PATH:
        return "forgotten"
    if (hit.meta.get("status") or "").strip().lower() == "revoked":
        return "revoked"
    return None
