"""Slack features end to end: signed request → /slack/events → real Celery worker → git → reply."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pygit2
import pytest
from flask.testing import FlaskClient

from bot.app import create_app
from demo.worker import worker_thread
from jobs.celery_app import make_celery
from jobs.runtime import Runtime
from jobs.task_messages import SaveNote, send
from memory import format as fmt
from memory.git import Author
from memory.writes import AddEntry
from tests.console_helpers import sign_in
from tests.fakes.slack import SlackFake, payload_body
from tests.slack_helpers import command, conformance, mention, post, shortcut
from tests.waiting import TaskLedger, until

pytestmark = pytest.mark.integration
PERSON = Author("test person", "person@example.com")


@pytest.fixture
def client(celery_worker_for: Runtime) -> FlaskClient:
    return create_app(celery_worker_for.config, celery_worker_for).test_client()


def remote_messages(rt: Runtime) -> list[str]:
    """Commit messages on the bare remote, newest first."""
    repo = pygit2.Repository(rt.config.memory_remote)
    return [c.message for c in repo.walk(repo.head.target)]


def replies(fake: SlackFake, n: int = 1) -> list[dict[str, Any]]:
    return [c.form for c in fake.wait_for("chat.postMessage", n)]


def seed(rt: Runtime, path: str, *lines: str) -> None:
    ops = [
        AddEntry(path, line, (("source", f"https://src.test/{i}"),)) for i, line in enumerate(lines)
    ]
    rt.store.write(ops, author=PERSON, message=f"seed {path}")


def test_note_in_a_thread_commits_on_the_remote_and_replies_there(
    client: FlaskClient, slack_fake: SlackFake, celery_worker_for: Runtime
) -> None:
    """A note saved in a thread is one commit on the bare remote and a linked reply in that thread."""
    rt = celery_worker_for
    text = "save a note: the nightly batch alert is expected, nobody acts on it"
    assert post(client, mention(text, thread_ts="1699999999.000001")).status_code == 200
    [reply] = replies(slack_fake)
    assert reply["thread_ts"] == "1699999999.000001"
    assert "<http://hippo.test/console/file/inbox.md|inbox.md>" in reply["text"]
    entry = rt.store.read("inbox.md")
    assert "the nightly batch alert is expected, nobody acts on it [source: " in entry
    assert "https://test.slack.com/archives/C111/p1700000000000100" in entry and "by: W222" in entry
    assert f"added: {datetime.now(UTC).date().isoformat()}" in entry
    assert sum(m.startswith("note:") for m in remote_messages(rt)) == 1


def test_a_note_that_creates_a_topic_file_gives_it_a_title(
    client: FlaskClient, slack_fake: SlackFake, celery_worker_for: Runtime
) -> None:
    """ "save a note in FILE.md: X" creates FILE.md with `# <Title>` (from its name) first; a
    second note there, and a note into an existing file with no title, change no first line."""
    rt = celery_worker_for
    seed(rt, "ops/untitled.md", "the runbook lives in the wiki")
    notes = [
        "save a note in ops/deploy-freeze.md: no deploys on Fridays after 15:00",
        "remember in `ops/deploy-freeze.md`: the freeze lifts on Monday at 08:00",
        "save a note in ops/untitled.md: the pager rota is in PagerDuty",
    ]
    for n, text in enumerate(notes):
        body = mention(text, event_id=f"EvTitle{n}", ts=f"1700000000.00020{n}")
        assert post(client, body).status_code == 200
        replies(slack_fake, n + 1)
    made = rt.store.read("ops/deploy-freeze.md")
    assert made.startswith("# Deploy freeze\n\n- no deploys on Fridays after 15:00 [source: ")
    assert made.count("# ") == 1 and "- the freeze lifts on Monday at 08:00 [" in made
    kept = rt.store.read("ops/untitled.md")
    assert kept.startswith("- the runbook lives in the wiki [") and "#" not in kept
    assert "- the pager rota is in PagerDuty [" in kept


def test_a_time_bound_note_is_marked_short_lived(
    client: FlaskClient, slack_fake: SlackFake, celery_worker_for: Runtime
) -> None:
    """ "until the migration finishes" bounds the note: saved with `scope: short-lived` (tidy
    lets it expire); a lasting note in the same thread is not marked."""
    rt = celery_worker_for
    post(client, mention("save a note: use the old queue until the migration finishes"))
    replies(slack_fake)
    post(
        client,
        mention(
            "save a note: the old queue drops messages over 256 KB",
            event_id="Ev2",
            ts="1700000001.000100",
        ),
    )
    replies(slack_fake, 2)
    (bound, lasting) = fmt.parse(rt.store.read("inbox.md")).entries
    assert bound.text == "use the old queue until the migration finishes"
    assert bound.get("scope") == "short-lived"
    assert lasting.get("scope") is None


def test_note_goes_to_the_topic_it_names(
    client: FlaskClient, slack_fake: SlackFake, celery_worker_for: Runtime
) -> None:
    """A note naming checkout-api lands in services/checkout-api.md and the reply links it."""
    rt = celery_worker_for
    seed(rt, "services/checkout-api.md", "checkout-api runs on three pods")
    post(client, mention("save a note: checkout-api 504s come from the vendor sandbox"))
    [reply] = replies(slack_fake)
    assert "services/checkout-api.md" in reply["text"] and reply["thread_ts"] == "1700000000.000100"
    assert "vendor sandbox" in rt.store.read("services/checkout-api.md")


def test_slash_command_note_replies_in_the_channel(
    client: FlaskClient, slack_fake: SlackFake, celery_worker_for: Runtime
) -> None:
    """`/hippo remember …` saves with the channel as source and answers in the channel."""
    post(client, command("remember the release train leaves on Tuesdays", trigger="t-note"))
    [reply] = replies(slack_fake)
    assert "thread_ts" not in reply and reply["channel"] == "C111"
    text = celery_worker_for.store.read("inbox.md")
    assert "release train leaves on Tuesdays [source: https://slack.com/archives/C111;" in text


def test_redelivered_task_makes_one_commit_and_one_reply(
    slack_fake: SlackFake, celery_worker_for: Runtime, tasks: TaskLedger
) -> None:
    """The same task delivered twice (same key) makes one commit and one reply."""
    rt = celery_worker_for
    args = dict(
        key="slack:EvTwice",
        channel="C111",
        ts="1.000001",
        thread_ts="1.000001",
        user="W222",
        channel_name="",
    )
    note = SaveNote("the deploy freeze starts Friday")
    send(rt, note, args)
    replies(slack_fake)
    send(rt, note, args)
    until(tasks.settled)  # the second delivery has run
    assert len(slack_fake.calls("chat.postMessage")) == 1
    assert sum(m.startswith("note:") for m in remote_messages(rt)) == 1


def test_rerun_of_a_task_that_died_mid_reply_still_replies(
    slack_fake: SlackFake, celery_worker_for: Runtime
) -> None:
    """A task redelivered after its worker died while posting (same task id) posts the reply."""
    rt = celery_worker_for
    rt.redis.set("hippo:slack:replied:slack:EvDied", "sending:task-1")
    kwargs = dict(
        key="slack:EvDied",
        channel="C111",
        ts="1.000002",
        thread_ts="1.000002",
        user="W222",
        text="the cache warms at 06:00",
    )
    rt.celery.send_task("hippo.slack.save_note", kwargs=kwargs, task_id="task-1")
    assert "Saved" in replies(slack_fake)[0]["text"]


def test_rate_limited_reply_is_retried_after_retry_after(
    client: FlaskClient, slack_fake: SlackFake
) -> None:
    """A 429 with Retry-After: 1 on chat.postMessage is honoured and the reply still arrives."""
    slack_fake.script(
        "chat.postMessage", (429, {"ok": False, "error": "ratelimited"}, {"Retry-After": "1"})
    )
    post(client, mention("remember the on-call rota lives in PagerDuty"))
    first, second = slack_fake.wait_for("chat.postMessage", 2)[:2]
    assert second.form["text"] == first.form["text"] and "Saved" in second.form["text"]
    assert second.at - first.at >= 0.95  # it waited out Retry-After before sending again
    assert len(slack_fake.calls("chat.postMessage")) == 2


def test_reply_to_a_channel_hippo_left_is_not_retried(
    client: FlaskClient, slack_fake: SlackFake, celery_worker_for: Runtime, tasks: TaskLedger
) -> None:
    """not_in_channel is permanent: the note stays committed and the reply is not retried in
    the channel; it goes once to the person's DM instead (tests/bot/slack/test_slack_replies)."""
    slack_fake.script("chat.postMessage", (200, {"ok": False, "error": "not_in_channel"}, {}))
    post(client, mention("remember the bot may be removed from a channel"))
    slack_fake.wait_for("chat.postMessage")
    until(lambda: celery_worker_for.redis.get("hippo:slack:replied:slack:Ev001") is not None)
    until(tasks.settled)  # a retry in the channel would have been sent and run by now
    channels = [c.form["channel"] for c in slack_fake.calls("chat.postMessage")]
    assert channels == ["C111", "W222"]
    assert "bot may be removed" in celery_worker_for.store.read("inbox.md")


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("save a note:", "empty"),
        ("save a note: " + "x" * 4001, "limit is 4,000"),
        ("save a note: the deploy key is AKIAIOSFODNN7EXAMPLE", "remove the secret"),
    ],
)
def test_bad_notes_get_a_reason_and_no_commit(
    client: FlaskClient, slack_fake: SlackFake, celery_worker_for: Runtime, text: str, why: str
) -> None:
    """Empty, too long, or secret-bearing notes get a reply saying why, and nothing is committed."""
    before = remote_messages(celery_worker_for)
    post(client, mention(text))
    [reply] = replies(slack_fake)
    assert reply["text"].startswith("Not saved") and why in reply["text"]
    assert remote_messages(celery_worker_for) == before


