"""Nothing hippo posts carries live markup from the memory (issue 24, item 8): hostile text fed
through every message builder, Slack (mrkdwn text and Block Kit) and GitHub (Markdown), comes
out as data: no `<!channel>`, mention or disguised link in Slack; no HTML, image, link or
`@mention` on GitHub. The doors themselves are exercised in tests/bot/slack/test_slack_markup.py
and tests/bot/test_github_webhook.py."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest

from integrations.agent_tools import Toolbox
from jobs.agent.turn import Outcome, _citations
from jobs.github.checks import summary
from jobs.github.lessons import announcement, comment_body
from jobs.slack import home_view
from jobs.slack import messages as say
from memory import format as fmt
from memory import markup, notes
from memory.dream import digest
from memory.dream.promote import Contradiction
from memory.dream.report import Report, StepReport
from memory.lessons.pitfalls import Finding
from memory.lessons.planner import LessonPlan
from memory.search import Hit

CONSOLE = "http://hippo.test"
HOSTILE = (
    "<!channel> <https://evil.example/x|https://docs.example.com> <@U0BADBEEF> <#C0GENERAL> "
    "@org/team <img src=x onerror=alert(1)> ![pixel](https://evil.example/p.png) "
    "[docs](https://evil.example/y) &lt;!here&gt; **bold** `code`"
)
EVIL_URL = "https://evil.example/src|https://docs.example.com"


def slack_texts(value: Any) -> list[str]:
    """Every string Slack would render as mrkdwn: a message's text, or in Block Kit every `text`
    of a `mrkdwn` object (plain_text cannot carry markup)."""
    if isinstance(value, str):
        return [value]
    out: list[str] = []
    if isinstance(value, dict):
        if value.get("type") == "mrkdwn" and isinstance(value.get("text"), str):
            out.append(value["text"])
        for v in value.values():
            if isinstance(v, dict | list):
                out += slack_texts(v)
    elif isinstance(value, list):
        for v in value:
            out += slack_texts(v)
    return out


MEANT = (CONSOLE + "/", "https://github.com/o/a/pull/")  # links hippo itself makes


def live_slack(text: str) -> list[str]:
    """Slack control sequences in `text` that hippo itself did not mean: anything `<…>` but a
    link to its own console or to a pull request it learned from."""
    return [m for m in re.findall(r"<([^>]*)>", text) if not m.startswith(MEANT)]


def live_github(text: str) -> list[str]:
    """What GitHub would render from `text` as markup: HTML tags, images, links not to hippo's
    console, mentions."""
    unescaped = re.sub(r"\\.", "", text)  # a backslash-escaped character is a literal
    unescaped = re.sub(r"`[^`]*`", "", unescaped)  # so is a code span's content
    found = re.findall(r"<[A-Za-z/!]", unescaped) + re.findall(r"!\[", unescaped)
    found += [m for m in re.findall(r"\]\(([^)]*)\)", unescaped) if not m.startswith(CONSOLE)]
    found += re.findall(r"(?<![\w\u200b])@[A-Za-z0-9]", text)
    return found


def entry(text: str, **meta: str) -> fmt.Entry:
    line = f"- {text} [{'; '.join(f'{k}: {v}' for k, v in meta.items())}]" if meta else f"- {text}"
    [e] = fmt.parse(f"# t\n\n{line}\n").entries
    return e


def hit(text: str = HOSTILE, source: str = EVIL_URL) -> Hit:
    return Hit("notes/x.md", 3, text, {"source": source}, 1.0)


def match() -> notes.Match:
    return notes.Match("notes/x.md", 3, HOSTILE, {})


def report() -> Report:
    step = StepReport("tidy", "c0ffee" * 6 + "abcd", f"dream(tidy): merged {HOSTILE}")
    step.files = [("notes/x.md", 1, 1)]
    r = Report("2026-11-30", steps=[step], daily_path="daily/2026-11-29.md")
    r.daily_text = f"# Daily\n\n- {HOSTILE}\n"
    r.activated, r.unverified, r.deferred = [HOSTILE], [HOSTILE], [HOSTILE]
    r.extra["contradictions"] = [Contradiction("notes/x.md", HOSTILE, HOSTILE, EVIL_URL)]
    return r


SLACK: dict[str, Callable[[], Any]] = {
    "saved": lambda: say.saved(CONSOLE, "notes/x.md", HOSTILE),
    "forgot": lambda: say.forgot(say.forgot_matches(CONSOLE, notes.Forgot("removed", (match(),)))),
    "nothing_matches": lambda: say.nothing_matches(HOSTILE),
    "which_one": lambda: say.which_one(HOSTILE, 2),
    "question_blocks": lambda: say.question_blocks("Which?", "k", (match(), match())),
    "recall_answer": lambda: say.recall_answer(
        CONSOLE, HOSTILE, [("team", hit()), ("org", hit(source=HOSTILE))], labelled=True
    ),
    "lesson announcement": lambda: announcement(
        "octo/app", LessonPlan(text=HOSTILE, sources=[EVIL_URL, "https://github.com/o/a/pull/2"])
    ),
    "digest": lambda: digest.blocks(report(), console_url=CONSOLE),
    "contradictions": lambda: digest.contradiction_blocks(
        [Contradiction(HOSTILE, HOSTILE, HOSTILE, HOSTILE)], CONSOLE
    ),
    "app home": lambda: home_view.home_view(
        home_view.Glance(
            dream=home_view.LastDream("r", "2026-11-30", HOSTILE),
            activated=[HOSTILE],
            deferred=[HOSTILE],
            unverified=[HOSTILE],
            channels=[(HOSTILE, [HOSTILE])],
        ),
        console_url=CONSOLE,
        admin=True,
    ),
    "agent citations": lambda: _citations(
        Outcome(
            "answer",
            1,
            commit="abc12345",
            files_read=[HOSTILE],
            files_touched=[HOSTILE],
            refused=[(HOSTILE, HOSTILE)],
            disputed=[(HOSTILE, HOSTILE)],
        ),
        Toolbox.__new__(Toolbox),
        [HOSTILE, EVIL_URL],
    ),
}


@pytest.mark.parametrize("name", sorted(SLACK))
def test_every_slack_builder_shows_memory_text_as_typed(name: str) -> None:
    """No `<!channel>`, user or channel mention, or link whose label hides its target survives
    a Slack builder; the words still show (escaped as Slack documents)."""
    built = SLACK[name]()
    texts = slack_texts(built)
    assert texts, name
    for text in texts:
        assert live_slack(text) == [], (name, text)
    shown = json.dumps(built)
    assert "&lt;!channel&gt;" in shown, name  # the words are there, as text


REVOKED = {"status": "revoked", "reason": HOSTILE, "source": "https://github.com/o/a/pull/1"}
GITHUB: dict[str, Callable[[], str]] = {
    "pull request comment": lambda: comment_body(
        entry(HOSTILE, source="https://github.com/o/a/pull/1"),
        "https://github.com/o/a/pull/1",
        f"{CONSOLE}/console/file/conventions/o/a.md",
    ),
    "revoked comment": lambda: comment_body(
        entry(HOSTILE, **REVOKED),
        "https://github.com/o/a/pull/1",
        f"{CONSOLE}/console/file/conventions/o/a.md",
    ),
    "check run summary": lambda: summary(
        [Finding("src/<b>a</b>.py", 3, "x", HOSTILE, "mock`<img>`")],
        1,
        "o/a",
        f"{CONSOLE}/console",
    ),
}


@pytest.mark.parametrize("name", sorted(GITHUB))
def test_every_github_builder_shows_memory_text_as_typed(name: str) -> None:
    """No HTML, image, link or mention from the memory survives a GitHub Markdown builder."""
    text = GITHUB[name]()
    assert live_github(text) == [], (name, text)
    assert "org/team" in text and "img src=x" in text  # the words are there, as text


def test_the_escapes_are_exact() -> None:
    """Slack: its three entities, nothing else touched. GitHub: punctuation escaped, mentions
    broken by a zero-width space, e-mail addresses and plain words left alone."""
    assert markup.slack("a & <b> *c*") == "a &amp; &lt;b&gt; *c*"
    assert markup.github("@org/team a@b.c <img>") == "@\u200borg/team a@b.c \\<img\\>"
    assert markup.slack_link("https://x.example/a", "a|b") == "<https://x.example/a|a|b>"
    assert markup.slack_link(EVIL_URL, "source") == EVIL_URL
    assert markup.slack_broadcasts_off("<!here> see <https://a.example|docs>") == (
        "&lt;!here> see <https://a.example|docs>"
    )
