"""`hippo github learn|backfill`: learning from ended agent pull requests without a webhook."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.cli.main import main
from jobs.config import Config
from memory import format as fmt
from tests.fakes.github import FakeGitHub, commit_body, file_body, pull_body

AGENT = "hippo-agent[bot]"
REPO = "octo/app"
OLD = "import mock\n\ndef test_{n}():\n    client = mock.Mock()\n    assert client\n"
NEW = "from tests.fixtures import client\n\ndef test_{n}(client):\n    assert client\n"


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        yield server


def serve(fake: FakeGitHub) -> list[object]:
    """Two agent pull requests people edited alike, and one person's own pull request."""
    listed = []
    for n in (11, 12):
        path = f"tests/unit/test_{n}.py"
        commits = [commit_body(f"a{n}", AGENT, AGENT), commit_body(f"h{n}", "alice", "alice")]
        pull = pull_body(REPO, n, commits=2, head_sha=f"h{n}", merge_commit_sha=f"m{n}")
        fake.add_pull(REPO, pull, commits=commits, files=[file_body(path)])
        fake.grant(REPO, "alice")
        fake.add_files(REPO, f"a{n}", {path: OLD.format(n=n)})
        fake.add_files(REPO, f"m{n}", {path: NEW.format(n=n)})
        listed.insert(0, pull)
    listed.insert(1, pull_body(REPO, 5, opener="alice"))
    fake.route("GET", f"/repos/{REPO}/pulls", listed)
    return listed


def config(tmp_path: Path, url: str) -> Config:
    return Config(
        data_dir=tmp_path / "data",
        memory_remote=str(tmp_path / "remote.git"),
        github_token="t",
        github_api_url=url,
    )


def test_backfill_learns_oldest_first_and_twice_changes_nothing(
    tmp_path: Path, fake: FakeGitHub, capsys: pytest.CaptureFixture[str]
) -> None:
    """backfill skips people's pull requests, goes tentative → active, and is idempotent."""
    serve(fake)
    cfg = config(tmp_path, fake.url)
    assert main(["init"], cfg) == 0
    capsys.readouterr()
    assert main(["github", "backfill", REPO], cfg) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("#11 merged after changes → tentative: Observed:")
    assert out[1].startswith("#12 merged after changes → active: Observed:")
    assert len(out) == 2
    assert main(["github", "backfill", REPO], cfg) == 0
    assert all(line.endswith("(already learned)") for line in capsys.readouterr().out.splitlines())
    assert main(["show", f"conventions/{REPO}.md"], cfg) == 0
    entry = fmt.parse(capsys.readouterr().out).entries[0]
    assert entry.get("status") == "active" and len(entry.get_all("source")) == 2


def test_learn_one_refuses_an_open_pull_request(
    tmp_path: Path, fake: FakeGitHub, capsys: pytest.CaptureFixture[str]
) -> None:
    """learn on an open pull request says it waits for the merge or close, and exits 1."""
    fake.add_pull(REPO, {**pull_body(REPO, 9), "state": "open"}, commits=[], files=[])
    cfg = config(tmp_path, fake.url)
    main(["init"], cfg)
    assert main(["github", "learn", REPO, "9"], cfg) == 1
    assert "still open" in capsys.readouterr().err
    assert main(["github", "learn", "no-slash", "9"], cfg) == 2


def test_learn_one_refuses_a_persons_own_pull_request(
    tmp_path: Path, fake: FakeGitHub, capsys: pytest.CaptureFixture[str]
) -> None:
    """learn on a pull request neither opened by an agent login nor labelled exits 1, writes nothing."""
    serve(fake)
    fake.add_pull(REPO, pull_body(REPO, 5, opener="alice"), commits=[], files=[])
    cfg = config(tmp_path, fake.url)
    main(["init"], cfg)
    capsys.readouterr()
    assert main(["github", "learn", REPO, "5"], cfg) == 1
    assert "not the agent's: opened by alice" in capsys.readouterr().err
    assert main(["show", f"conventions/{REPO}.md"], cfg) != 0


def test_without_credentials_the_cli_says_what_to_set(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """No token and no App: a one-line error naming the settings, exit 2 (configuration)."""
    cfg = Config(data_dir=tmp_path / "data", memory_remote=str(tmp_path / "remote.git"))
    main(["init"], cfg)
    assert main(["github", "learn", REPO, "1"], cfg) == 2
    assert "GITHUB_TOKEN" in capsys.readouterr().err