def test_forgotten_fact_is_not_saved_again(
    client: FlaskClient, slack_fake: SlackFake, celery_worker_for: Runtime
) -> None:
    """A note matching a tombstone is refused with the reason, and no commit."""
    rt = celery_worker_for
    seed(rt, "inbox.md", "the nightly batch alert is expected")
    post(
        client, mention("forget that the nightly batch alert is expected", event_id="EvF", ts="2.0")
    )
    assert "Forgot" in replies(slack_fake)[0]["text"]
    assert "batch alert" not in rt.store.read("inbox.md")
    assert "the nightly batch alert is expected [removed: " in rt.store.read("forgotten.md")
    before = remote_messages(rt)
    post(client, mention("remember the nightly batch alert is expected", event_id="EvR", ts="3.0"))
    reply = replies(slack_fake, 2)[1]
    assert "forgotten on purpose" in reply["text"] and remote_messages(rt) == before


def test_forget_with_several_matches_asks_then_removes_the_pick(
    client: FlaskClient, slack_fake: SlackFake, celery_worker_for: Runtime, tasks: TaskLedger
) -> None:
    """Several matches: buttons and no change; a click removes that one and edits the question."""
    rt = celery_worker_for
    seed(rt, "inbox.md", "the batch alert fires nightly", "the batch alert pages nobody")
    post(client, mention("forget the batch alert", event_id="EvQ", ts="4.0"))
    question = replies(slack_fake)[0]
    buttons = question["blocks"][1]["elements"]
    assert [b["action_id"] for b in buttons] == ["forget_pick_0", "forget_pick_1", "forget_cancel"]
    assert "pages nobody" in rt.store.read("inbox.md")
    click = conformance("block_actions.json")
    click["actions"][0].update(action_id="forget_pick_1", value=buttons[1]["value"])
    click["container"].update(channel_id="C111", message_ts=question.get("ts", "9.9"))
    assert post(client, payload_body(click)).status_code == 200
    update = slack_fake.wait_for("chat.update")[0].form
    assert "Forgot" in update["text"] and update["blocks"] == []
    text = rt.store.read("inbox.md")
    assert "pages nobody" not in text and "fires nightly" in text
    assert "pages nobody" in rt.store.read("forgotten.md")
    click["trigger_id"] = "another.click"
    post(client, payload_body(click))  # a second click changes nothing
    until(tasks.settled)
    assert len(slack_fake.calls("chat.update")) == 1


