"""HTTP status checks that cannot be turned against hippo's own network (SSRF).

Dreaming fetches URLs that came from memory text, which anyone with write access chose. So every
hop (the first URL and each redirect) must be on HIPPO_VERIFY_HOSTS, parsed the way requests and
urllib3 will parse it (`http://127.0.0.1\\@docs.example.com/` connects to 127.0.0.1, whatever
urlsplit says), and must not reach a private, loopback, link-local or otherwise non-global
address unless HIPPO_VERIFY_PRIVATE names it. Addresses are checked twice: every address the name
resolves to before connecting, and the peer of the socket actually connected (a name that
resolves differently the second time gains nothing). Redirects, time and bytes are capped: at
most MAX_REDIRECTS hops, `timeout` per connect and read, `deadline` for the whole check, and no
body is read for a status check (only the status line and headers, whose size http.client
bounds); a declared check's JSON (`get_json`) is read up to MAX_BODY bytes within the deadline.
"""

from __future__ import annotations

import ipaddress
import json
import socket
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin

import requests
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.util import parse_url

MAX_REDIRECTS = 5
MAX_BODY = 1_000_000  # a declared check's JSON answer (get_json)
CHUNK = 16_384
PERMANENT = frozenset({301, 308})


class Refused(Exception):  # not an OSError: urllib3 must not retry or wrap it
    """The URL, a redirect, or the address it reaches is not allowed; the check is not made."""


IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


def _ip(text: str) -> IPAddress:
    ip = ipaddress.ip_address(text.split("%", 1)[0])  # drop an IPv6 zone id
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped  # ::ffff:127.0.0.1 is 127.0.0.1
    return ip


@dataclass(frozen=True)
class PrivateAllowance:
    """One HIPPO_VERIFY_PRIVATE item: an address or network, optionally on one port only."""

    network: ipaddress.IPv4Network | ipaddress.IPv6Network
    port: int | None = None

    @classmethod
    def parse(cls, item: str) -> PrivateAllowance:
        """'10.0.0.0/8', '127.0.0.1', '127.0.0.1:8080', '[::1]:8080'. ValueError if none."""
        text, port = item.strip(), None
        if text.startswith("["):
            host, _, rest = text[1:].partition("]")
            if rest and not rest.startswith(":"):
                raise ValueError(f"{item!r}: expected [address]:port")
            text, port = host, int(rest[1:]) if rest else None
        elif text.count(":") == 1:
            host, _, digits = text.partition(":")
            text, port = host, int(digits)
        return cls(ipaddress.ip_network(text, strict=False), port)

    def covers(self, ip: IPAddress, port: int) -> bool:
        return (
            ip.version == self.network.version
            and ip in self.network
            and (self.port is None or self.port == port)
        )


