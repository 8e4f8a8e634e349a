"""Credentials for the memory remote over the network: callbacks, timeouts, push results, and
errors that never print a credential.

libgit2 (through pygit2) does the transport. What it leaves to us:
- credentials: asked for by a callback; a wrong password is asked for again and again, so the
  callback answers once per operation and then fails with a named error;
- push results: a ref update the server refuses (stale old value, hook, protected branch) is
  reported per ref through `push_update_reference`, and `Remote.push` does not raise for it;
- timeouts: process-wide settings (`pygit2.settings.server_*timeout`), or a server that accepts
  and never answers hangs the caller;
- SSH host keys: libgit2 checks them against `<home>/.ssh/known_hosts`; we point its home at a
  folder holding the configured known-hosts file and refuse a host that is not in it.
"""

from __future__ import annotations

import base64
import os
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from urllib.parse import unquote, urlsplit, urlunsplit

import pygit2
from pygit2.enums import CredentialType

from memory.errors import RemoteAuthError, RemoteError, RemoteUnreachable

DEFAULT_USERNAME = "x-access-token"  # what GitHub expects with a token; GitLab accepts any name
_USERINFO = re.compile(r"(?i)([a-z][a-z0-9+.-]*://)[^/@\s]*@")


@dataclass(frozen=True)
class RemoteAuth:
    """How hippo authenticates to the memory remote. Empty fields are unused.

    HTTPS: `token` (or `token_provider`, called for each connection, e.g. a GitHub App
    installation token that refreshes itself) sent as basic auth with `username`.
    SSH: `ssh_key` (a private key file; `<key>.pub` beside it or derived by libssh2) with an
    optional `ssh_passphrase`, else the running ssh-agent; host keys checked against
    `known_hosts` unless `ssh_insecure` (tests and first setup only: it trusts any host).
    """

    username: str = ""
    token: str = field(default="", repr=False)
    token_provider: Callable[[], str] | None = field(default=None, repr=False, compare=False)
    ssh_key: str = ""
    ssh_passphrase: str = field(default="", repr=False)
    known_hosts: str = ""
    ssh_insecure: bool = False
    timeout: float = 30.0  # seconds for a connection to open, and for each read or write

    def secrets(self) -> list[str]:
        """Every credential value this auth could print, for scrubbing messages."""
        return [s for s in (self.token, self.ssh_passphrase) if s]


def split_url(remote: str, auth: RemoteAuth) -> tuple[str, RemoteAuth]:
    """`https://user:token@host/x.git` → the URL without user-info, and auth holding them
    (settings win over the URL). Only the clean URL is stored in the cache's config."""
    parts = urlsplit(remote)
    if "://" not in remote or "@" not in parts.netloc or parts.scheme in ("ssh", "git+ssh"):
        return remote, auth
    userinfo, _, host = parts.netloc.rpartition("@")
    user, _, password = userinfo.partition(":")
    clean = urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))
    if password and not (auth.token or auth.token_provider):
        auth = replace(auth, token=unquote(password), username=auth.username or unquote(user))
    return clean, auth


def redact(text: str, secrets: list[str] | tuple[str, ...] = ()) -> str:
    """`text` with every URL's user-info and every known secret removed."""
    out = _USERINFO.sub(r"\1", text)
    for secret in secrets:
        if len(secret) >= 4:
            out = out.replace(secret, "***")
    return out


_ZERO = pygit2.Oid(hex="0" * 40)


class RemoteMoved(Exception):
    """The remote branch is not at the commit a push was built on: fetch and re-apply."""


