"""Console sessions: the cookie signing key, server-side session records, sign-in throttling.

The cookie only names a session (a random id); who is signed in lives in Redis under the id's
hash with a time to live, so a session ends on logout or after SESSION_TTL wherever the cookie
went. The signing key is never the console token: a signed cookie every visitor gets would let
the token be guessed offline. It is HIPPO_SECRET_KEY, or derived from the Slack client secret,
or generated once and kept (0600) in the data folder.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
from pathlib import Path

import redis
from flask import current_app, g, session
from limits import RateLimitItem, parse_many
from limits.storage import RedisStorage
from limits.strategies import MovingWindowRateLimiter

from integrations.private_files import private_dir
from jobs import keys
from jobs.config import Config

SESSION_TTL = 12 * 3600  # seconds a sign-in lasts, on the server and in the cookie
KEY_FILE = "console-secret-key"
# Failed sign-ins per client address; a success does not count.
SIGN_IN_LIMIT = "10 per minute;100 per day"


def signing_key(config: Config) -> str:
    if config.secret_key:
        return config.secret_key
    if config.slack_client_secret:
        # Every web worker on every host shares it; HIPPO_SECRET_KEY is still recommended.
        digest = hashlib.sha256(b"hippo console session\0" + config.slack_client_secret.encode())
        return digest.hexdigest()
    return persisted_key(Path(config.data_dir))


def persisted_key(folder: Path) -> str:
    """The key in `folder`/console-secret-key, made (0600) by whichever process comes first."""
    path = folder / KEY_FILE
    if not path.exists():
        private_dir(folder)
        tmp = folder / f".{KEY_FILE}.{os.getpid()}.{secrets.token_hex(4)}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(secrets.token_hex(32) + "\n")
        try:
            os.link(tmp, path)  # atomic: fails if another worker linked its key first
        except FileExistsError:
            pass
        finally:
            tmp.unlink()
    if path.stat().st_mode & 0o077:
        path.chmod(0o600)
    key = path.read_text().strip()
    if len(key) < 32:
        raise RuntimeError(f"{path} holds no usable key; delete it and restart to make a new one")
    return key


class SignInThrottle:
    """Failed sign-ins per client address, counted in hippo's Redis (shared by every worker and
    host) with the `limits` library's moving window. Built on first use: creating the app
    starts nothing (gunicorn forks after it)."""

    SCOPE = "hippo-console-sign-in"

    def __init__(self, limits: str = SIGN_IN_LIMIT) -> None:
        self.items: list[RateLimitItem] = parse_many(limits)
        self._limiter: MovingWindowRateLimiter | None = None

    def _get(self) -> MovingWindowRateLimiter:
        if self._limiter is None:
            storage = RedisStorage("redis://", connection_pool=_redis().connection_pool)
            self._limiter = MovingWindowRateLimiter(storage)
        return self._limiter

    def blocked(self, client: str) -> bool:
        limiter = self._get()
        return not all(limiter.test(item, self.SCOPE, client) for item in self.items)

    def failed(self, client: str) -> None:
        limiter = self._get()
        for item in self.items:
            limiter.hit(item, self.SCOPE, client)


def _redis() -> redis.Redis:
    client: redis.Redis = current_app.extensions["hippo"].redis
    return client


def _key(sid: str) -> str:
    # Only the id's hash is stored: reading Redis does not hand out live sessions.
    return keys.console_session(hashlib.sha256(sid.encode()).hexdigest())


def start(user: dict[str, str]) -> None:
    """A new session for `user` (a fresh id: no fixation); the old cookie's session is ended."""
    end()
    sid = secrets.token_urlsafe(32)
    _redis().set(_key(sid), json.dumps(user), ex=SESSION_TTL)
    session["sid"] = sid
    session.permanent = True  # the cookie expires with the server-side record


def end() -> None:
    """End this browser's session on the server and clear its cookie."""
    sid = session.get("sid")
    if isinstance(sid, str):
        with contextlib.suppress(redis.RedisError):
            _redis().delete(_key(sid))
    session.clear()
    g.pop("hippo_user", None)


def user() -> dict[str, str] | None:
    """The signed-in person of this request, or None (no session, ended, or expired)."""
    if "hippo_user" in g:
        found: dict[str, str] | None = g.hippo_user
        return found
    sid = session.get("sid")
    found = None
    if isinstance(sid, str):
        raw = _redis().get(_key(sid))
        if raw is not None:
            data = json.loads(raw)
            found = data if isinstance(data, dict) else None
    g.hippo_user = found
    return found
