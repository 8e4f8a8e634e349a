"""Demo step: the GitHub app learns a convention from two agent pull requests people fixed alike.

A replay, announced as one: the webhook deliveries in bot/samples/github/deliveries.json go
through the real route (signed with the demo's secret), a real Celery worker runs the task, and
PyGithub reads the GitHub API answers in bot/samples/github/api.json from a loopback server
started here. Both files are derived from the conformance recordings (see their README).
"""

from __future__ import annotations

import base64
import json
import threading
import time
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from bot.app import create_app
from demo.context import Demo
from integrations.github import sign
from integrations.slack import Outbox
from jobs.celery_app import make_celery
from jobs.runtime import Runtime
from memory import format as fmt
from memory.lessons.gate import conventions_path

SAMPLES = Path(__file__).resolve().parent / "samples" / "github"
SECRET = "demo-webhook-secret"
REPO = "acme/shop"
CHANNEL = "#shop-dev"


class Replay:
    """The recorded GitHub REST answers on 127.0.0.1:<free port>, api.github.com rewritten."""

    def __init__(self, recorded: dict[str, Any]) -> None:
        self.routes: dict[str, Any] = recorded["routes"]
        self.contents: dict[str, dict[str, dict[str, str]]] = recorded["contents"]
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.served = 0

    def __enter__(self) -> Replay:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def answer(self, method: str, target: str) -> tuple[int, Any]:
        parts = urlsplit(target)
        head, found, path = parts.path.partition("/contents/")
        if found:
            repo = head.removeprefix("/repos/")
            ref = parse_qs(parts.query).get("ref", [""])[0]
            text = self.contents.get(repo, {}).get(ref, {}).get(unquote(path))
            if text is None:
                return 404, {"message": "Not Found"}
            data = base64.b64encode(text.encode()).decode()
            return 200, {"type": "file", "encoding": "base64", "content": data, "path": path}
        body = self.routes.get(f"{method} {parts.path}")
        return (404, {"message": "Not Found"}) if body is None else (200, body)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        replay = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                status, body = replay.answer("GET", self.path)
                replay.served += 1
                raw = json.dumps(body).replace("https://api.github.com", replay.url).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler


def _wait(check: Any, timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.1)
    raise RuntimeError("the GitHub task did not finish in time; is the Celery worker running?")


def _lessons(rt: Runtime) -> list[fmt.Entry]:
    text = rt.store.read_or_none(conventions_path(REPO))
    return fmt.parse(text).entries if text else []


def run(ctx: Demo) -> None:
    from celery.contrib.testing.worker import start_worker  # an in-process worker thread

    deliveries = json.loads((SAMPLES / "deliveries.json").read_text())
    ctx.heading("github: REPLAY of two agent pull requests people edited the same way")
    ctx.say(f"recorded webhook deliveries and GitHub API answers from {SAMPLES}")
    with Replay(json.loads((SAMPLES / "api.json").read_text())) as api:
        ctx.say(f"GitHub API replay on {api.url} (no network)")
        config = replace(
            ctx.rt.config,
            redis_url=ctx.rt.redis_url,  # share the demo's Redis rather than start another
            github_api_url=api.url,
            github_token="demo-replay",
            github_app_id="",
            github_webhook_secret=SECRET,
            slack_bot_token="",  # the note goes to the console outbox
            repo_channels={REPO: CHANNEL},
        )
        rt = Runtime(config)
        rt.store.init()
        web = create_app(config, rt).test_client()
        with start_worker(make_celery(rt), pool="solo", perform_ping_check=False):
            _replay(ctx, rt, web, deliveries)
        ctx.say(f"GitHub API requests served by the replay: {api.served}")


def _post(web: Any, item: dict[str, Any]) -> Any:
    raw = json.dumps(item["body"]).encode()
    headers = {
        "X-GitHub-Event": item["event"],
        "X-GitHub-Delivery": item["delivery"],
        "X-Hub-Signature-256": sign(SECRET, raw),  # re-signed: recordings carry no secret
        "Content-Type": "application/json",
    }
    return web.post("/github/webhook", data=raw, headers=headers)


def _replay(ctx: Demo, rt: Runtime, web: Any, deliveries: list[dict[str, Any]]) -> None:
    forged = web.post(
        "/github/webhook",
        data=json.dumps(deliveries[1]["body"]).encode(),
        headers={"X-GitHub-Event": "pull_request", "X-Hub-Signature-256": "sha256=00"},
    )
    ctx.say(f"a forged delivery → {forged.status_code} {forged.json}")
    closed = 0
    for item in deliveries:
        body = item["body"]
        pr = body["pull_request"]
        answer = _post(web, item)
        ctx.say(
            f"delivery {item['delivery'][:13]}… pull_request {body['action']} "
            f"#{pr['number']} by {body['sender']['login']} → {answer.status_code} {answer.json}"
        )
        if body["action"] != "closed":
            continue
        closed += 1
        want = "tentative" if closed == 1 else "active"
        entry = _wait(lambda w=want: next((e for e in _lessons(rt) if e.get("status") == w), None))
        ctx.say(f"  {conventions_path(REPO)} now reads:")
        ctx.say(f"  {entry.render()}")
    again = _post(web, deliveries[-1])
    ctx.say(f"the same delivery redelivered → {again.status_code} {again.json}")
    for note in Outbox(rt.redis).messages():
        if note.get("channel") == CHANNEL:
            ctx.say(f"outbox → {CHANNEL}: {note['text']}")
    day = sorted(rt.store.files("archive/"))[-1]
    for line in rt.store.read(day).splitlines():
        record = json.loads(line)
        if record.get("type") == "pr_outcome":
            ctx.say(f"{day}: #{record['number']} {record['outcome']} {record['stats']}")