class Callbacks(pygit2.RemoteCallbacks):
    """One network operation's callbacks: credentials once, host check, push results."""

    def __init__(self, auth: RemoteAuth, url: str) -> None:
        super().__init__()
        self.auth = auth
        self.url = url
        self.asked = 0
        self.rejected: dict[str, str] = {}
        self.said: list[str] = []  # what the server printed ("remote: …"), e.g. a hook's reason
        self.expect: dict[str, str | None] = {}  # ref → the remote value a push was built on

    def credentials(
        self, url: str, username_from_url: str | None, allowed_types: CredentialType
    ) -> pygit2.UserPass | pygit2.Keypair | pygit2.KeypairFromAgent | pygit2.Username:
        self.asked += 1
        if self.asked > 2:  # libgit2 asks again after a refusal, forever
            raise RemoteAuthError(redact(self.url), self._method())
        auth = self.auth
        if allowed_types & CredentialType.USERPASS_PLAINTEXT:
            token = auth.token_provider() if auth.token_provider else auth.token
            if not token:
                raise RemoteAuthError(redact(self.url), "none")
            return pygit2.UserPass(auth.username or DEFAULT_USERNAME, token)
        user = username_from_url or auth.username or "git"
        if allowed_types & CredentialType.USERNAME:
            return pygit2.Username(user)
        if allowed_types & CredentialType.SSH_KEY:
            if auth.ssh_key:
                public = auth.ssh_key + ".pub"
                return pygit2.Keypair(
                    user,
                    public if os.path.exists(public) else None,
                    auth.ssh_key,
                    auth.ssh_passphrase,
                )
            return pygit2.KeypairFromAgent(user)
        raise RemoteAuthError(redact(self.url), self._method())

    def custom_headers(self) -> list[str] | None:
        """Basic auth with the first request over HTTP(S). Without it every fetch and push
        opens with a request the server refuses (401) before libgit2 asks `credentials`: one
        of a push's three requests, 300 ms each on a slow host. The same credentials libgit2
        would send after the refusal, to the same URL; a wrong one is still refused, and
        `credentials` is then asked once more before the named error."""
        auth = self.auth
        if not self.url.startswith(("https://", "http://")) or not (
            auth.token or auth.token_provider
        ):
            return None
        token = auth.token_provider() if auth.token_provider else auth.token
        if not token:
            return None
        self.asked += 1
        pair = f"{auth.username or DEFAULT_USERNAME}:{token}".encode()
        return [f"Authorization: Basic {base64.b64encode(pair).decode('ascii')}"]

    def certificate_check(self, certificate: None, valid: bool, host: bytes) -> bool:
        # HTTPS: libgit2 verified the chain (valid). SSH: `valid` is libgit2's known_hosts
        # check, against the file `ssh_home` installed.
        return bool(valid) or (self.auth.ssh_insecure and self.url_is_ssh())

    def push_update_reference(self, refname: str, message: str | None) -> None:
        if message is not None:
            self.rejected[refname] = message

    def push_negotiation(self, updates: list[pygit2.remotes.PushUpdate]) -> None:
        """Before any object is sent: abort when the server's branch is not the commit the
        push was built on (a person's force-push back, or a tip we had not fetched). The server
        checks the same under its ref lock; this catches what a fast-forward would hide."""
        for update in updates:
            if update.dst_refname in self.expect:
                current = None if update.src == _ZERO else str(update.src)
                if current != self.expect[update.dst_refname]:
                    raise RemoteMoved(update.dst_refname)

    def sideband_progress(self, string: str) -> None:
        for line in string.replace("\r", "\n").split("\n"):  # git's lines (progress: "\r")
            line = line.strip()
            if line and not _PROGRESS.match(line) and len(self.said) < 20:
                self.said.append(line[:300])

    def server_said(self) -> str:
        return " ".join(self.said[-5:])

    def url_is_ssh(self) -> bool:
        return is_ssh(self.url)

    def _method(self) -> str:
        if is_ssh(self.url):
            return "ssh-key" if self.auth.ssh_key else "ssh-agent"
        return "token" if (self.auth.token or self.auth.token_provider) else "none"


def is_ssh(url: str) -> bool:
    return url.startswith(("ssh://", "git+ssh://")) or bool(re.match(r"^[\w.-]+@[\w.-]+:", url))


_settings_lock = threading.Lock()


def apply_settings(auth: RemoteAuth, data_dir: Path | None) -> None:
    """Process-wide libgit2 settings: timeouts, and the known-hosts file for SSH."""
    ms = max(1, int(auth.timeout * 1000))
    with _settings_lock:
        pygit2.settings.server_connect_timeout = ms
        pygit2.settings.server_timeout = ms
        if auth.known_hosts and data_dir is not None:
            home = data_dir / "ssh-home"
            (home / ".ssh").mkdir(parents=True, exist_ok=True)
            target = home / ".ssh" / "known_hosts"
            source = Path(auth.known_hosts).read_bytes()
            if not target.exists() or target.read_bytes() != source:
                tmp = target.with_suffix(f".{os.getpid()}.tmp")
                tmp.write_bytes(source)
                os.replace(tmp, target)
            pygit2.settings.homedir = str(home)


def classify(
    exc: BaseException, url: str, auth: RemoteAuth, doing: str
) -> RemoteError | RemoteAuthError:
    """A transport failure as a named error, with every credential removed."""
    if isinstance(exc, RemoteError | RemoteAuthError):
        return exc
    text = redact(str(exc), auth.secrets())
    low = text.lower()
    shown = redact(url)
    if any(s in low for s in _AUTH_SIGNS):
        method = Callbacks(auth, url)._method()
        return RemoteAuthError(shown, method, detail=text)
    if any(s in low for s in _HOSTKEY_SIGNS):
        return RemoteAuthError(shown, "host-key", detail=text)
    return RemoteUnreachable(shown, doing, text)


_PROGRESS = re.compile(
    r"^(Resolving deltas|Counting objects|Compressing objects|Writing objects|Total|"
    r"Enumerating objects|Unpacking objects)\b"
)
_AUTH_SIGNS = (
    "authentication",
    "401",
    "403",
    "unauthorized",
    "forbidden",
    "permission denied",
    "credentials",
    "access denied",
)
_HOSTKEY_SIGNS = ("hostkey", "host key", "certificate")


def moved_message(message: str) -> bool:
    """Refusals that a fetch and re-apply fixes: the branch moved under us."""
    low = message.lower()
    return any(
        s in low
        for s in ("fetch first", "non-fast-forward", "stale", "failed to lock", "cannot lock")
    )
