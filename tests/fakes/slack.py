"""A loopback fake of Slack's Web API, and signing of inbound Slack requests.

The real `slack_sdk.WebClient` talks to it over HTTP (`base_url=fake.url`). It answers every
method with `{"ok": true}` plus sensible fields (chat.postMessage returns a fresh ts,
chat.getPermalink a permalink, conversations.info a channel name, auth.test the bot), records
every request, and can be scripted: `fake.script("chat.postMessage", (429, {...}, {"Retry-After":
"1"}))` makes the next call answer that first.

    with SlackFake() as fake:
        client = make_web_client("xoxb-test", fake.url)
        ...
        assert fake.calls("chat.postMessage")[0].form["thread_ts"] == "123.456"
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlencode

from slack_sdk.signature import SignatureVerifier

from tests.fakes.loopback import LoopbackServer
from tests.paths import DATA

USERS_INFO = DATA / "slack-web-api" / "java-slack-sdk" / "users.info.json"

BOT_USER = "UHIPPO"
BOT_ID = "BHIPPO"
SECRET = "test-signing-secret"
Reply = tuple[int, dict[str, Any], dict[str, str]]


@dataclass
class Call:
    """One request the fake received."""

    method: str  # HTTP method
    path: str  # e.g. "/chat.postMessage"
    headers: dict[str, str]
    body: bytes
    form: dict[str, Any] = field(default_factory=dict)  # form fields or the JSON body
    at: float = field(default_factory=time.monotonic)  # when it arrived (to check Retry-After)
    status: int = 200  # what the fake answered

    @property
    def api(self) -> str:
        return self.path.strip("/").split("?")[0]

    @property
    def token(self) -> str:
        auth = self.headers.get("Authorization") or self.headers.get("authorization") or ""
        return auth.removeprefix("Bearer ") if auth.startswith("Bearer ") else ""


class SlackFake:
    """Slack's Web API on 127.0.0.1:<random port>, in a daemon thread."""

    def __init__(self) -> None:
        self.requests: list[Call] = []
        self.channels: dict[str, str] = {"C111": "dev"}
        self.messages: dict[tuple[str, str], dict[str, Any]] = {}
        # users.info answers (user id → Slack's user object), user groups (id → member ids),
        # each user's channels (users.conversations), channels hippo is not in (not_in_channel)
        self.users: dict[str, dict[str, Any]] = {}
        self.usergroups: dict[str, list[str]] = {}
        self.memberships: dict[str, list[str]] = {}
        self.not_joined: set[str] = set()
        self.installs: dict[str, dict[str, str]] = {}  # OAuth code → the workspace it installs
        self._scripts: dict[str, deque[Reply]] = {}
        self._delays: dict[str, deque[float]] = {}
        self._outages: dict[str, tuple[float, tuple[int, ...]]] = {}
        self._lock = threading.Lock()
        self._seq = 0
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                fake._serve(self, self.rfile.read(length))

            def do_GET(self) -> None:
                fake._serve(self, b"")

            def log_message(self, format: str, *args: Any) -> None:
                return

        self.server = LoopbackServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        self._thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    def __enter__(self) -> SlackFake:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    # -- scripting and assertions ---------------------------------------------------------------

    def script(self, api: str, *replies: Reply) -> None:
        """Answer the next calls of `api` with these (status, json body, headers), in order."""
        with self._lock:
            self._scripts.setdefault(api, deque()).extend(replies)

    def delay(self, api: str, *seconds: float) -> None:
        """Hold the next calls of `api` this long before answering (a slow Slack)."""
        with self._lock:
            self._delays.setdefault(api, deque()).extend(seconds)

    def outage(self, api: str, seconds: float, statuses: tuple[int, ...] = (429, 500)) -> None:
        """For `seconds`, answer `api` with these statuses in turn (429 with Retry-After: 1)."""
        with self._lock:
            self._outages[api] = (time.monotonic() + seconds, statuses)

    def add_install(self, code: str, team: str, token: str, *, name: str = "") -> None:
        """Let `oauth.v2.access` swap `code` for `token`, the bot token of workspace `team`
        (bot user U<team>, bot B<team>); `auth.test` with that token answers as that bot."""
        self.installs[code] = {"team": team, "token": token, "name": name or team}

    def tokens(self, api: str) -> list[str]:
        """The bearer token of every call of `api`, in order ("" when none was sent)."""
        return [c.token for c in self.calls(api)]

    def calls(self, api: str) -> list[Call]:
        with self._lock:
            return [c for c in self.requests if c.api == api]

    def hooks(self) -> list[Call]:
        """Posts to response URLs (any path under /hooks/ on this server)."""
        with self._lock:
            return [c for c in self.requests if c.path.startswith("/hooks/")]

    def posts(self) -> list[dict[str, Any]]:
        """The form of every chat.postMessage that succeeded-or-not, in order."""
        return [c.form for c in self.calls("chat.postMessage")]

    def wait_for(self, api: str, n: int = 1, timeout: float = 20.0) -> list[Call]:
        """Block until `api` was called `n` times; the calls, or AssertionError."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = self.calls(api)
            if len(found) >= n:
                return found
            time.sleep(0.02)
        raise AssertionError(f"{api} called {len(self.calls(api))} times, wanted {n}")

    def _oauth_access(self, code: str) -> dict[str, Any]:
        with self._lock:
            return _oauth_v2_access(self.installs.get(code))

    # -- serving --------------------------------------------------------------------------------

    def _serve(self, h: BaseHTTPRequestHandler, body: bytes) -> None:
        ctype = h.headers.get("Content-Type") or ""
        form: dict[str, Any]
        if "json" in ctype and body:
            form = json.loads(body)
        else:
            raw = body.decode() or (h.path.split("?", 1)[1] if "?" in h.path else "")
            form = {k: v[0] for k, v in parse_qs(raw).items()}
            for k in ("blocks", "attachments"):
                if isinstance(form.get(k), str):
                    form[k] = json.loads(form[k])
        call = Call(h.command, h.path.split("?")[0], dict(h.headers.items()), body, form)
        with self._lock:
            self.requests.append(call)
            queue = self._scripts.get(call.api)
            scripted = queue.popleft() if queue else None
            delays = self._delays.get(call.api)
            pause = delays.popleft() if delays else 0.0
            until, statuses = self._outages.get(call.api, (0.0, ()))
            if scripted is None and call.at < until:
                failing = statuses[sum(c.api == call.api for c in self.requests) % len(statuses)]
                error = "ratelimited" if failing == 429 else "internal_error"
                retry = {"Retry-After": "1"} if failing == 429 else {}
                scripted = (failing, {"ok": False, "error": error}, retry)
            call.status = scripted[0] if scripted else 200
        if pause:
            time.sleep(pause)
        status, payload, headers = scripted or (200, self._answer(call), {})
        data = json.dumps(payload).encode()
        h.send_response(status)
        h.send_header("Content-Type", "application/json; charset=utf-8")
        h.send_header("Content-Length", str(len(data)))
        for k, v in headers.items():
            h.send_header(k, v)
        h.end_headers()
        h.wfile.write(data)

    def _answer(self, call: Call) -> dict[str, Any]:
        f = call.form
        if call.api == "oauth.v2.access":
            return self._oauth_access(str(f.get("code") or ""))
        installed = next((i for i in self.installs.values() if i["token"] == call.token), None)
        if call.api == "auth.test" and installed is not None:
            team = installed["team"]
            return {
                "ok": True,
                "user_id": f"U{team}",
                "bot_id": f"B{team}",
                "team_id": team,
                "user": "hippo",
                "team": installed["name"],
                "url": f"https://{team.lower()}.slack.com/",
            }
        if call.api == "auth.test":
            return {
                "ok": True,
                "user_id": BOT_USER,
                "bot_id": BOT_ID,
                "team_id": "T111",
                "user": "hippo",
                "team": "Test",
                "url": "https://test.slack.com/",
            }
        if call.api == "chat.postMessage" and f.get("channel") in self.not_joined:
            return {"ok": False, "error": "not_in_channel"}
        if call.api == "chat.postEphemeral" and f.get("channel") in self.not_joined:
            return {"ok": False, "error": "not_in_channel"}
        if call.api == "chat.postEphemeral":
            return {"ok": True, "message_ts": f"{int(time.time())}.000001"}
        if call.api == "users.info":
            user = str(f.get("user"))
            team = installed["team"] if installed is not None else "T111"
            base, over = member(user, team), self.users.get(user, {})
            profile = {**base["profile"], **(over.get("profile") or {})}  # as Slack nests it
            return {"ok": True, "user": {**base, **over, "profile": profile}}
        if call.api == "usergroups.users.list":
            group = str(f.get("usergroup"))
            if group not in self.usergroups:
                return {"ok": False, "error": "no_such_subteam"}
            return {"ok": True, "users": self.usergroups[group]}
        if call.api == "users.conversations":
            ids = self.memberships.get(str(f.get("user")), [])
            found = [{"id": c, "name": self.channels.get(c, c.lower())} for c in ids]
            return {"ok": True, "channels": found, "response_metadata": {"next_cursor": ""}}
        if call.api == "chat.postMessage":
            with self._lock:
                self._seq += 1
                ts = f"{int(time.time())}.{self._seq:06d}"
            message = {"type": "message", "text": f.get("text", ""), "ts": ts, "bot_id": BOT_ID}
            if f.get("thread_ts"):
                message["thread_ts"] = f["thread_ts"]
            return {"ok": True, "channel": f.get("channel"), "ts": ts, "message": message}
        if call.api == "chat.update":
            return {"ok": True, "channel": f.get("channel"), "ts": f.get("ts")}
        if call.api == "chat.getPermalink":
            ts = str(f.get("message_ts", "")).replace(".", "")
            return {
                "ok": True,
                "permalink": f"https://test.slack.com/archives/{f.get('channel')}/p{ts}",
            }
        if call.api == "conversations.info":
            channel = str(f.get("channel"))
            return {
                "ok": True,
                "channel": {"id": channel, "name": self.channels.get(channel, channel.lower())},
            }
        if call.api == "conversations.history":  # top-level messages only, as Slack does
            found = self.messages.get((str(f.get("channel")), str(f.get("latest"))))
            top = found and found.get("thread_ts", found["ts"]) == found["ts"]
            return {"ok": True, "messages": [found] if top else [], "has_more": False}
        if call.api == "conversations.replies":  # the thread's parent always comes first
            channel = str(f.get("channel"))
            found = self.messages.get((channel, str(f.get("ts"))))
            if not found:
                return {"ok": False, "error": "thread_not_found"}
            parent = self.messages.get((channel, found.get("thread_ts", found["ts"])))
            thread = [m for m in (parent, found) if m] if parent is not found else [found]
            return {"ok": True, "messages": thread, "has_more": False}
        return {"ok": True}


def member(user: str, team: str) -> dict[str, Any]:
    """users.info's `user` for a plain member of `team` (no guest, app or admin; outside an
    Enterprise Grid org): the Java SDK's sample of Slack's answer (tests/data/slack-web-api/),
    with their id and workspace. A test's `fake.users[id]` overrides any field of it."""
    sample = json.loads(USERS_INFO.read_text())["user"]
    sample.pop("enterprise_user")
    sample["profile"].pop("bot_id")
    sample["profile"].pop("api_app_id")
    sample["profile"]["team"] = team
    return {**sample, "id": user, "team_id": team, "tz": ""}


