"""Dreaming's HTTP checks cannot be pointed at hippo's own network: every redirect hop is on
HIPPO_VERIFY_HOSTS, URLs are parsed as the HTTP client parses them, private and loopback
addresses are refused unless HIPPO_VERIFY_PRIVATE names them, and redirects are capped. Loopback
servers stand in for a docs site and for a cloud metadata service."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from datetime import datetime
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from integrations.live_verifiers import HttpVerifier
from integrations.safe_http import MAX_REDIRECTS
from jobs.config import Config, ConfigError
from memory import format as fmt
from memory.dream import checkable_claims as cl
from memory.dream.run import dream
from memory.dream.verifiers import Verifiers
from memory.git import Author, Store
from memory.writes import WriteFile
from tests.fakes.loopback import LoopbackServer

Routes = dict[str, tuple[int, str]]


class Site:
    """A loopback HTTP server answering HEAD/GET from a route table, recording every path asked."""

    def __init__(self, routes: Routes) -> None:
        self.routes = routes
        self.seen: list[str] = []
        site = self

        class Handler(BaseHTTPRequestHandler):
            def answer(self) -> None:
                site.seen.append(self.path)
                status, where = site.routes.get(self.path, (404, ""))
                self.send_response(status)
                if where:
                    self.send_header("Location", where)
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_HEAD = answer
            do_GET = answer

            def log_message(self, format: str, *args: Any) -> None:
                return

        self.server = LoopbackServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def sites() -> Iterator[Callable[[Routes], Site]]:
    made: list[Site] = []

    def make(routes: Routes) -> Site:
        made.append(Site(routes))
        return made[-1]

    yield make
    for site in made:
        site.close()


def check(v: HttpVerifier, url: str) -> tuple[str, str]:
    verdict = v.check(cl.Claim(cl.URL, url, "", (0, 0), url=url))
    return verdict.status, verdict.evidence


def test_a_redirect_to_another_loopback_port_is_refused_unless_allowed(
    sites: Callable[[Routes], Site],
) -> None:
    """docs (allowed: 127.0.0.1 on its own port) 302s to a metadata service on another loopback
    port: not followed, the metadata service never hears a request, the claim is not checkable.
    With the other port allowed too, the same redirect is followed."""
    metadata = sites({"/latest/meta-data/iam": (404, "")})
    docs = sites({"/runbook": (302, f"{metadata.base}/latest/meta-data/iam")})
    url = f"{docs.base}/runbook"
    strict = HttpVerifier(["127.0.0.1"], private=[f"127.0.0.1:{docs.port}"], timeout=5)
    status, why = check(strict, url)
    assert status == "not_checkable"
    assert "HIPPO_VERIFY_PRIVATE" in why and str(metadata.port) in why
    assert metadata.seen == []
    assert docs.seen == ["/runbook"]

    relaxed = HttpVerifier(["127.0.0.1"], private=["127.0.0.0/8"], timeout=5)
    assert check(relaxed, url)[0] == "unfixable"
    assert metadata.seen == ["/latest/meta-data/iam"]


def test_loopback_is_refused_without_an_explicit_allowance(sites: Callable[[Routes], Site]) -> None:
    """127.0.0.1 on HIPPO_VERIFY_HOSTS is not enough: no request reaches a loopback address unless
    HIPPO_VERIFY_PRIVATE lists it (names that resolve to loopback included)."""
    site = sites({"/ok": (200, "")})
    v = HttpVerifier(["127.0.0.1", "localhost"], timeout=5)
    assert check(v, f"{site.base}/ok")[0] == "not_checkable"
    assert check(v, f"http://localhost:{site.port}/ok")[0] == "not_checkable"
    assert site.seen == []


def test_every_hop_must_be_on_the_allow_list(sites: Callable[[Routes], Site]) -> None:
    """A redirect to a host that is not on HIPPO_VERIFY_HOSTS (here `localhost`, which is
    loopback and allowed as an address) is not followed."""
    target = sites({"/x": (404, "")})
    docs = sites({"/a": (301, f"http://localhost:{target.port}/x")})
    v = HttpVerifier(["127.0.0.1"], private=["127.0.0.0/8", "::1"], timeout=5)
    status, why = check(v, f"{docs.base}/a")
    assert status == "not_checkable" and "HIPPO_VERIFY_HOSTS" in why
    assert target.seen == []


def test_urls_are_parsed_the_way_the_http_client_parses_them(
    sites: Callable[[Routes], Site],
) -> None:
    """`http://127.0.0.1\\@docs.example.com/` looks like docs.example.com to urlsplit but connects
    to 127.0.0.1: refused as not allow-listed, and nothing is asked of the loopback server."""
    site = sites({"/": (404, "")})
    v = HttpVerifier(["docs.example.com"], private=["127.0.0.0/8"], timeout=5)
    status, why = check(v, f"http://127.0.0.1:{site.port}\\@docs.example.com/")
    assert status == "not_checkable" and "127.0.0.1" in why
    status, why = check(v, f"http://u:p@127.0.0.1:{site.port}/")
    assert status == "not_checkable"
    assert site.seen == []


def test_redirects_are_capped(sites: Callable[[Routes], Site]) -> None:
    """A redirect loop ends after MAX_REDIRECTS hops as not checkable."""
    routes: Routes = {}
    site = sites(routes)
    routes["/loop"] = (302, f"{site.base}/loop")
    v = HttpVerifier(["127.0.0.1"], private=[f"127.0.0.1:{site.port}"], timeout=5)
    status, why = check(v, f"{site.base}/loop")
    assert status == "not_checkable" and "redirects more than" in why
    assert len(site.seen) == MAX_REDIRECTS + 1


def test_a_dream_keeps_the_entry_a_redirect_to_metadata_would_have_deleted(
    tmp_path: Path, sites: Callable[[Routes], Site]
) -> None:
    """Through a real dream: an entry citing an allow-listed page that 302s to the metadata port
    (which answers 404) stays, with nothing deleted or tombstoned."""
    metadata = sites({"/latest/meta-data/": (404, "")})
    docs = sites({"/page": (302, f"{metadata.base}/latest/meta-data/")})
    store = Store.open(str(tmp_path / "remote.git"), tmp_path / "data")
    store.init()
    text = f"# docs\n\n- deploys are documented at {docs.base}/page\n"
    store.write([WriteFile("services/docs.md", text)], author=Author("a", "a@x"), message="seed")
    v = HttpVerifier(["127.0.0.1"], private=[f"127.0.0.1:{docs.port}"], timeout=5)
    dream(
        store, now=datetime(2026, 11, 30, 3), verifiers=Verifiers([v]), allowed_hosts=("127.0.0.1",)
    )
    entries = [e.text for e in fmt.parse(store.read("services/docs.md")).entries]
    assert entries == [f"deploys are documented at {docs.base}/page"]
    assert "deploys are documented" not in (store.read_or_none("forgotten.md") or "")
    assert docs.seen and metadata.seen == []


def test_hippo_verify_private_is_read_and_checked() -> None:
    """HIPPO_VERIFY_PRIVATE takes addresses, networks and address:port; anything else is named."""
    config = Config.from_env({"HIPPO_VERIFY_PRIVATE": "10.0.0.0/8, 127.0.0.1:8080,[::1]:9000"})
    assert config.verify_private == ("10.0.0.0/8", "127.0.0.1:8080", "[::1]:9000")
    with pytest.raises(ConfigError, match="HIPPO_VERIFY_PRIVATE"):
        Config.from_env({"HIPPO_VERIFY_PRIVATE": "intranet.local"})