@dataclass(frozen=True)
class Policy:
    hosts: tuple[str, ...]  # HIPPO_VERIFY_HOSTS: names (subdomains included) or literal addresses
    private: tuple[str, ...] = ()  # HIPPO_VERIFY_PRIVATE: non-global addresses that may be reached
    timeout: float = 10.0
    deadline: float = 30.0
    _private: tuple[PrivateAllowance, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_private", tuple(PrivateAllowance.parse(p) for p in self.private))

    def host_allowed(self, host: str) -> bool:
        host = host.lower().rstrip(".")
        return any(host == h or host.endswith("." + h) for h in (x.lower() for x in self.hosts))

    def address_allowed(self, address: str, port: int) -> bool:
        ip = _ip(address)
        return ip.is_global or any(p.covers(ip, port) for p in self._private)


@dataclass(frozen=True)
class Target:
    url: str  # as requests will send it
    host: str
    port: int


def target(url: str, policy: Policy) -> Target:
    """Where requests would connect for `url`, or Refused saying why it must not."""
    try:
        prepared = requests.Request("GET", url).prepare().url or ""
        parts = parse_url(prepared)
    except (requests.RequestException, ValueError) as exc:
        raise Refused(f"{url!r} is not a URL requests can fetch ({exc})") from exc
    scheme = (parts.scheme or "").lower()
    if scheme not in ("http", "https"):
        raise Refused(f"{url} is not http(s)")
    if parts.auth:
        raise Refused(f"{url} carries a user name or password")
    host = (parts.host or "").strip("[]")
    if not host or not policy.host_allowed(host):
        raise Refused(f"{url} is not on HIPPO_VERIFY_HOSTS (it would connect to {host or '?'})")
    port = parts.port or (443 if scheme == "https" else 80)
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise Refused(f"{host} does not resolve ({exc})") from exc
    for info in infos:
        address = str(info[4][0])
        if not policy.address_allowed(address, port):
            raise Refused(_private_message(host, address, port))
    return Target(prepared, host, port)


def _body(resp: requests.Response, url: str, max_bytes: int, left: float) -> bytes:
    """The body, at most `max_bytes`, read within `left` seconds (a slow trickle is refused)."""
    started, chunks, size = time.monotonic(), [], 0
    for chunk in resp.iter_content(CHUNK):
        size += len(chunk)
        if size > max_bytes:
            raise Refused(f"{url} answers with more than {max_bytes // 1000} KB")
        if time.monotonic() - started > left:
            raise Refused(f"{url} took too long to send its answer")
        chunks.append(chunk)
    return b"".join(chunks)


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = parse_url(url)
    scheme = (parts.scheme or "").lower()
    return scheme, (parts.host or "").lower(), parts.port or (443 if scheme == "https" else 80)


def _private_message(host: str, address: str, port: int) -> str:
    return (
        f"{host} is {address}:{port}, a private, loopback or link-local address; "
        "list it in HIPPO_VERIFY_PRIVATE to allow it"
    )


def _checked(base: type[HTTPConnection], policy: Policy) -> type[HTTPConnection]:
    class Checked(base):  # type: ignore[valid-type,misc]
        def _new_conn(self) -> socket.socket:
            sock: socket.socket = super()._new_conn()
            address, port = sock.getpeername()[:2]
            if not policy.address_allowed(str(address), int(port)):
                sock.close()  # nothing was sent
                raise Refused(_private_message(str(self.host), str(address), int(port)))
            return sock

    return Checked


class _Adapter(HTTPAdapter):
    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        super().__init__(max_retries=0)

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        super().init_poolmanager(*args, **kwargs)
        checked = _checked(HTTPConnection, self.policy)
        checked_tls = _checked(HTTPSConnection, self.policy)
        http = type("Pool", (HTTPConnectionPool,), {"ConnectionCls": checked})
        https = type("Pool", (HTTPSConnectionPool,), {"ConnectionCls": checked_tls})
        self.poolmanager.pool_classes_by_scheme = {"http": http, "https": https}


@dataclass(frozen=True)
class Answer:
    url: str  # the last URL asked
    status: int
    hops: tuple[tuple[int, str], ...]  # (status, URL) of every redirect followed, in order

    @property
    def moved_permanently(self) -> bool:
        return bool(self.hops) and all(status in PERMANENT for status, _ in self.hops)


class Fetcher:
    """HEAD (GET when HEAD is refused) with redirects followed by hand, each hop checked."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self.session = requests.Session()
        self.session.trust_env = False  # no proxy from the environment: the peer is the host
        adapter = _Adapter(policy)
        self.session.mount("http://", adapter)
        self.session.mount("https://", adapter)

    def status(self, url: str) -> Answer:
        """The final status of `url`; Refused if a hop is not allowed or a cap is reached;
        requests.RequestException if the site could not be reached."""
        answer, _ = self._follow(
            url, lambda where, timeout, _left: (self._ask(where, timeout), b"")
        )
        return answer

    def get_json(
        self, url: str, max_bytes: int = MAX_BODY, headers: Mapping[str, str] | None = None
    ) -> tuple[Answer, Any]:
        """GET `url` (every hop checked as for `status`) and its body parsed as JSON, read up to
        `max_bytes` within the deadline: Refused beyond either; ValueError if it is no JSON.
        `headers` (a check's credentials) go to `url`'s own origin only, never to a redirect
        elsewhere (as requests drops Authorization on a redirect to another host)."""
        origin = _origin(url)

        def ask(where: str, timeout: float, left: float) -> tuple[requests.Response, bytes]:
            sent = {"Accept": "application/json"}
            if headers and _origin(where) == origin:
                sent |= headers
            resp = self.session.get(
                where, allow_redirects=False, stream=True, timeout=timeout, headers=sent
            )
            try:
                return resp, b"" if resp.is_redirect else _body(resp, url, max_bytes, left)
            finally:
                resp.close()

        answer, body = self._follow(url, ask)
        if answer.status >= 400:
            return answer, None
        return answer, json.loads(body.decode("utf-8"))

    def _follow(
        self, url: str, ask: Callable[[str, float, float], tuple[requests.Response, bytes]]
    ) -> tuple[Answer, bytes]:
        started = time.monotonic()
        hops: list[tuple[int, str]] = []
        current = url
        while True:
            left = self.policy.deadline - (time.monotonic() - started)
            if left <= 0:
                raise Refused(f"{url} took longer than {self.policy.deadline:.0f} s")
            where = target(current, self.policy)
            resp, body = ask(where.url, min(self.policy.timeout, left), left)
            if not resp.is_redirect:
                return Answer(current, resp.status_code, tuple(hops)), body
            if len(hops) >= MAX_REDIRECTS:
                raise Refused(f"{url} redirects more than {MAX_REDIRECTS} times")
            hops.append((resp.status_code, current))
            current = urljoin(where.url, resp.headers["Location"])

    def _ask(self, url: str, timeout: float) -> requests.Response:
        for method in ("HEAD", "GET"):
            resp = self.session.request(
                method, url, allow_redirects=False, stream=True, timeout=timeout
            )
            resp.close()  # never read a body: the status is the answer
            if resp.status_code != 405:  # some servers refuse HEAD
                break
        return resp

    def close(self) -> None:
        self.session.close()