def _oauth_v2_access(install: dict[str, str] | None) -> dict[str, Any]:
    """oauth.v2.access's answer for a bot-only install (api.slack.com/methods/oauth.v2.access)."""
    if install is None:
        return {"ok": False, "error": "invalid_code"}
    team = install["team"]
    return {
        "ok": True,
        "app_id": "AHIPPO",
        "authed_user": {"id": f"W{team}"},
        "scope": "app_mentions:read,chat:write,commands",
        "token_type": "bot",
        "access_token": install["token"],
        "bot_user_id": f"U{team}",
        "team": {"id": team, "name": install["name"]},
        "enterprise": None,
        "is_enterprise_install": False,
    }


def signed_headers(
    body: str,
    *,
    secret: str = SECRET,
    timestamp: int | None = None,
    content_type: str = "application/json",
) -> dict[str, str]:
    """Headers Slack would send with `body`, signed with `secret` at `timestamp` (default now)."""
    ts = str(int(time.time()) if timestamp is None else timestamp)
    signature = SignatureVerifier(secret).generate_signature(timestamp=ts, body=body)
    return {
        "Content-Type": content_type,
        "X-Slack-Request-Timestamp": ts,
        "X-Slack-Signature": signature,
    }


def form_body(fields: dict[str, Any]) -> str:
    """A slash command body (form fields) as Slack sends it."""
    return urlencode(fields)


def payload_body(payload: dict[str, Any]) -> str:
    """An interactivity body (shortcut, block action): `payload=<url-encoded JSON>`."""
    return urlencode({"payload": json.dumps(payload)})
