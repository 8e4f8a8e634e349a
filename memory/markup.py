"""Memory text as inert data on the surfaces hippo posts to: one escaping function per surface.

Anything in the memory can have come from someone hippo should not let speak in its voice: a note
typed as `&lt;!channel&gt;` (Slack hands hippo `<!channel>` once its entities are undone), a
pull request's comment, a lesson quoting either. Every message builder passes memory text (and
anything else people typed) through the function of the surface it builds for, so the text
shows as typed and nothing in it pings, links or renders:

- `slack`: Slack mrkdwn, in `text` and in Block Kit `mrkdwn` objects alike. Slack's control
  sequences all start with `<` (`<!channel>`, `<@U…>`, `<#C…>`, `<https://…|label>`), so its
  three entities (`&`, `<`, `>`, as Slack documents) are all it takes.
- `github`: GitHub Markdown. Backslash-escapes every ASCII punctuation mark Markdown or HTML
  gives an inline meaning (links, images, emphasis, code, tags, entities, tables), and puts a
  zero-width space after each `@` that would start a mention (`@user`, `@org/team`): GitHub
  finds mentions in the rendered text, where a backslash no longer is.

Pure text functions: Slack and GitHub builders in every layer import them from here.
"""

from __future__ import annotations

import re

ZWSP = "\u200b"
_SLACK = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})
# CommonMark lets any ASCII punctuation be backslash-escaped; these are the ones that mean
# something inline on GitHub (HTML, entities, links, images, emphasis, code, tables). A bare
# `https://…` stays a link that shows where it goes: disguising one takes `[`, `]` or `<`.
_GITHUB_PUNCTUATION = re.compile(r"([\\`*_{}\[\]()<>!|~&])")
_MENTION = re.compile(r"(?<![A-Za-z0-9])@(?=[A-Za-z0-9])")


def slack(text: str) -> str:
    """`text` for Slack mrkdwn (message `text` or a Block Kit `mrkdwn` object), shown as typed."""
    return text.translate(_SLACK)


def github(text: str) -> str:
    """`text` for GitHub Markdown (a comment, a check run summary), shown as typed: no HTML, no
    image, no link, no emphasis, no mention."""
    escaped = _GITHUB_PUNCTUATION.sub(r"\\\1", text)
    return _MENTION.sub("@" + ZWSP, escaped)


_SLACK_URL = re.compile(r"^(?:https?|mailto):[^\s|<>]+$")


def slack_link(url: str, label: str) -> str:
    """A Slack link to `url` showing `label`, both as data: a url that is not a plain http(s)
    or mailto address (a `|` would let it pick its own label) is shown as text, not linked."""
    if not _SLACK_URL.match(url):
        return slack(url)
    return f"<{slack(url)}|{slack(label)}>"


_BROADCAST = re.compile(r"<(?=!|@S|@U|@W|#C)")


def slack_broadcasts_off(text: str) -> str:
    """Claude's answer keeps its formatting and links, but never pings: `<!channel>`, `<!here>`,
    `<!subteam^…>` and user or channel mentions it may have copied from the memory are shown
    as text."""
    return _BROADCAST.sub("&lt;", text)
