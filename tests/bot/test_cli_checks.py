"""`hippo checks test`: the dry run of the checks a team declares. It lists the entries each
check matches, runs the checks against a loopback JSON endpoint (through the SSRF guard, with
HIPPO_VERIFY_HOSTS and HIPPO_VERIFY_PRIVATE as a deploy sets them), says what the dream would do,
and writes nothing; a bad file gets its errors and exit 1."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.cli.main import main
from memory.dream.checks_file import PATH
from memory.git import Author, Store
from memory.writes import WriteFile
from tests.fakes.json_site import JsonSite
from tests.paths import ROOT


@pytest.fixture
def site(monkeypatch: pytest.MonkeyPatch) -> Iterator[JsonSite]:
    monkeypatch.setenv("HIPPO_VERIFY_HOSTS", "127.0.0.1")
    monkeypatch.setenv("HIPPO_VERIFY_PRIVATE", "127.0.0.0/8")
    with JsonSite({"/v.json": {"version": "3.3"}}) as s:
        yield s


def seed(tmp_path: Path, checks: str) -> tuple[list[str], Store]:
    argv = ["--remote", str(tmp_path / "remote.git"), "--data-dir", str(tmp_path / "data")]
    assert main([*argv, "init"]) == 0
    store = Store.open(str(tmp_path / "remote.git"), tmp_path / "seed")
    topic = "# API\n\n- the API is at version 3.2\n- the API is at version 3.3\n- unrelated\n"
    files = [WriteFile(PATH, checks), WriteFile("services/api.md", topic)]
    store.write(files, author=Author("alice", "a@x"), message="seed")
    return argv, store


def checks(base: str) -> str:
    return (
        "checks:\n  - name: api-version\n    kind: http_json\n"
        f"    url: {base}/v.json\n    json_path: version\n"
        "    match: {pattern: 'the API is at version (?P<value>[0-9.]+)'}\n"
        "  - name: nothing\n    kind: github_release\n    repo: a/b\n"
        "    match: {pattern: 'release is (?P<value>v[0-9]+)'}\n"
    )


def test_the_dry_run_lists_matches_and_what_the_dream_would_do(
    site: JsonSite, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv, store = seed(tmp_path, checks(site.base))
    head = store.head()
    capsys.readouterr()
    assert main([*argv, "checks", "test"]) == 0
    out = capsys.readouterr().out
    assert "2 checks declared; nothing is written (a dry run)." in out
    assert "check api-version (http_json, on_wrong: fix): 2 entries match" in out
    assert "services/api.md: the API is at version 3.2\n" in out
    assert f"fixable: {site.base}/v.json version is '3.3', not '3.2'" in out
    assert "→ would fix: 'the API is at version 3.2' → 'the API is at version 3.3'" in out
    assert "→ verified: the entry is kept and marked verified" in out
    assert "check nothing (github_release, on_wrong: fix): 0 entries match" in out
    assert site.seen == ["/v.json"]  # fetched once for both entries
    store.sync()
    assert store.head() == head  # nothing written


def test_a_check_with_credentials_from_the_environment(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A check naming a header's variable: with HIPPO_CHECK_ENV_PREFIX set as a deploy sets it,
    the site gets the header and the dry run answers; the credential is printed nowhere."""
    secret = "Bearer s3cret-monitoring-token"
    monkeypatch.setenv("HIPPO_VERIFY_HOSTS", "127.0.0.1")
    monkeypatch.setenv("HIPPO_VERIFY_PRIVATE", "127.0.0.0/8")
    monkeypatch.setenv("HIPPO_CHECK_ENV_PREFIX", "HIPPO_CHECK_")
    monkeypatch.setenv("HIPPO_CHECK_STATUS_TOKEN", secret)

    def guarded(headers: dict[str, str]) -> object:
        return {"version": "3.3"} if headers.get("Authorization") == secret else (401, b"{}")

    with JsonSite({"/v.json": guarded}) as site:
        text = checks(site.base).replace(
            "    json_path: version\n",
            "    json_path: version\n    headers: {Authorization: HIPPO_CHECK_STATUS_TOKEN}\n",
        )
        argv, _ = seed(tmp_path, text)
        capsys.readouterr()
        assert main([*argv, "checks", "test"]) == 0
        assert main([*argv, "checks", "test", "--json"]) == 0
    said = capsys.readouterr()
    assert f"fixable: {site.base}/v.json version is '3.3', not '3.2'" in said.out
    assert "s3cret" not in said.out + said.err
    assert [h["Authorization"] for _, h in site.asked] == [secret, secret]


