"""A loopback fake of the Anthropic Messages API for the real `anthropic.Anthropic` client.

    with FakeAnthropic() as fake:
        fake.script(fake.tool_use("search", {"query": "504"}), fake.text("Because…"))
        client = anthropic.Anthropic(api_key="test", base_url=fake.url, max_retries=0)

Replies are served in the order scripted (`text`, `tool_use`, `error`, `slow`); when the script
runs out, `default` (a callable of the request body) answers, else a plain text reply. Every
request body is recorded in `requests`. Usage is computed like the provider's prompt cache does:
the prefix up to the last block marked `cache_control` (tools, then system, then messages) is
written the first time it is seen and read afterwards, so tests can assert cache hits without
scripting numbers.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.fakes.loopback import LoopbackServer

Body = dict[str, Any]


@dataclass
class Reply:
    status: int = 200
    body: Body = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    usage: dict[str, int] | None = None  # None: computed from the request (see module docstring)
    delay: float = 0.0  # seconds to wait before answering (a client timeout shorter than it fires)


_ERROR_TYPES = {429: "rate_limit_error", 529: "overloaded_error", 500: "api_error"}


class FakeAnthropic:
    """POST /v1/messages on 127.0.0.1:<port 0>, scripted, recording every request body."""

    def __init__(self) -> None:
        self.requests: list[Body] = []
        self.usages: list[dict[str, int]] = []
        self.default: Callable[[Body], Reply] | None = None
        self._script: list[Reply] = []
        self._seen_prefixes: set[str] = set()
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._server = LoopbackServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> FakeAnthropic:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    # --- scripting -------------------------------------------------------------------------

    def script(self, *replies: Reply) -> None:
        with self._lock:
            self._script.extend(replies)

    def text(self, text: str, *, usage: dict[str, int] | None = None) -> Reply:
        return Reply(body=self._message([{"type": "text", "text": text}], "end_turn"), usage=usage)

    def refusal(self) -> Reply:
        """The model declining to answer (`stop_reason: refusal`, no text)."""
        return Reply(body=self._message([], "refusal"))

    def tool_use(self, name: str, tool_input: Body, *, text: str = "") -> Reply:
        blocks: list[Body] = [{"type": "text", "text": text}] if text else []
        blocks.append(
            {
                "type": "tool_use",
                "id": f"toolu_{next(self._ids):04d}",
                "name": name,
                "input": tool_input,
            }
        )
        return Reply(body=self._message(blocks, "tool_use"))

    def error(self, status: int, *, retry_after: str = "0", retry_after_ms: str = "1") -> Reply:
        """An API error; the SDK waits retry-after-ms (1 ms here) before it retries."""
        kind = _ERROR_TYPES.get(status, "api_error")
        body = {"type": "error", "error": {"type": kind, "message": f"fake {kind}"}}
        headers = {"retry-after": retry_after, "retry-after-ms": retry_after_ms}
        return Reply(status=status, body=body, headers=headers)

    def slow(self, seconds: float, text: str = "too late") -> Reply:
        """A text reply sent only after `seconds`: a client with a shorter timeout gives up."""
        return Reply(
            body=self._message([{"type": "text", "text": text}], "end_turn"), delay=seconds
        )

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._script)

    def _message(self, content: list[Body], stop: str) -> Body:
        return {
            "id": f"msg_{next(self._ids):04d}",
            "type": "message",
            "role": "assistant",
            "model": "fake",
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
        }

    # --- serving ---------------------------------------------------------------------------

    def _answer(self, body: Body) -> Reply:
        with self._lock:
            self.requests.append(body)
            reply = self._script.pop(0) if self._script else None
        if reply is None:
            reply = self.default(body) if self.default else self.text("(fake: nothing scripted)")
        if reply.delay:
            time.sleep(reply.delay)
        if reply.status == 200:
            usage = reply.usage if reply.usage is not None else self._usage(body)
            with self._lock:
                self.usages.append(usage)
            reply = Reply(200, {**reply.body, "model": body.get("model", "fake"), "usage": usage})
        return reply

    def _usage(self, body: Body) -> dict[str, int]:
        """Tokens ≈ characters / 4. Like the provider: a prefix ending at a `cache_control` mark
        is written to the cache; a later request reads the longest prefix written before (marks
        themselves do not change the key, so a mark may move along as the thread grows)."""
        parts: list[Any] = [("role", "tools"), *body.get("tools", [])]
        system = body.get("system", [])
        parts += [{"type": "text", "text": system}] if isinstance(system, str) else system
        for message in body.get("messages", []):
            content = message.get("content")
            parts.append(("role", message.get("role")))
            parts += [{"type": "text", "text": content}] if isinstance(content, str) else content
        keys, sizes, running = [], [0], hashlib.sha256()
        for part in parts:
            plain = (
                {k: v for k, v in part.items() if k != "cache_control"}
                if isinstance(part, dict)
                else part
            )
            raw = json.dumps(plain, sort_keys=True)
            running.update(raw.encode())
            keys.append(running.copy().hexdigest())
            sizes.append(sizes[-1] + len(raw) // 4)
        marks = [i + 1 for i, p in enumerate(parts) if isinstance(p, dict) and "cache_control" in p]
        with self._lock:
            read = max((i + 1 for i, k in enumerate(keys) if k in self._seen_prefixes), default=0)
            self._seen_prefixes.update(keys[m - 1] for m in marks)
        written = max([*marks, read])
        return {
            "input_tokens": sizes[-1] - sizes[written],
            "output_tokens": 20,
            "cache_creation_input_tokens": sizes[written] - sizes[read],
            "cache_read_input_tokens": sizes[read],
        }

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                if self.path.split("?")[0] != "/v1/messages":
                    self._send(
                        Reply(
                            404,
                            {
                                "type": "error",
                                "error": {"type": "not_found_error", "message": self.path},
                            },
                        )
                    )
                    return
                self._send(fake._answer(json.loads(raw or b"{}")))

            def _send(self, reply: Reply) -> None:
                data = json.dumps(reply.body).encode()
                self.send_response(reply.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for k, v in reply.headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                pass  # keep pytest output clean

        return Handler
