"""hippo's agent in Slack threads: pinned snapshots, edits pushed by code, episodes, failures."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pygit2
import pytest

from bot.app import create_app
from bot.slack.agent import parse
from demo.worker import worker_thread
from jobs.agent.tasks import MAX_RETRIES, RETRY_ACTION, answer
from jobs.agent.turn import NO_KEY_NOTE, Question, changes_since, take_turn
from jobs.celery_app import make_celery
from jobs.config import Config
from jobs.runtime import Runtime
from memory.git import Author
from memory.prompts import snapshot
from memory.writes import AddEntry, WriteFile
from tests.fakes.anthropic import FakeAnthropic
from tests.fakes.slack import SECRET, SlackFake, payload_body
from tests.slack_helpers import conformance, mention, post
from tests.waiting import until

ALICE = Author("alice", "alice@example.com")
TOPIC = "# checkout-api\n\n- 504s after deploys come from cold caches [source: https://x/pr/1]\n"


def _config(
    tmp_path: Path, slack: SlackFake, claude: FakeAnthropic | None, redis_url: str
) -> Config:
    return Config(
        redis_url=redis_url,
        data_dir=tmp_path / "data",
        memory_remote=str(tmp_path / "remote.git"),
        slack_bot_token="xoxb-test",
        slack_signing_secret=SECRET,
        slack_api_url=slack.url,
        anthropic_api_key="test" if claude else "",
        anthropic_base_url=claude.url if claude else "",
        model="claude-sonnet-5-5",
        small_model="claude-haiku-5-5",
    )


@pytest.fixture
def claude() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as fake:
        yield fake


@pytest.fixture
def rt(
    tmp_path: Path, slack_fake: SlackFake, claude: FakeAnthropic, redis_url: str
) -> Iterator[Runtime]:
    """A Runtime with a key, talking to the Anthropic and Slack fakes, on a seeded memory."""
    runtime = Runtime(_config(tmp_path, slack_fake, claude, redis_url))
    runtime.store.init()
    runtime.store.write(
        [WriteFile("services/checkout-api.md", TOPIC), AddEntry("MEMORY.md", "deploys at 10:00")],
        author=ALICE,
        message="seed",
    )
    make_celery(runtime)  # the current app: `answer.apply` runs on this Runtime
    yield runtime
    runtime.close()


def _q(text: str, *, thread: str = "1700000000.000100", ts: str = "", n: int = 1) -> Question:
    return Question("T111", "C111", thread, ts or f"1700000001.{n:06d}", "W222", text, f"Ev{n}")


def _prefix(body: dict[str, Any]) -> str:
    """The bytes the provider caches: tools, then system up to the cache mark."""
    return json.dumps([body["tools"], body["system"][:2]], sort_keys=True)


def _archive(rt: Runtime) -> list[dict[str, Any]]:
    day = datetime.now(UTC).date().isoformat()
    text = rt.store.read_or_none(f"archive/{day}.jsonl") or ""
    return [json.loads(line) for line in text.splitlines()]


def test_turns_of_one_thread_share_a_prefix_and_a_new_thread_gets_the_new_version(
    rt: Runtime, claude: FakeAnthropic
) -> None:
    """Bytes before the channel preferences stay identical across turns though memory changed."""
    rt.store.write(
        [WriteFile("preferences/channels/C111.md", "# C111\n\n- answer in one line\n")],
        author=ALICE,
        message="prefs",
    )
    claude.default = lambda body: claude.text("An answer.")
    take_turn(rt, _q("why 504s?", n=1))
    edit = rt.store.write([AddEntry("MEMORY.md", "deploys moved to 11:00")], author=ALICE,
                          message="edit")  # fmt: skip
    assert snapshot.publish_if_index_changed(rt.store, edit) is not None
    rt.store.write(
        [WriteFile("preferences/channels/C111.md", "# C111\n\n- answer in two lines\n")],
        author=ALICE,
        message="prefs changed",
    )
    take_turn(rt, _q("and after that?", n=2))
    take_turn(rt, _q("a new thread?", thread="1700000099.000100", n=3))
    turns = [b for b in claude.requests if b["model"] == "claude-sonnet-5-5"]
    first, second, other = turns
    assert _prefix(first) == _prefix(second)
    assert 'version="1"' in first["system"][1]["text"]
    assert "11:00" not in second["system"][1]["text"]
    assert "one line" in first["system"][2]["text"] and "two lines" in second["system"][2]["text"]
    assert second["messages"][:2] == [
        {"role": "user", "content": [{"type": "text", "text": "why 504s?"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "An answer."}]},
    ]
    assert 'version="2"' in other["system"][1]["text"] and "11:00" in other["system"][1]["text"]
    agent_usage = [u for u, b in zip(claude.usages, claude.requests, strict=True) if b in turns]
    assert agent_usage[1]["cache_read_input_tokens"] > 0  # the pinned prefix hit the cache
    counters = rt.redis.hgetall(f"hippo:usage:agent:{datetime.now(UTC).date().isoformat()}")
    assert int(counters[b"turns"]) == 3 and int(counters[b"cache_read"]) > 0


@pytest.mark.integration
def test_question_in_a_thread_end_to_end(
    rt: Runtime, claude: FakeAnthropic, slack_fake: SlackFake
) -> None:
    """Mention → worker → tool calls → an edit → pushed commit → answer in thread → episode."""
    claude.script(
        claude.tool_use("search", {"query": "checkout-api 504s after deploys"}),
        claude.tool_use("read_file", {"path": "services/checkout-api.md"}),
        claude.tool_use(
            "replace_in_file",
            {
                "path": "services/checkout-api.md",
                "old": "come from cold caches [source: https://x/pr/1]\n",
                "new": "come from cold caches [source: https://x/pr/1]\n"
                "- warming the cache in the deploy job stops them\n",
            },
        ),
        claude.text("Cold caches after deploys; warming them in the deploy job stops the 504s."),
        claude.text("REFINE"),  # the contradiction check asks the small model about the new line
        claude.text(
            json.dumps(
                {
                    "remember": ["warm caches on deploy"],
                    "stale": ["504s today"],
                    "problem": "checkout-api returns 504s after every deploy",
                    "approach": "searched the memory and read the checkout-api notes",
                    "outcome": "",  # left empty: the rules fill it from the answer
                    "evidence": ["the checkout-api notes"],
                }
            )
        ),
    )
    client = create_app(rt.config, rt).test_client()
    with worker_thread(make_celery(rt)):
        body = mention("why does checkout-api return 504s after deploys?", event_id="EvQ1",
                       ts="1700000000.000200", thread_ts="1700000000.000100")  # fmt: skip
        assert post(client, body).status_code == 200
        posts = slack_fake.wait_for("chat.postMessage")
        until(lambda: bool(_archive(rt)))
    reply = posts[0].form
    assert reply["thread_ts"] == "1700000000.000100"
    assert reply["text"].startswith("Cold caches after deploys")
    assert "`services/checkout-api.md`" in reply["text"] and "https://x/pr/1" in reply["text"]
    assert "Saved: `services/checkout-api.md`" in reply["text"]
    permalink = "https://test.slack.com/archives/C111/p1700000000000200"
    repo = pygit2.Repository(rt.config.memory_remote)
    commits = [c for c in repo.walk(repo.head.target) if c.author.name == "hippo for W222"]
    assert len(commits) == 1 and f"Hippo-Source: {permalink}" in commits[0].message
    assert "Hippo-Key: slack-agent:slack:EvQ1" in commits[0].message
    text = rt.store.read("services/checkout-api.md")
    assert f"- warming the cache in the deploy job stops them [source: {permalink}; added: " in text
    assert "by: hippo for W222; kind: fact; status: tentative; refines: 504s after deploys" in text
    (episode,) = _archive(rt)
    assert episode["remember"] == ["warm caches on deploy"] and episode["stale"] == ["504s today"]
    assert episode["files_touched"] == ["services/checkout-api.md"]
    assert episode["source"] == permalink and episode["question"].startswith("why does")
    # the case: Claude's words, the rules' outcome where Claude gave none, both evidence lists
    assert episode["problem"] == "checkout-api returns 504s after every deploy"
    assert episode["approach"] == "searched the memory and read the checkout-api notes"
    assert episode["outcome"].startswith("Cold caches after deploys; warming them in the deploy")
    assert episode["outcome"].endswith(
        f"; saved to services/checkout-api.md (commit {str(commits[0].id)[:8]})"
    )
    evidence = episode["evidence"]
    assert evidence[0] == "the checkout-api notes"  # Claude's first, then the rules' sources
    assert evidence.index("https://x/pr/1") < evidence.index("services/checkout-api.md")
    assert '"problem"' in str(claude.requests[-1]["system"])  # the summary asks for it
    assert [b["model"] for b in claude.requests][-1] == "claude-haiku-5-5"
    assert all(b["messages"][0]["content"] for b in claude.requests)


def test_without_a_key_hippo_answers_with_search_hits(
    tmp_path: Path, slack_fake: SlackFake, redis_url: str
) -> None:
    """No ANTHROPIC_API_KEY: the best hits, a note that written answers need a key, an episode."""
    rt = Runtime(_config(tmp_path, slack_fake, None, redis_url))
    rt.store.init()
    rt.store.write([WriteFile("services/checkout-api.md", TOPIC)], author=ALICE, message="seed")
    try:
        out = take_turn(rt, _q("why does checkout-api return 504s after deploys?"))
        reply = slack_fake.calls("chat.postMessage")[0].form["text"]
        assert reply.startswith(NO_KEY_NOTE)
        assert "`services/checkout-api.md`: 504s after deploys come from cold caches" in reply
        (episode,) = _archive(rt)
        assert episode["hits"][0] == "services/checkout-api.md:3" and episode["hits"] == out.hits
        assert episode["files_touched"] == [] and "remember" not in episode
        # without a key the case comes from the rules alone
        assert episode["problem"] == "why does checkout-api return 504s after deploys?"
        assert episode["approach"].startswith("searched memory (")
        assert episode["approach"].endswith("hits, best services/checkout-api.md:3)")
        hits = len(out.hits)
        assert episode["outcome"] == f"no written answer (no API key); showed {hits} search hits"
        assert "services/checkout-api.md:3" in episode["evidence"]
    finally:
        rt.close()


def test_overloaded_to_the_end_offers_try_again_and_pushes_nothing(
    rt: Runtime, claude: FakeAnthropic, slack_fake: SlackFake
) -> None:
    """529 through every SDK and Celery retry → a "Try again" button; the edit stays unpushed."""
    claude.script(
        claude.tool_use("write_file", {"path": "services/new.md", "content": "# n\n\n- a\n"})
    )
    claude.default = lambda body: claude.error(529)
    head = rt.store.head()
    kwargs = {"channel": "C111", "text": "why?", "user": "W222", "ts": "1700000000.000300",
              "thread_ts": "1700000000.000100", "event_id": "EvF"}  # fmt: skip
    answer.apply(kwargs=kwargs)
    assert len(claude.requests) == 1 + 4 * (MAX_RETRIES + 1)  # the tool call, then 4 SDK tries
    (msg,) = slack_fake.posts()
    assert "Claude is overloaded" in msg["text"] and "nothing I edited was lost" in msg["text"]
    button = msg["blocks"][1]["elements"][0]
    assert (button["action_id"], button["value"]) == (RETRY_ACTION, "EvF")
    assert rt.store.sync() == head and not _archive(rt)
    wc = rt.config.data_dir / "agent" / "default" / "_C111_1700000000.000100" / "tree"
    assert (wc / "services" / "new.md").read_text() == "# n\n\n- a\n"

    # Try again: the button (through /slack/events and a real worker) re-queues the turn, which
    # keeps the edit and pushes it with the answer; a second press does nothing.

    claude.default = None
    claude.script(claude.text("Here you go."), claude.text('{"remember": [], "stale": []}'))
    click = conformance("block_actions.json")
    click["actions"][0].update(action_id=RETRY_ACTION, value="EvF")
    click["container"].update(channel_id="C111", message_ts="1700000000.000400")
    client = create_app(rt.config, rt).test_client()
    with worker_thread(make_celery(rt)):
        assert post(client, payload_body(click)).status_code == 200
        slack_fake.wait_for("chat.postMessage", 2)
        until(lambda: bool(_archive(rt)))
        click["trigger_id"] = "another.click"
        assert post(client, payload_body(click)).status_code == 200
    update = slack_fake.calls("chat.update")[0].form
    assert (update["ts"], update["text"]) == ("1700000000.000400", "Trying again…")
    assert slack_fake.posts()[-1]["text"].startswith("Here you go.")
    assert len(slack_fake.posts()) == 2 and len(slack_fake.calls("chat.update")) == 1
    assert rt.store.read("services/new.md").startswith("# n\n\n- a [source: https://test.slack")
    (episode,) = _archive(rt)  # a summary without the case fields: the rules fill all four
    assert episode["outcome"].startswith("Here you go; saved to services/new.md (commit ")
    assert episode["problem"] and episode["approach"] and "services/new.md" in episode["evidence"]


def test_what_people_said_in_the_thread_reaches_the_agent_once(
    rt: Runtime, claude: FakeAnthropic, slack_fake: SlackFake
) -> None:
    """Messages between hippo's turns come before the question; earlier ones are not repeated."""
    claude.default = lambda body: claude.text("An answer.")
    thread = "1700000000.000100"
    said = [
        {"type": "message", "user": "W1", "text": "checkout is slow again", "ts": thread},
        {"type": "message", "user": "W222", "text": "<@UHIPPO> why?", "ts": "1700000001.000001"},
        {"type": "message", "bot_id": "BHIPPO", "text": "An answer.", "ts": "1700000001.000005"},
        {
            "type": "message",
            "user": "W3",
            "text": "cache <https://x/y|again>",
            "ts": "1700000001.1",
        },
        {"type": "message", "user": "W222", "text": "<@UHIPPO> now?", "ts": "1700000002.000001"},
    ]
    slack_fake.script(
        "conversations.replies",
        (200, {"ok": True, "messages": said[:2]}, {}),
        (200, {"ok": True, "messages": said}, {}),
    )
    take_turn(rt, Question("T111", "C111", thread, "1700000001.000001", "W222", "why?", "Ev1"))
    take_turn(rt, Question("T111", "C111", thread, "1700000002.000001", "W222", "now?", "Ev2"))
    first, second = [b["messages"] for b in claude.requests if b["model"] == "claude-sonnet-5-5"]
    asked = first[-1]["content"][0]["text"]
    assert "<W1>: checkout is slow again" in asked and asked.endswith("<W222> asks: why?")
    assert second[0]["content"][0]["text"] == asked  # the history is sent as it was first sent
    now = second[-1]["content"][0]["text"]
    assert "<W3>: cache again (https://x/y)" in now and now.endswith("<W222> asks: now?")
    assert "slow again" not in now and "An answer" not in now
    assert slack_fake.calls("conversations.replies")[0].form["ts"] == thread