def test_keep_all_removes_nothing(
    client: FlaskClient, slack_fake: SlackFake, celery_worker_for: Runtime
) -> None:
    """ "Keep all" on a forget question edits the question and changes no file."""
    rt = celery_worker_for
    seed(rt, "inbox.md", "the cache warms at six", "the cache warms slowly")
    post(client, mention("forget the cache warms", event_id="EvK", ts="4.5"))
    buttons = replies(slack_fake)[0]["blocks"][1]["elements"]
    before = remote_messages(rt)
    click = conformance("block_actions.json")
    click["actions"][0].update(action_id="forget_cancel", value=buttons[-1]["value"])
    post(client, payload_body(click))
    assert "Kept everything" in slack_fake.wait_for("chat.update")[0].form["text"]
    assert remote_messages(rt) == before


def test_instructions_add_list_remove(
    client: FlaskClient, slack_fake: SlackFake, celery_worker_for: Runtime
) -> None:
    """Channel instructions: each add and remove is a commit in preferences/channels/<name>.md."""
    rt = celery_worker_for
    post(client, mention("in this channel, reply in threads only", event_id="EvI1", ts="5.0"))
    post(client, command("instructions add link the runbook", trigger="t2"))
    replies(slack_fake, 2)
    post(client, command("instructions", trigger="t3"))
    listing = replies(slack_fake, 3)[2]["text"]
    assert "1. reply in threads only" in listing and "2. link the runbook" in listing
    post(client, command("instructions remove 1", trigger="t4"))
    assert "Removed instruction 1" in replies(slack_fake, 4)[3]["text"]
    post(client, command("instructions remove 7", trigger="t5"))
    assert "no instruction '7'" in replies(slack_fake, 5)[4]["text"]
    text = rt.store.read("preferences/channels/dev.md")
    assert "link the runbook" in text and "threads only" not in text
    assert sum(m.startswith("instructions #dev") for m in remote_messages(rt)) == 3


