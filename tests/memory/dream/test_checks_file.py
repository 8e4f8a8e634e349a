"""`.hippo/checks.yml`: the schema of the checks a team declares, errors a person can act on
(line, key, what to do), and which entries each check selects (memory/dream/declared_checks.py)."""

from __future__ import annotations

import time

from memory import format as fmt
from memory.dream import checkable_claims as cl
from memory.dream.checks_file import PATH, load
from memory.dream.declared_checks import Declared, tonight
from tests.paths import ROOT

GOOD = """\
version: 1
checks:
  - name: api-version
    kind: http_json
    url: https://status.example.com/{service}/version.json
    json_path: data.version
    match:
      pattern: 'the (?P<service>[a-z]+) API is at version (?P<value>[0-9.]+)'
      paths: ['services/*.md']
  - name: retry-setting
    kind: github_file
    repo: shopco/payments
    path: config/retry.toml
    line: 'max_retries = (?P<value>\\d+)'
    match:
      pattern: 'payments retries (?P<value>\\d+) times'
      tags: [payments]
  - name: cli-release
    kind: github_release
    repo: shopco/cli
    match:
      pattern: 'latest CLI release is (?P<value>v[0-9.]+)'
    on_wrong: delete
  - name: runbook-exists
    kind: github_file
    repo: '{repo}'
    path: docs/runbook.md
    contains: '## Rollback'
    match:
      pattern: 'rollback steps are in (?P<repo>[a-z]+/[a-z]+)'
"""


def entry(text: str) -> fmt.Entry:
    (e,) = fmt.parse(f"# T\n\n- {text}\n").entries
    return e


def test_a_good_file_loads_with_defaults() -> None:
    loaded = load({PATH: GOOD})
    assert loaded.errors == [] and loaded.present
    assert [c.name for c in loaded.checks] == [
        "api-version",
        "retry-setting",
        "cli-release",
        "runbook-exists",
    ]
    # a check with a value fixes by default; one without deletes (the team may say otherwise)
    assert [c.action for c in loaded.checks] == ["fix", "fix", "delete", "delete"]
    assert load({}).present is False and load({PATH: ""}).checks == ()


def errors(text: str) -> list[str]:
    loaded = load({PATH: text})
    assert loaded.checks == () and loaded.present
    return loaded.errors


def test_errors_name_the_line_and_key_and_say_what_to_do() -> None:
    """Each error names the file, its line, the key, what is wrong, and what to do."""
    missing_url = GOOD.replace("    url: https://status.example.com/{service}/version.json\n", "")
    (e,) = errors(missing_url)
    assert e.startswith(f"{PATH} line 3, checks[0].url: Field required; fix {PATH}")
    assert "hippo checks test" in e and "built-in checks only" in e
    (e,) = errors(GOOD.replace("kind: github_release", "kind: gitlab_release"))
    assert e.startswith(f"{PATH} line 18, checks[2]: ") and "github_release" in e
    (e,) = errors(
        GOOD.replace("json_path: data.version", "json_path: data.version\n    jsonpath: x")
    )
    assert e.startswith(f"{PATH} line 7, checks[0].jsonpath: Extra inputs are not permitted")


def test_semantic_errors_say_what_is_missing() -> None:
    (e,) = errors(GOOD.replace("(?P<service>[a-z]+)", "([a-z]+)"))
    assert "checks[0]: url uses {service}, which is not a named group of match.pattern" in e
    (e,) = errors(GOOD.replace("version (?P<value>[0-9.]+)", "version [0-9.]+"))
    assert "http_json needs a (?P<value>…) group in match.pattern" in e
    (e,) = errors(GOOD.replace("repo: shopco/cli", "repo: https://github.com/shopco/cli"))
    assert "checks[2]: repo must be owner/name, as GitHub spells it" in e
    (e,) = errors(GOOD.replace("name: cli-release", "name: api-version"))
    assert "check names must be unique: api-version is used twice" in e
    (e,) = errors(GOOD.replace("'latest CLI release is (?P<value>v[0-9.]+)'", "'latest (unclosed'"))
    assert e.startswith(f"{PATH} line 22, checks[2].match.pattern: not a regular expression")
    (e,) = errors(
        GOOD.replace("url: https://status.example.com/", "url: https://{service}.example.com/")
    )
    assert "url must start with http:// or https:// and a host, no placeholder" in e


def test_yaml_that_does_not_parse_names_its_line() -> None:
    (e,) = errors(GOOD.replace("    kind: http_json", "    kind: [http_json"))
    assert e.startswith(f"{PATH} line ") and "not YAML" in e and "hippo checks test" in e
    (e,) = errors("- just a list\n")
    assert "top: Input should be a valid dictionary" in e