def test_rate_limited_to_the_end_says_so(
    rt: Runtime, claude: FakeAnthropic, slack_fake: SlackFake
) -> None:
    """429 through every retry: the thread hears it was the rate limit; nothing is pushed."""
    claude.default = lambda body: claude.error(429)
    head = rt.store.head()
    kwargs = {"channel": "C111", "text": "why?", "ts": "1700000000.000700", "event_id": "EvR"}
    answer.apply(kwargs=kwargs, retries=MAX_RETRIES)  # the last Celery attempt
    assert len(claude.requests) == 4  # the SDK's own tries
    (msg,) = slack_fake.posts()
    assert "rate limit" in msg["text"] and msg["blocks"][1]["elements"][0]["value"] == "EvR"
    assert rt.store.sync() == head


def test_changes_since_lists_what_came_after_the_pinned_snapshot(
    rt: Runtime, claude: FakeAnthropic
) -> None:
    """The changes_since tool shows the commits after the thread's snapshot, not before."""
    take_turn(rt, _q("first?", n=1))  # pins version 1 at the seeded tip
    rt.store.write([AddEntry("services/checkout-api.md", "a later fact")], author=ALICE,
                   message="later: a fact about checkout-api")  # fmt: skip
    claude.script(claude.tool_use("changes_since", {}), claude.text("Something changed."))
    take_turn(rt, _q("what changed?", n=2))
    turns = [b for b in claude.requests if b["model"] == "claude-sonnet-5-5"]
    result = turns[-1]["messages"][-1]["content"][0]
    assert result["type"] == "tool_result" and result["is_error"] is False
    assert "alice: later: a fact about checkout-api [services/checkout-api.md]" in result["content"]
    assert "seed" not in result["content"]