def test_recall_lists_hits_with_paths_and_sources(
    client: FlaskClient, slack_fake: SlackFake, celery_worker_for: Runtime
) -> None:
    """ "What do you know about X?" answers in the thread with paths and source links."""
    seed(celery_worker_for, "services/checkout-api.md", "checkout-api 504s come from the sandbox")
    post(client, mention("what do you know about checkout-api?", thread_ts="6.0"))
    [reply] = replies(slack_fake)
    assert "services/checkout-api.md" in reply["text"] and "https://src.test/0" in reply["text"]
    assert reply["thread_ts"] == "6.0"


def test_recall_of_a_huge_word_answers_at_once_and_says_what_was_cut(
    client: FlaskClient, slack_fake: SlackFake, celery_worker_for: Runtime
) -> None:
    """Issue 37: a 10,000-character word (which took 6.9 GB and 38 s) is left out of the
    search, the rest is searched, and the answer says what was cut."""
    seed(celery_worker_for, "services/checkout-api.md", "checkout-api 504s come from the sandbox")
    post(client, mention("recall checkout-api " + "q" * 10_000, thread_ts="6.0"))
    [reply] = replies(slack_fake)
    assert "services/checkout-api.md" in reply["text"]
    assert "Searched a shorter query: only its first 1,000 characters were read" in reply["text"]
    assert "1 word longer than 64 characters left out" in reply["text"]


def test_recall_finds_a_fact_asked_in_other_words(
    client: FlaskClient, slack_fake: SlackFake, celery_worker_for: Runtime
) -> None:
    """A question whose words the fact only partly holds (deployed, Fridays, production) still
    finds it: every word counts, a missing one costs rank, not the hit."""
    seed(celery_worker_for, "services/checkout-api.md", "checkout-api deploys freeze on fridays")
    post(client, mention("what do you know about deployed checkout on friday in production?"))
    [reply] = replies(slack_fake)
    assert "services/checkout-api.md" in reply["text"] and "freeze on fridays" in reply["text"]


def test_recall_with_a_tag_keeps_the_tagged_entries(
    client: FlaskClient, slack_fake: SlackFake, celery_worker_for: Runtime
) -> None:
    """Issue 29 item 4: `tag:deploy` in a Slack recall filters through the one retrieval core:
    the untagged fact holding the same words is left out."""
    rt = celery_worker_for
    ops = [
        AddEntry("ops/deploy.md", "drain the queue before a deploy", (("tags", "Deploys"),)),
        AddEntry("ops/queue.md", "drain the queue on Mondays"),
    ]
    rt.store.write(ops, author=PERSON, message="seed")
    post(client, mention("what do you know about drain queue tag:deploy?"))
    [reply] = replies(slack_fake)
    assert "drain the queue before a deploy" in reply["text"] and "Mondays" not in reply["text"]