def test_checks_select_entries_by_pattern_file_and_tag() -> None:
    """The claim's span is the entry's value; placeholders are filled from the entry (quoted
    in URLs); paths and tags narrow what a check applies to."""
    declared, problems = tonight({PATH: GOOD})
    assert problems == []
    text = "the payments API is at version 3.2, since the spring"
    (claim,) = declared.claims("services/payments.md", entry(text))
    assert claim.kind == cl.DECLARED and claim.declared is not None
    assert text[slice(*claim.span)] == "3.2" and claim.declared.claimed == "3.2"
    assert claim.url == "https://status.example.com/payments/version.json"
    assert claim.declared.json_path == "data.version" and claim.declared.action == "fix"
    assert declared.claims("runbooks/payments.md", entry(text)) == []  # not in services/*.md
    tagged = "payments retries 5 times [tags: Payments]"
    assert [c.declared.check for c in declared.claims("x.md", entry(tagged)) if c.declared] == [
        "retry-setting"
    ]
    assert declared.claims("x.md", entry("payments retries 5 times")) == []  # untagged
    (runbook,) = declared.claims("x.md", entry("rollback steps are in shopco/api"))
    assert (runbook.repo, runbook.path) == ("shopco/api", "docs/runbook.md")
    assert runbook.declared is not None and runbook.declared.claimed is None


def test_a_pattern_that_backtracks_forever_gives_up_in_time() -> None:
    """A person's pattern runs with a time limit: catastrophic backtracking is no match, and
    after three such searches the check is skipped for the night, saying why."""
    bad = GOOD.replace("'latest CLI release is (?P<value>v[0-9.]+)'", "'^(?P<value>(a|aa)+)$'")
    declared, problems = tonight({PATH: bad})
    slow = entry("a" * 60 + "!")
    started = time.monotonic()
    for _ in range(5):
        assert declared.claims("x.md", slow) == []
    assert time.monotonic() - started < 3 and declared.timeouts == {"cli-release": 3}
    assert problems == [
        "check cli-release: match.pattern ran out of time 3 times and was skipped for the rest "
        "of the night; make it simpler (no nested repeats)"
    ]
    assert isinstance(declared, Declared) and declared.problems is problems


def test_the_example_in_the_docs_is_valid() -> None:
    """docs/DREAMING.md's example file loads as written."""
    text = (ROOT / "docs" / "DREAMING.md").read_text()
    example = text.split("```yaml\n", 1)[1].split("```", 1)[0]
    loaded = load({PATH: example})
    assert loaded.errors == [] and len(loaded.checks) == 3


def test_an_entry_cannot_steer_a_check_elsewhere() -> None:
    """Placeholder values come from entries (agents write entries too): one that would leave
    its part of a path, URL or repository name makes no claim."""
    text = """\
checks:
  - name: doc
    kind: github_file
    repo: '{repo}'
    path: 'docs/{file}'
    match: {pattern: 'see (?P<file>\\S+) in (?P<repo>\\S+)'}
"""
    declared, problems = tonight({PATH: text})
    assert problems == []
    (ok,) = declared.claims("x.md", entry("see deploy.md in shopco/api"))
    assert (ok.repo, ok.path) == ("shopco/api", "docs/deploy.md")
    for steer in ("see ../../secrets in shopco/api", "see a.md in shopco/api/../x",
                  "see a.md in shopco", "see /etc/x in shopco/api", "see a?b in shopco/api"):  # fmt: skip
        assert declared.claims("x.md", entry(steer)) == [], steer


def test_a_file_is_selected_by_any_entry_anchored_or_not() -> None:
    """The first pass over a whole file loses no entry: `^`/`$` patterns hold at each entry's
    ends, and a pattern anchored with \\A goes entry by entry."""
    base = "checks:\n  - name: r\n    kind: github_release\n    repo: a/b\n    match: {pattern: '%s'}\n"
    entries = fmt.parse(
        "# T\n\n- prose first\n- release is v2 [added: 2026-01-01]\n- more\n"
    ).entries
    for pattern in ("^release is (?P<value>v[0-9]+)$", "\\Arelease is (?P<value>v[0-9]+)\\Z",
                    "is (?P<value>v[0-9]+)"):  # fmt: skip
        declared, problems = tonight({PATH: base % pattern})
        assert problems == [] and declared.selects("t.md", entries), pattern
        assert not declared.selects("t.md", entries[:1]), pattern


def test_headers_name_environment_variables_never_values() -> None:
    """An http_json check's `headers` map a request header to the environment variable that
    holds its value; a value in their place, a framing header or too many are refused."""
    with_headers = GOOD.replace(
        "    json_path: data.version\n",
        "    json_path: data.version\n    headers: {Authorization: HIPPO_CHECK_STATUS_TOKEN}\n",
    )
    loaded = load({PATH: with_headers})
    assert loaded.errors == []
    assert loaded.checks[0].headers == {"Authorization": "HIPPO_CHECK_STATUS_TOKEN"}  # type: ignore[union-attr]
    (e,) = errors(with_headers.replace("HIPPO_CHECK_STATUS_TOKEN", "'Bearer abc123def'"))
    assert "checks[0].headers: headers.Authorization: name the environment variable" in e
    assert "abc123def" not in e  # a secret written by mistake is not repeated
    (e,) = errors(with_headers.replace("Authorization:", "Host:"))
    assert "'Host' is not a request header a check may set" in e
    many = ", ".join(f"X-H{i}: HIPPO_CHECK_{i}" for i in range(11))
    (e,) = errors(with_headers.replace("Authorization: HIPPO_CHECK_STATUS_TOKEN", many))
    assert "checks[0].headers" in e and "at most 10" in e
    (e,) = errors(GOOD.replace("    repo: shopco/cli\n", "    repo: shopco/cli\n    headers: {}\n"))
    assert "checks[2].headers: Extra inputs are not permitted" in e