def test_a_redelivered_task_posts_nothing_twice(
    rt: Runtime, claude: FakeAnthropic, slack_fake: SlackFake
) -> None:
    """The same event id run twice answers once."""
    claude.default = lambda body: claude.text("once")
    kwargs = {"channel": "C111", "text": "why?", "user": "W222", "ts": "1700000000.000500",
              "thread_ts": "", "key": "slack:EvD"}  # fmt: skip
    answer.apply(kwargs=kwargs)
    answer.apply(kwargs=kwargs)
    assert len(slack_fake.posts()) == 1
    assert slack_fake.posts()[0]["thread_ts"] == "1700000000.000500"


def test_an_empty_memory_gets_a_clear_answer(
    tmp_path: Path, slack_fake: SlackFake, redis_url: str
) -> None:
    """A memory repository with no commits: the thread hears what to do, nothing crashes."""
    config = _config(tmp_path, slack_fake, None, redis_url)
    pygit2.init_repository(config.memory_remote, bare=True)
    rt = Runtime(config)
    try:
        make_celery(rt)  # the current app: `answer.apply` runs on this Runtime
        kwargs = {"channel": "C111", "text": "why?", "ts": "1700000000.000600", "key": "EvE"}
        answer.apply(kwargs=kwargs)
        (reply,) = slack_fake.posts()
        assert reply["text"].startswith("Sorry, I could not answer:")
        assert "hippo init" in reply["text"]
    finally:
        rt.close()


