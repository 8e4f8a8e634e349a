"""Declared checks of systems that need credentials: an http_json check names request headers
whose values are the worker's environment variables under HIPPO_CHECK_ENV_PREFIX, never the
memory's. A loopback site that answers only with the right header; the value is sent to that
origin alone and is never shown, logged or written (evidence, digest, commit messages)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from integrations.declared_checks import Credentials, DeclaredVerifier
from memory import format as fmt
from memory.dream import digest
from memory.dream.checks_file import PATH
from memory.dream.declared_checks import tonight
from memory.dream.run import dream
from memory.dream.verifiers import Verifiers
from memory.git import Author, Store
from memory.writes import WriteFile
from tests.fakes.json_site import JsonSite

LOOPBACK = {"hosts": ("127.0.0.1",), "private": ("127.0.0.0/8",)}
SECRET = "Bearer gr4fana-s3cret-token-0042"
VARIABLE = "HIPPO_CHECK_GRAFANA"
KEYS = Credentials("HIPPO_CHECK_", {VARIABLE: SECRET})


def checks_yaml(base: str, variable: str = VARIABLE, path: str = "/api/health") -> str:
    return f"""\
checks:
  - name: grafana
    kind: http_json
    url: {base}{path}
    json_path: version
    headers: {{Authorization: {variable}}}
    match:
      pattern: 'grafana is at version (?P<value>[0-9.]+)'
"""


def guarded(headers: dict[str, str]) -> Any:
    """Grafana's health answer, to the right Authorization only (401 otherwise)."""
    if headers.get("Authorization") != SECRET:
        return (401, b'{"message": "Unauthorized"}')
    return {"database": "ok", "version": "11.2.0"}


@pytest.fixture
def site() -> Iterator[JsonSite]:
    routes = {"/api/health": guarded, "/echo": lambda h: {"version": h.get("Authorization", "")}}
    with JsonSite(routes) as s:
        yield s


def ask(v: DeclaredVerifier, yaml: str, text: str) -> tuple[str, str | None, str, bool]:
    declared, errors = tonight({PATH: yaml})
    assert errors == []
    (e,) = fmt.parse(f"# T\n\n- {text}\n").entries
    (claim,) = declared.claims("x.md", e)
    out = v.check(claim)
    return out.status, out.fix, out.evidence, out.failed


def test_a_check_sends_the_header_from_the_environment(site: JsonSite) -> None:
    """With the variable under the prefix, the site gets the header and the check answers;
    the evidence names the URL and value, never the credential."""
    v = DeclaredVerifier(credentials=KEYS, **LOOPBACK)
    status, fix, evidence, _ = ask(v, checks_yaml(site.base), "grafana is at version 11.1.0")
    assert (status, fix) == ("fixable", "11.2.0")
    assert site.asked[-1][1]["Authorization"] == SECRET
    assert SECRET not in evidence and "gr4fana" not in evidence
    without = DeclaredVerifier(**LOOPBACK)  # the same check on a worker without credentials
    status, _, evidence, failed = ask(without, checks_yaml(site.base), "grafana is at version 1")
    assert (status, failed) == ("not_checkable", True)
    assert "no prefix is set" in evidence and "HIPPO_CHECK_ENV_PREFIX" in evidence


def test_a_missing_variable_is_a_failed_check_that_names_it(site: JsonSite) -> None:
    v = DeclaredVerifier(credentials=Credentials("HIPPO_CHECK_", {}), **LOOPBACK)
    status, _, evidence, failed = ask(v, checks_yaml(site.base), "grafana is at version 1")
    assert (status, failed) == ("not_checkable", True)
    assert f"header Authorization needs ${VARIABLE}, which is not set on the worker" in evidence
    assert site.seen == []  # nothing asked without it


def test_hippos_own_secrets_cannot_be_sent(site: JsonSite) -> None:
    """A memory naming SLACK_BOT_TOKEN (outside the prefix) gets a failed check and the site
    is never asked: the worker's other secrets stay on the worker."""
    keys = Credentials("HIPPO_CHECK_", {VARIABLE: SECRET, "SLACK_BOT_TOKEN": "xoxb-1-2-3"})
    v = DeclaredVerifier(credentials=keys, **LOOPBACK)
    yaml = checks_yaml(site.base, "SLACK_BOT_TOKEN")
    status, _, evidence, failed = ask(v, yaml, "grafana is at version 1")
    assert (status, failed) == ("not_checkable", True)
    assert "$SLACK_BOT_TOKEN, not a variable checks may send under HIPPO_CHECK_" in evidence
    assert site.seen == [] and "xoxb" not in evidence


def test_the_header_goes_to_its_own_origin_only(site: JsonSite) -> None:
    """A redirect to another origin (another port of an allowed host) is followed without the
    credential, as requests does for Authorization."""
    with JsonSite({"/api/health": lambda h: {"version": "9.9"}}) as other:
        site.routes["/moved"] = (302, b"", f"{other.base}/api/health")
        v = DeclaredVerifier(credentials=KEYS, **LOOPBACK)
        assert ask(v, checks_yaml(site.base, path="/moved"), "grafana is at version 9.9")[0] == (
            "true"
        )
        assert site.asked[-1][1]["Authorization"] == SECRET
        assert "Authorization" not in other.asked[-1][1]


def test_an_answer_holding_the_credential_is_a_failed_check(site: JsonSite) -> None:
    """A site that echoes the header back at the JSON path: nothing of it is shown or fixed
    (a memory cannot turn a check into a way to write the secret into an entry)."""
    v = DeclaredVerifier(credentials=KEYS, **LOOPBACK)
    yaml = checks_yaml(site.base, path="/echo").replace("[0-9.]+", "[^ ]+")
    status, fix, evidence, failed = ask(v, yaml, "grafana is at version 1")
    assert (status, fix, failed) == ("not_checkable", None, True)
    assert "holds a value this check sends" in evidence and "gr4fana" not in evidence


def test_a_night_writes_the_fix_and_never_the_credential(
    site: JsonSite, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Through the dream: the corrections commit, the digest and the log hold the fix and not
    the credential; a missing variable is listed under checks that failed."""
    caplog.set_level(logging.DEBUG)
    store = Store.open(str(tmp_path / "remote.git"), tmp_path / "data")
    store.init()
    topic = "# Grafana\n\n- grafana is at version 11.1.0\n"
    yaml = checks_yaml(site.base) + checks_yaml(site.base, "HIPPO_CHECK_GONE").replace(
        "checks:\n  - name: grafana", "  - name: grafana-gone"
    ).replace("grafana is at", "grafana-gone is at")
    files = [WriteFile(PATH, yaml), WriteFile("services/grafana.md", topic)]
    store.write(files, author=Author("alice", "a@x"), message="seed")
    store.write(
        [WriteFile("services/other.md", "# Other\n\n- grafana-gone is at version 2\n")],
        author=Author("alice", "a@x"),
        message="seed",
    )
    v = DeclaredVerifier(credentials=KEYS, **LOOPBACK)
    report = dream(store, now=datetime(2026, 11, 30, 3), verifiers=Verifiers([v]))
    assert "grafana is at version 11.2.0" in store.read("services/grafana.md")
    history = "\n".join(c.message for c in store.log(limit=50))
    shown = str(digest.blocks(report, console_url="")) + digest.text(report)
    assert "$HIPPO_CHECK_GONE, which is not set" in shown
    for where in (history, shown, caplog.text, str(KEYS), repr(v.credentials)):
        assert "gr4fana" not in where