def test_the_dry_run_as_json(
    site: JsonSite, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv, _ = seed(tmp_path, checks(site.base))
    capsys.readouterr()
    assert main([*argv, "checks", "test", "--json", "--limit", "1"]) == 0
    found = json.loads(capsys.readouterr().out)
    first = found["checks"][0]
    assert (first["name"], first["matched"], len(first["entries"])) == ("api-version", 2, 1)
    assert first["entries"][0]["status"] == "fixable" and first["entries"][0]["fix"] == "3.3"


def test_a_bad_file_prints_its_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv, _ = seed(tmp_path, "checks:\n  - name: Bad Name\n    kind: http_json\n")
    capsys.readouterr()
    assert main([*argv, "checks", "test"]) == 1
    out = capsys.readouterr().out
    assert f"{PATH} line 2, checks[0].name: String should match pattern" in out
    assert "hippo checks test" in out


def test_no_checks_file_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--remote", str(tmp_path / "remote.git"), "--data-dir", str(tmp_path / "data")]
    assert main([*argv, "init"]) == 0
    assert main([*argv, "checks", "test"]) == 1
    assert f"no {PATH} in the memory" in capsys.readouterr().err


def test_a_pattern_that_runs_out_of_time_is_named(
    site: JsonSite, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    slow = "checks:\n  - name: slow\n    kind: github_release\n    repo: a/b\n"
    slow += "    match: {pattern: '^(?P<value>(a|aa)+)$'}\n"
    argv, store = seed(tmp_path, slow)
    many = "".join(f"- {'a' * 60}! {i}\n" for i in range(4))
    store.write([WriteFile("slow.md", f"# S\n\n{many}")], author=Author("a", "a@x"), message="m")
    capsys.readouterr()
    assert main([*argv, "checks", "test"]) == 1
    assert "check slow: match.pattern ran out of time 3 times" in capsys.readouterr().out


def _checks_test(argv: list[str]) -> subprocess.CompletedProcess[str]:
    """`hippo checks test` in a child process, so a file that hangs it fails here (timeout)."""
    code = f"from bot.cli.main import main; raise SystemExit(main({[*argv, 'checks', 'test']!r}))"
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60
    )


ALIASED = "checks:\n" + "".join(
    f"  - name: c{c}\n    kind: github_release\n    repo: acme/x\n    match:\n"
    "      pattern: '(?P<value>v[0-9.]+)'\n      paths: ["
    + ('&p "services/' + "*a" * 100 + '*.md", ' if c == 0 else "")
    + ", ".join(["*p"] * 240)
    + "]\n"
    for c in range(50)
)
NESTED_REPEATS = (
    "checks:\n  - name: huge\n    kind: github_release\n    repo: a/b\n"
    "    match: {pattern: '(?P<value>(?:x{65535}){65535})'}\n"
)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (ALIASED, "too big to read: 12000 uses of aliases (*name); at most 100"),
        (NESTED_REPEATS, "unroll to 4,294,901,760 copies; at most 20,000"),
        ("checks: " + "[" * 5000 + "]" * 5000 + "\n", "too big to read: nested"),
    ],
    ids=["aliases", "nested repeats", "nesting"],
)
def test_a_file_too_big_once_read_is_refused_at_once(tmp_path: Path, text: str, said: str) -> None:
    """Issue 37: a checks file small on disk but huge once read (12,000 alias uses of a glob
    every file is tried against: 7 s per 1,000 files a night on main; a pattern whose counted
    repeats compile for minutes; brackets nested 5,000 deep) is refused in well under a second
    by `hippo checks test`, with a lint message naming the bound and what to do."""
    argv, store = seed(tmp_path, text)
    many = {f"services/s{i}.md": f"# S\n\n- {'a' * 100} ships v1.2.{i}\n" for i in range(300)}
    store.write([WriteFile(p, t) for p, t in many.items()], author=Author("a", "a@x"), message="m")
    run = _checks_test(argv)
    assert run.returncode == 1, run.stderr[-1000:]
    assert said in run.stdout and "hippo checks test" in run.stdout