@pytest.mark.parametrize(
    ("text", "agent"),
    [
        ("why does checkout-api return 504s after deploys?", True),
        ("explain the deploy freeze", True),
        ("the build is green?", True),
        ("help", False),
        ("thanks", False),
        ("", False),
    ],
)
def test_questions_route_to_the_agent(text: str, agent: bool) -> None:
    """Questions and requests are the agent's; anything else is left to help."""
    assert (parse(text) is not None) is agent


def test_the_digest_reports_the_agents_cache_hits(rt: Runtime, claude: FakeAnthropic) -> None:
    """Turn usage lands in per-day counters, and the dream's digest shows the cache share."""
    from jobs.agent.turn import agent_usage
    from memory.dream import digest
    from memory.dream.report import Report

    claude.default = lambda body: claude.text("An answer.")
    take_turn(rt, _q("first?", n=1))
    take_turn(rt, _q("second?", n=2))
    usage = agent_usage(rt.redis, datetime.now(UTC).date().isoformat())
    assert usage["turns"] == 2 and usage["cache_read"] > 0 and usage["cache_write"] > 0
    report = Report("2026-11-29", extra={"agent_usage": usage})
    line = digest.blocks(report, console_url="http://hippo.test/console")[-1]["elements"][0]
    assert "agent: 2 turns" in line["text"] and "of prompt tokens read from cache" in line["text"]


