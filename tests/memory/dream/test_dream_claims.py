"""Deterministic claim recognition and the verifier registry (memory/dream/checkable_claims.py, verifiers.py)."""

from __future__ import annotations

from memory import format as fmt
from memory.dream import checkable_claims as cl
from memory.dream.verifiers import MemoryLinks, Verdict, Verifiers
from tests.fakes.verifiers import TableVerifier


def kinds(text: str, hosts: tuple[str, ...] = ()) -> list[tuple[str, str, str]]:
    return [(c.kind, c.key, c.state) for c in cl.find(text, hosts)]


def test_pull_request_reference_with_stated_state() -> None:
    """`owner/repo#123 is open` is a PR claim stating 'open'; the span is the state word."""
    text = "the fix is acme/api#123 which is still open"
    (claim,) = cl.find(text)
    assert (claim.kind, claim.key, claim.state) == ("pr", "acme/api#123", "open")
    assert text[slice(*claim.span)] == "open"


def test_pull_request_url_and_state_before_it() -> None:
    """A PR URL with the state written before it ("merged https://…/pull/7") is recognised."""
    text = "we merged https://github.com/acme/api/pull/7 last week"
    assert kinds(text) == [("pr", "acme/api#7", "merged")]


def test_issue_url_without_state_claims_existence() -> None:
    """An issue URL with no state word claims only that it exists."""
    assert kinds("tracked in https://github.com/acme/api/issues/9") == [("pr", "acme/api#9", "")]


def test_file_claims_in_three_spellings() -> None:
    """owner/repo:path, 'in owner/repo at path' and a blob URL are path claims."""
    assert kinds("config is acme/api:src/config.py") == [("path", "acme/api:src/config.py", "")]
    assert kinds("it lives in acme/api at docs/run.md.") == [("path", "acme/api:docs/run.md", "")]
    url = "see https://github.com/acme/api/blob/main/src/app.py for it"
    (claim,) = cl.find(url)
    assert (claim.kind, claim.key, claim.ref) == ("path", "acme/api:src/app.py", "main")
    assert url[slice(*claim.span)] == "src/app.py"


def test_image_tags_and_versions_are_not_files() -> None:
    """'acme/api:latest' and 'acme/api:1.4.2' are image tags, not file claims."""
    assert kinds("we deploy acme/api:latest, pinned to acme/api:1.4.2") == []
    assert kinds("see acme/api:Makefile.am") == [("path", "acme/api:Makefile.am", "")]


def test_symbol_before_a_file_claim() -> None:
    """A backticked symbol right before "in owner/repo:path" makes a symbol claim."""
    (claim,) = cl.find("`parse_config()` is defined in acme/api:src/config.py")
    assert (claim.kind, claim.symbol, claim.path) == ("symbol", "parse_config", "src/config.py")


def test_repository_state() -> None:
    """A repository's state is a claim only when 'repo' is said: a folder is not a repository."""
    assert kinds("the repo acme/legacy is archived") == [("repo", "acme/legacy", "archived")]
    assert kinds("the acme/web repo is active now") == [("repo", "acme/web", "active")]
    assert kinds("repository acme/web is still active") == [("repo", "acme/web", "active")]
    assert kinds("the flag in config/flags is active") == []
    assert kinds("the acme/web repo has an active community") == []


def test_slack_permalink_in_text_and_source() -> None:
    """A Slack permalink counts in the text and in the entry's `source`."""
    link = "https://acme.slack.com/archives/C024BE7LH/p1700000000123456"
    entry = fmt.parse(f"- the deploy froze [source: {link}]\n").entries[0]
    (claim,) = cl.find(entry)
    assert (claim.kind, claim.channel, claim.ts, claim.in_meta) == (
        "slack",
        "C024BE7LH",
        "1700000000.123456",
        True,
    )


def test_urls_only_on_the_allow_list() -> None:
    """A plain URL is a claim only when its host is allow-listed (subdomains included)."""
    text = "runbook at https://docs.acme.dev/run and https://example.org/x"
    assert kinds(text) == []
    assert [c.url for c in cl.find(text, ("acme.dev",))] == ["https://docs.acme.dev/run"]


