"""Demo step: the GitHub app learns a convention from two agent pull requests people fixed alike,
says so on them, and flags the agent repeating the mistake in a third (the check run).

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
from integrations.github_client import sign
from jobs.celery_app import make_celery
from jobs.runtime import Runtime
from memory import format as fmt
from memory.format import lines as textlines
from memory.lessons.planner import conventions_path

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
        self.writes: list[tuple[str, str, Any]] = []  # what hippo posted: check runs, comments

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

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                sent = json.loads(self.rfile.read(length) or b"{}")
                replay.writes.append((self.command, urlsplit(self.path).path, sent))
                status, body = 201, written(len(replay.writes), urlsplit(self.path).path, sent)
                raw = json.dumps(body).replace("https://api.github.com", replay.url).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            do_PATCH = do_POST

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler


def written(n: int, path: str, sent: dict[str, Any]) -> dict[str, Any]:
    """The answer to a write, in GitHub's shape (the fields PyGithub reads)."""
    url = f"https://api.github.com{path}/{n}"
    if path.endswith("/check-runs"):
        output = {**sent.get("output", {}), "annotations_count": len(sent["output"]["annotations"])}
        return {**sent, "id": n, "url": url, "output": output}
    user = {"login": "hippo[bot]", "type": "Bot"}
    when = "2026-12-01T09:00:00Z"
    return {"id": n, "url": url, "body": sent.get("body"), "user": user, "created_at": when}


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
    from demo.worker import worker_thread  # an in-process worker thread

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
        with worker_thread(make_celery(rt)):
            _replay(ctx, rt, web, deliveries, api)
            _repeat(ctx, web, deliveries[0], api)
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


def _replay(
    ctx: Demo, rt: Runtime, web: Any, deliveries: list[dict[str, Any]], api: Replay
) -> None:
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
    for note in rt.outbox.messages():
        if note.get("channel") == CHANNEL:
            ctx.say(f"outbox → {CHANNEL}: {note['text']}")
    _wait(lambda: sum(p.endswith("/comments") for _, p, _ in api.writes) >= 2)
    for method, path, sent in api.writes:
        if path.endswith("/comments") and method == "POST":
            first = sent["body"].splitlines()[1]
            ctx.say(f"GitHub ← comment on #{path.split('/')[-2]}: {first}")
    day = sorted(rt.store.files("archive/"))[-1]
    for line in textlines.split(rt.store.read(day)):
        record = json.loads(line)
        if record.get("type") == "pr_outcome":
            ctx.say(f"{day}: #{record['number']} {record['outcome']} {record['stats']}")


REPEAT = 63
REPEAT_SHA = "63" * 20
REPEAT_PATCH = (  # what the agent's pull request #63 adds: the mistake the lesson names, again
    "@@ -0,0 +1,9 @@\n"
    "+from unittest import mock\n"
    "+\n"
    "+from shop.orders import Order, refund\n"
    "+\n"
    "+\n"
    "+def test_card_refund_goes_back_to_the_card():\n"
    "+    payments = mock.Mock()\n"
    '+    order = Order(gift_card=None, charge_id="ch-1", amount=25)\n'
    "+    assert refund(order, payments) == payments.refund.return_value"
)


def _repeat(ctx: Demo, web: Any, opened: dict[str, Any], api: Replay) -> None:
    """A later agent pull request repeats the mistake: the check run flags its lines."""
    ctx.heading("github: the agent repeats the mistake in pull request #63")
    pull = json.loads(json.dumps(api.routes["GET /repos/acme/shop/pulls/41"]).replace("/41", "/63"))
    pull.update(number=REPEAT, state="open")
    api.routes[f"GET /repos/acme/shop/pulls/{REPEAT}"] = pull
    added = {"filename": "tests/unit/test_refunds.py", "status": "added", "patch": REPEAT_PATCH}
    api.routes[f"GET /repos/acme/shop/pulls/{REPEAT}/files"] = [added]
    body = json.loads(json.dumps(opened["body"]))
    body["number"] = body["pull_request"]["number"] = REPEAT
    body["pull_request"]["head"]["sha"] = REPEAT_SHA
    answer = _post(
        web, {**opened, "body": body, "delivery": "7c1d0063-0000-11ef-8000-0000000000a1"}
    )
    ctx.say(f"pull_request opened #{REPEAT} → {answer.status_code} {answer.json}")

    def run() -> Any:
        runs = [w for w in api.writes if w[1].endswith("/check-runs")]
        return next((sent for _, _, sent in runs if sent["head_sha"] == REPEAT_SHA), None)

    sent = _wait(run)
    ctx.say(f"GitHub ← check run {sent['name']!r}: {sent['conclusion']}, {sent['output']['title']}")
    for note in sent["output"]["annotations"]:
        line = note["raw_details"].strip()
        ctx.say(f"  {note['path']}:{note['start_line']} {note['title']}: {line}")