def test_a_pinned_thread_reads_the_newest_files(rt: Runtime, claude: FakeAnthropic) -> None:
    """The thread keeps its first snapshot in the prompt, yet read_file sees edits made since."""
    claude.default = lambda body: claude.text("An answer.")
    take_turn(rt, _q("first?", n=1))
    edit = rt.store.write([AddEntry("MEMORY.md", "deploys moved to 11:00")], author=ALICE,
                          message="edit")  # fmt: skip
    assert snapshot.publish_if_index_changed(rt.store, edit) is not None
    claude.script(claude.tool_use("read_file", {"path": "MEMORY.md"}), claude.text("11:00 now."))
    take_turn(rt, _q("when are deploys?", n=2))
    last = [b for b in claude.requests if b["model"] == "claude-sonnet-5-5"][-1]
    assert 'version="1"' in last["system"][1]["text"] and "11:00" not in last["system"][1]["text"]
    result = last["messages"][-1]["content"][0]
    assert result["is_error"] is False and "deploys moved to 11:00" in result["content"]


def test_timeouts_to_the_end_offer_try_again(
    tmp_path: Path, slack_fake: SlackFake, claude: FakeAnthropic, redis_url: str
) -> None:
    """Claude not answering within HIPPO_LLM_TIMEOUT through every retry: Try again, no push."""
    rt = Runtime(replace(_config(tmp_path, slack_fake, claude, redis_url), llm_timeout=0.2))
    try:
        rt.store.init()
        rt.store.write([WriteFile("services/checkout-api.md", TOPIC)], author=ALICE, message="s")
        make_celery(rt)  # the current app: `answer.apply` runs on this Runtime
        claude.default = lambda body: claude.slow(1.0)
        head = rt.store.head()
        kwargs = {"channel": "C111", "text": "why?", "ts": "1700000000.000800", "event_id": "EvT"}
        answer.apply(kwargs=kwargs, retries=MAX_RETRIES)  # the last Celery attempt
        assert len(claude.requests) == 4  # the SDK's own tries, each cut off by the timeout
        (msg,) = slack_fake.posts()
        assert "could not be reached in time" in msg["text"]
        assert msg["blocks"][1]["elements"][0]["value"] == "EvT"
        assert rt.store.sync() == head and not _archive(rt)
    finally:
        rt.close()


