"""Demo step: a day of Slack requests through the real front door, a real worker, the outbox.

The web app is served on a free port (real HTTP); each request in bot/samples/slack/day.json is
signed with the demo's secret and POSTed to /slack/events; a Celery worker (embedded Redis) runs
the tasks; with no Slack token every reply goes to the console outbox. Then the outbox and the
memory log are printed.
"""

from __future__ import annotations

import json
import logging
import time
import urllib.error
import urllib.request
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from slack_sdk.signature import SignatureVerifier

from bot.app import create_app
from bot.cli.server import serve_in_thread
from demo.context import Demo
from integrations.slack_post import Outbox
from jobs.celery_app import make_celery
from jobs.runtime import Runtime

DAY = Path(__file__).resolve().parent / "samples" / "slack" / "day.json"
SECRET = "demo-signing-secret"
BOT = "U0HIPPO"


def request_body(item: dict[str, Any], channel: dict[str, str], base: int) -> tuple[str, str]:
    """(raw body, content type) for one sample request, shaped as Slack sends it."""
    ts = f"{base + int(item.get('ts', 0))}.000100"
    thread = f"{base + int(item['thread'])}.000100" if "thread" in item else None
    if item["kind"] == "command":
        fields = {
            "command": "/hippo",
            "text": item["text"],
            "user_id": item["user"],
            "channel_id": channel["id"],
            "channel_name": channel["name"],
            "team_id": "T0DEMO",
            "trigger_id": item["trigger"],
            "response_url": "https://hooks.slack.com/x",
        }
        return urlencode(fields), "application/x-www-form-urlencoded"
    if item["kind"] == "shortcut":
        message = {"type": "message", "user": "U0DAN", "text": item["text"], "ts": ts}
        payload = {
            "type": "message_action",
            "callback_id": "save_to_memory",
            "trigger_id": item["trigger"],
            "user": {"id": item["user"]},
            "team": {"id": "T0DEMO"},
            "channel": channel,
            "message_ts": ts,
            "message": message,
        }
        return urlencode({"payload": json.dumps(payload)}), "application/x-www-form-urlencoded"
    event: dict[str, Any] = {
        "type": "app_mention" if item["kind"] == "mention" else "message",
        "user": item["user"],
        "text": f"<@{BOT}> {item['text']}",
        "channel": channel["id"],
        "ts": ts,
        "event_ts": ts,
    }
    if thread:
        event["thread_ts"] = thread
    body = {
        "type": "event_callback",
        "team_id": "T0DEMO",
        "api_app_id": "A0DEMO",
        "event_id": item["event"],
        "event_time": base,
        "event": event,
        "authorizations": [{"user_id": BOT, "is_bot": True, "team_id": "T0DEMO"}],
    }
    return json.dumps(body), "application/json"


def slack_headers(secret: str, raw: str, ctype: str) -> dict[str, str]:
    """The headers Slack signs a request with (v0 HMAC-SHA256 of timestamp and body)."""
    ts = str(int(time.time()))
    signature = SignatureVerifier(secret).generate_signature(timestamp=ts, body=raw) or ""
    return {"Content-Type": ctype, "X-Slack-Request-Timestamp": ts, "X-Slack-Signature": signature}


def send(url: str, raw: str, ctype: str, retry: int = 0) -> tuple[int, str, float]:
    """POST a signed request; (status, response body, milliseconds)."""
    headers = slack_headers(SECRET, raw, ctype)
    if retry:
        headers.update({"X-Slack-Retry-Num": str(retry), "X-Slack-Retry-Reason": "http_timeout"})
    started = time.perf_counter()
    req = urllib.request.Request(url, data=raw.encode(), headers=headers, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            status, text = resp.status, resp.read().decode()
    except urllib.error.HTTPError as exc:
        status, text = exc.code, exc.read().decode()
    return status, text, (time.perf_counter() - started) * 1000


def wait_for(box: Outbox, count: int, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while len(box.messages(1000)) < count:
        if time.monotonic() > deadline:
            raise RuntimeError("the Slack tasks did not finish in time; is the worker running?")
        time.sleep(0.02)


def run(ctx: Demo) -> None:
    from demo.worker import worker_thread  # an in-process worker thread

    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # one line per request is noise here
    day = json.loads(DAY.read_text())
    # Offline whatever the environment says: the demo never posts to a real workspace.
    config = replace(
        ctx.rt.config, redis_url=ctx.rt.redis_url, slack_bot_token="", slack_signing_secret=SECRET
    )
    rt = Runtime(config)
    box = rt.outbox
    ctx.heading("slack: a day in #" + day["channel"]["name"] + " through /slack/events")
    web = serve_in_thread(create_app(config, rt))
    url = f"http://127.0.0.1:{web.server_port}/slack/events"
    base, posted = int(time.time()) - 3600, len(box.messages(1000))
    try:
        with worker_thread(make_celery(rt)):
            for item in day["requests"]:
                raw, ctype = request_body(item, day["channel"], base)
                status, text, ms = send(url, raw, ctype, int(item.get("retry", 0)))
                ctx.say(f"→ {item['user']} ({item['kind']}): {item['text'][:70]}")
                answer = f"; answered: {text.splitlines()[0][:70]}" if text else ""
                ctx.say(f"  {status} in {ms:.0f} ms — {item['why']}{answer}")
                posted += int(item["expect"])
                wait_for(box, posted)
    finally:
        web.shutdown()
    ctx.heading("slack: the console outbox (what hippo would have posted; also GET /outbox)")
    for m in box.messages(1000)[-sum(int(i["expect"]) for i in day["requests"]) :]:
        where = f"{m['channel']}" + (f" thread {m['thread_ts']}" if m.get("thread_ts") else "")
        verb = "edited" if m["kind"] == "update" else "posted"
        ctx.say(f"[{verb} in {where}] {m['text']}")
    ctx.heading("slack: the memory log")
    for c in rt.store.log(limit=8):
        ctx.say(f"{c.short} {c.author:<12} {c.summary}")
