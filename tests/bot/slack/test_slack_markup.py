"""A note typed with Slack's control sequences stays words (issue 24, item 8), end to end: a signed
request, Bolt, a real Celery worker, the loopback Slack. The person typed `<!channel>` and a link
whose label shows another address; Slack sent hippo `&lt;!channel&gt; …`, hippo stored what she
typed, and every reply quoting it (the "Saved" reply, a recall, an answer without a key, the
instruction listing) shows the words without pinging the channel or disguising the link."""

from __future__ import annotations

import re

import pytest
from flask.testing import FlaskClient

from jobs.runtime import Runtime
from tests.fakes.slack import SlackFake
from tests.slack_helpers import command, mention, post
from tests.waiting import until

# The shared client, with a real worker consuming the queue (it runs on slack_runtime, the rt here).
pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("celery_worker_for")]

# What Slack delivers when someone types `<!channel> <https://evil.example/x|https://docs.example.com>`
TYPED = "deploy checklist &lt;!channel&gt; &lt;https://evil.example/x|https://docs.example.com&gt;"


MEANT = ("http://hippo.test/", "https://test.slack.com/archives/")  # console, the note's message


def live(text: str) -> list[str]:
    """Slack control sequences hippo did not mean: any but its links to its console and to the
    message a note came from."""
    return [m for m in re.findall(r"<([^>]*)>", text) if not m.startswith(MEANT)]


def test_a_hostile_note_is_quoted_as_words_in_every_reply(
    client: FlaskClient, slack_fake: SlackFake, celery_worker_for: Runtime
) -> None:
    rt = celery_worker_for
    assert post(client, mention(f"save a note: {TYPED}", event_id="EvM1")).status_code == 200
    slack_fake.wait_for("chat.postMessage", 1)
    stored = rt.store.read("inbox.md")
    assert "<!channel> <https://evil.example/x|https://docs.example.com>" in stored  # as typed
    asks = [
        mention("what do you know about deploy checklist?", event_id="EvM2", ts="2.0"),
        mention("why the deploy checklist?", event_id="EvM3", ts="3.0", thread_ts="3.0"),
        mention(f"in this channel, {TYPED}", event_id="EvM4", ts="4.0"),
    ]
    for n, body in enumerate(asks, 2):
        assert post(client, body).status_code == 200
        slack_fake.wait_for("chat.postMessage", n)
    url = f"{slack_fake.url}hooks/commands/T111/1/list"
    assert post(client, command("instructions", trigger="m.5", response_url=url)).status_code == 200
    until(lambda: slack_fake.hooks())
    said = [p["text"] for p in slack_fake.posts()] + [c.form["text"] for c in slack_fake.hooks()]
    assert len(said) == 5
    for text in said:
        assert live(text) == [], text
        assert "&lt;!channel&gt;" in text, text  # the words are shown