def test_nothing_recognisable_is_no_claim() -> None:
    """Prose without references has no claims (it is not checkable)."""
    assert cl.find("checkout 504s come from the vendor sandbox under load") == []


def test_memory_links_are_claims() -> None:
    """[[links]] inside the memory are link claims on the target path."""
    assert kinds("see [[services/checkout-api]]") == [("link", "services/checkout-api.md", "")]


def test_apply_fixes_replaces_only_the_spans() -> None:
    """Fixes replace each claim's span, right to left, leaving the rest of the text."""
    text = "acme/api#1 is open and acme/api#2 is open"
    a, b = cl.find(text)
    assert cl.apply_fixes(text, [(a, "merged"), (b, "closed")]) == (
        "acme/api#1 is merged and acme/api#2 is closed"
    )


def test_registry_routes_by_kind_counts_calls_and_contains_failures() -> None:
    """The first verifier of a kind answers; none → not checkable; a crash → not checkable."""

    class Boom:
        name = "boom"
        kinds = frozenset({"repo"})

        def check(self, claim: cl.Claim) -> Verdict:
            raise RuntimeError("down")

    table = TableVerifier("t", ["pr"], {"acme/api#1": Verdict.true("open")})
    reg = Verifiers([table, Boom()])
    (pr,) = cl.find("acme/api#1 is open")
    (repo,) = cl.find("the repo acme/old is archived")
    (url,) = cl.find("https://x.test/a", ("x.test",))
    assert reg.check(pr).status == "true"
    assert reg.check(pr).verifier == "t"
    assert reg.check(repo).status == "not_checkable"
    assert "down" in reg.check(repo).evidence
    assert reg.check(url).status == "not_checkable"
    assert reg.calls == 4  # the url had no verifier: not a call


def test_memory_links_follow_renames() -> None:
    """A link to a renamed file is fixable to the new path; a missing one is not checkable."""
    files = {"services/new.md"}
    v = MemoryLinks(lambda p: p in files, {"services/old.md": "services/new.md"}.get)
    (moved,) = cl.find("see [[services/old]]")
    (gone,) = cl.find("see [[nowhere]]")
    assert (v.check(moved).status, v.check(moved).fix) == ("fixable", "services/new")
    assert v.check(gone).status == "not_checkable"


def test_file_claims_as_people_write_them() -> None:
    """A repository anywhere plus a path anywhere is a file claim; the span is the path."""
    text = "the billing exporter lives at tools/export.py in shopco/payments"
    (claim,) = cl.find(text)
    assert (claim.kind, claim.key) == ("path", "shopco/payments:tools/export.py")
    assert text[slice(*claim.span)] == "tools/export.py"
    assert kinds("shopco/payments' retry settings are config/retry.toml") == [
        ("path", "shopco/payments:config/retry.toml", "")
    ]
    assert kinds("the release checklist is shopco/site `docs/release.md`") == [
        ("path", "shopco/site:docs/release.md", "")
    ]


def test_a_known_repository_by_its_bare_name() -> None:
    """'the payments repo' means shopco/payments when the memory names it (and no other
    'payments'); such a claim is marked unsure."""
    tree = {"services/pay.md": "- fee fix shopco/payments#4 merged\n", "x.md": "- about"}
    repos = cl.known_repos(tree)
    assert repos == {"shopco/payments"}
    (claim,) = cl.find("the payments repo keeps retries in config/retry.toml", repos=repos)
    assert (claim.key, claim.sure) == ("shopco/payments:config/retry.toml", False)
    assert cl.find("the payments repo keeps retries in config/retry.toml") == []


def test_not_file_claims() -> None:
    """Products, fractions, word pairs, image tags and paths without a repository are not."""
    for text in (
        "we use Node.js in shopco/site and/or CI/CD 24/7",
        "the config is in config/app.yaml",
        "we deploy shopco/payments:latest",
        "the flag in config/flags is active",
    ):
        assert kinds(text) == [], text