def test_models_and_timeout_come_from_the_environment() -> None:
    """HIPPO_MODEL, HIPPO_SMALL_MODEL and HIPPO_LLM_TIMEOUT are read once, with defaults."""
    env = {"ANTHROPIC_API_KEY": "k", "HIPPO_MODEL": "claude-x", "HIPPO_SMALL_MODEL": "claude-y",
           "HIPPO_LLM_TIMEOUT": "7.5"}  # fmt: skip
    config = Config.from_env(env)
    assert (config.model, config.small_model, config.llm_timeout) == ("claude-x", "claude-y", 7.5)
    llm = Runtime(config).llm
    assert llm is not None and llm.timeout == 7.5
    default = Config.from_env({})
    assert (default.model, default.small_model, default.llm_timeout) == (
        "claude-sonnet-5-5",
        "claude-haiku-5-5",
        60.0,
    )


def test_an_agent_edit_of_memory_md_publishes_a_snapshot(
    rt: Runtime, claude: FakeAnthropic
) -> None:
    """The agent's pushed MEMORY.md edit is the next version; its own thread keeps the old one."""
    claude.script(
        claude.tool_use(
            "replace_in_file",
            {"path": "MEMORY.md", "old": "- deploys at 10:00", "new": "- deploys at 11:00"},
        ),
        claude.text("Saved."),
    )
    claude.default = lambda body: claude.text("ok")
    out = take_turn(rt, _q("deploys moved to 11:00, update memory", n=1))
    assert out.version == 1 and out.files_touched == ["MEMORY.md"]
    newest = snapshot.latest(rt.store)
    assert newest is not None and (newest.version, newest.commit) == (2, out.commit)
    assert "deploys at 11:00" in newest.text


def test_changes_since_a_date(rt: Runtime) -> None:
    """`changes_since` with an ISO date lists the commits from that day on, like git log --since."""
    changes = changes_since(rt, pinned="")
    assert "alice: seed [" in changes("2000-01-01")
    assert changes("2999-01-01") == "nothing changed since then"


@pytest.mark.integration
def test_a_guests_question_is_answered_but_the_agent_writes_nothing(
    rt: Runtime, claude: FakeAnthropic, slack_fake: SlackFake
) -> None:
    """Issue 37: a Slack guest may ask (the channel reads the answer), but the agent answering
    them is offered only the reading tools; a write it tries anyway is refused as a tool error,
    and no commit lands. A member's same question in another thread writes (the control)."""
    slack_fake.users["W0GUEST"] = {"is_restricted": True}
    write = {"path": "services/new.md", "content": "# new\n\n- the guest's fact\n"}
    claude.script(
        claude.tool_use("write_file", write),
        claude.text("Noted."),
        claude.text("{}"),  # the episode's summary
    )
    client = create_app(rt.config, rt).test_client()
    head = rt.store.head()
    with worker_thread(make_celery(rt)):
        body = mention("why do deploys fail on Fridays?", event_id="EvG1")
        body["event"]["user"] = "W0GUEST"
        assert post(client, body).status_code == 200
        slack_fake.wait_for("chat.postMessage")
    turn = next(b for b in claude.requests if b["model"] == "claude-sonnet-5-5")
    offered = {t["name"] for t in turn["tools"]}
    assert offered and not offered & {"write_file", "replace_in_file", "delete_file"}
    second = [b for b in claude.requests if b["model"] == "claude-sonnet-5-5"][1]
    result = second["messages"][-1]["content"][0]
    assert result["is_error"] and "unknown tool 'write_file'" in result["content"]
    rt.store.sync()
    assert rt.store.read_or_none("services/new.md") is None
    assert [c.author for c in rt.store.log(limit=5) if c.author.startswith("hippo for")] == []
    assert head in [c.sha for c in rt.store.log(limit=5)]