def test_reaction_and_shortcut_save_the_message(
    client: FlaskClient, slack_fake: SlackFake, celery_worker_for: Runtime
) -> None:
    """The :brain: reaction reads the message and saves it; so does the shortcut, with its link."""
    rt = celery_worker_for
    slack_fake.messages[("C111", "7.000100")] = {
        "type": "message",
        "ts": "7.000100",
        "user": "W9",
        "text": "staging resets on Mondays",
    }
    body = mention("x", event_id="EvReact")
    body["event"] = {
        "type": "reaction_added",
        "user": "W1",
        "reaction": "brain",
        "item": {"type": "message", "channel": "C111", "ts": "7.000100"},
    }
    post(client, body)
    post(client, shortcut("the vendor sandbox throttles at 50 rps"))
    got = replies(slack_fake, 2)
    assert all("inbox.md" in r["text"] for r in got)
    text = rt.store.read("inbox.md")
    assert "staging resets on Mondays" in text and "p7000100" in text and "by: W1" in text
    assert "throttles at 50 rps" in text and "p1583636382000300" in text


def test_reaction_on_a_thread_reply_saves_that_reply(
    client: FlaskClient, slack_fake: SlackFake, celery_worker_for: Runtime
) -> None:
    """A reaction on a thread reply saves the reply (not its parent) and answers in the thread."""
    slack_fake.messages[("C111", "9.000100")] = {
        "type": "message",
        "ts": "9.000100",
        "user": "W9",
        "text": "the parent message",
    }
    slack_fake.messages[("C111", "9.000200")] = {
        "type": "message",
        "ts": "9.000200",
        "thread_ts": "9.000100",
        "user": "W9",
        "text": "the replica lags by a minute at peak",
    }
    body = mention("x", event_id="EvReply")
    body["event"] = {
        "type": "reaction_added",
        "user": "W1",
        "reaction": "brain",
        "item": {"type": "message", "channel": "C111", "ts": "9.000200"},
    }
    post(client, body)
    [reply] = replies(slack_fake)
    assert reply["thread_ts"] == "9.000100" and "inbox.md" in reply["text"]
    text = celery_worker_for.store.read("inbox.md")
    assert "replica lags by a minute" in text and "the parent message" not in text


def test_celery_redelivers_tasks_of_a_dead_worker(celery_worker_for: Runtime) -> None:
    """Tasks are acked after they run, requeued when the worker dies, one at a time, JSON only;
    a dead worker's hold expires after the lease, which live workers renew (tests/test_faults.py
    shows both)."""
    app = make_celery(celery_worker_for)
    conf = app.conf
    assert conf.task_acks_late and conf.task_reject_on_worker_lost
    assert conf.worker_prefetch_multiplier == 1 and conf.accept_content == ["json"]
    options = conf.broker_transport_options
    assert options["visibility_timeout"] == celery_worker_for.config.task_lease == 60
    assert options["unacked_restore_throttle"] == 1 and options["unacked_restore_interval"] == 5
    assert "LeaseRenewal" in {s.__name__ for s in app.steps["consumer"]}


@pytest.fixture
def offline(slack_runtime: Runtime) -> Iterator[Runtime]:
    """A Runtime without SLACK_BOT_TOKEN (console outbox) and a worker for it."""
    rt = Runtime(replace(slack_runtime.config, slack_bot_token="", console_token="console-token"))
    with worker_thread(make_celery(rt)):
        yield rt


def test_without_a_token_replies_go_to_the_outbox(offline: Runtime, slack_fake: SlackFake) -> None:
    """Offline, the reply lands in the outbox (and /outbox), nothing reaches Slack."""
    client = create_app(offline.config, offline).test_client()
    post(client, mention("remember the office wifi is hippo-guest"))
    until(lambda: offline.outbox.messages())
    sign_in(client, "console-token")
    [message] = client.get("/outbox").get_json()["messages"]
    assert "inbox.md" in message["text"] and message["thread_ts"] == "1700000000.000100"
    assert slack_fake.calls("chat.postMessage") == []


def test_offline_reaction_says_it_cannot_read(offline: Runtime) -> None:
    """Offline there is no Slack to read a reacted message from: hippo says so, saves nothing."""
    client = create_app(offline.config, offline).test_client()
    body = mention("x", event_id="EvOff")
    body["event"] = {
        "type": "reaction_added",
        "user": "W1",
        "reaction": "brain",
        "item": {"type": "message", "channel": "C111", "ts": "8.000100"},
    }
    post(client, body)
    until(lambda: offline.outbox.messages())
    [message] = offline.outbox.messages()
    assert "could not read that message" in message["text"]
    assert message["thread_ts"] == "8.000100"
