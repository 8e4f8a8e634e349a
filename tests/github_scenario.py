"""The pitfall scenario (issue 18): people teach a lesson on two agent pull requests, then the agent
repeats the mistake in three later ones (and gets one right).

The later pull requests are real git branches of a small repository built in a temporary folder;
their `patch` fields are what `git diff base...branch` prints for each file (without the header
lines, as GitHub's pulls/{n}/files gives them). `EXPECTED` lists, by hand, the lines of each
head version that repeat the mistake: the check run must flag exactly those.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from tests.fakes.github import FakeGitHub, commit_body, file_body, pull_body

AGENT = "hippo-agent[bot]"
REPO = "octo/shop"
# What the agent wrote in pull requests 1 and 2, and what alice merged instead.
TAUGHT_OLD = "import mock\n\ndef test_{n}():\n    client = mock.Mock()\n    assert client\n"
TAUGHT_NEW = "from tests.fixtures import client\n\ndef test_{n}(client):\n    assert client\n"

BASE = {
    "tests/unit/test_orders.py": (
        '"""Orders."""\n'
        "\n"
        "from tests.fixtures import client\n"
        "\n"
        "\n"
        "def test_list_orders(client):\n"
        '    assert client.get("/orders").status_code == 200\n'
    ),
    "tests/unit/test_cart.py": (
        '"""The cart."""\n'
        "\n"
        "from tests.fixtures import cart\n"
        "\n"
        "\n"
        "def test_empty_cart(cart):\n"
        "    assert cart.total == 0\n"
    ),
    "src/shop/payments.py": '"""Payments."""\n\n\ndef charge(amount):\n    return amount\n',
}

# The agent's later pull requests: number → files as the branch leaves them.
LATER = {
    3: {
        "tests/unit/test_orders.py": (
            '"""Orders."""\n'
            "\n"
            "from unittest import mock\n"  # line 3
            "\n"
            "from tests.fixtures import client\n"
            "\n"
            "\n"
            "def test_list_orders(client):\n"
            '    assert client.get("/orders").status_code == 200\n'
            "\n"
            "\n"
            "def test_order_is_charged(client):\n"
            '    with mock.patch("shop.payments.charge") as charge:\n'  # line 13
            '        client.post("/orders", json={"sku": "a1"})\n'
            "    assert charge.called\n"
        ),
    },
    4: {
        "tests/unit/test_refunds.py": (
            '"""Refunds."""\n'
            "\n"
            "import mock\n"  # line 3
            "\n"
            "\n"
            "def test_refund_calls_the_gateway():\n"
            "    gateway = mock.Mock()\n"  # line 7
            "    gateway.refund(10)\n"
            "    gateway.refund.assert_called_once_with(10)\n"
        ),
    },
    5: {
        "tests/unit/test_cart.py": (
            '"""The cart."""\n'
            "\n"
            "from tests.fixtures import cart\n"
            "from unittest import mock\n"  # line 4
            "\n"
            "\n"
            "def test_empty_cart(cart):\n"
            "    assert cart.total == 0\n"
            "\n"
            "\n"
            '@mock.patch("shop.cart.now")\n'  # line 11
            "def test_cart_expires(now, cart):\n"
            "    now.return_value = 10**9\n"
            "    assert cart.expired\n"
        ),
        "src/shop/payments.py": (
            '"""Payments."""\n\n\ndef charge(amount):\n    return round(amount, 2)\n'
        ),
    },
    6: {  # done right: a fixture, and a change outside the lesson's files
        "tests/unit/test_cart.py": (
            '"""The cart."""\n'
            "\n"
            "from tests.fixtures import cart\n"
            "\n"
            "\n"
            "def test_empty_cart(cart):\n"
            "    assert cart.total == 0\n"
            "\n"
            "\n"
            "def test_cart_total(cart):\n"
            "    cart.add('a1', 2)\n"
            "    assert cart.total == 2\n"
        ),
        "src/shop/payments.py": (
            '"""Payments."""\n\n\ndef charge(amount, mock_gateway=None):\n    return amount\n'
        ),
    },
}

EXPECTED: dict[int, list[tuple[str, int]]] = {
    3: [("tests/unit/test_orders.py", 3), ("tests/unit/test_orders.py", 13)],
    4: [("tests/unit/test_refunds.py", 3), ("tests/unit/test_refunds.py", 7)],
    5: [("tests/unit/test_cart.py", 4), ("tests/unit/test_cart.py", 11)],
    6: [],
}


def serve_taught(fake: FakeGitHub, n: int) -> None:
    """Agent pull request n (1 or 2): inline mocks the agent wrote, alice's fixtures merged."""
    path = f"tests/unit/test_{n}.py"
    commits = [commit_body(f"a{n}", AGENT, AGENT), commit_body(f"h{n}", "alice", "web-flow")]
    pull = pull_body(REPO, n, commits=2, head_sha=f"h{n}", merge_commit_sha=f"m{n}")
    fake.add_pull(REPO, pull, commits=commits, files=[file_body(path)])
    fake.grant(REPO, "alice")  # a maintainer: only people with write access teach
    fake.add_files(REPO, f"a{n}", {path: TAUGHT_OLD.format(n=n)})
    fake.add_files(REPO, f"m{n}", {path: TAUGHT_NEW.format(n=n)})


def _git(repo: Path, *args: str) -> str:
    who = ["-c", "user.name=agent", "-c", "user.email=agent@example.com"]
    done = subprocess.run(
        ["git", *who, *args], cwd=repo, check=True, capture_output=True, text=True
    )
    return done.stdout


@dataclass(frozen=True)
class Branch:
    number: int
    head_sha: str
    patches: dict[str, str]  # path → GitHub-style patch
    statuses: dict[str, str]  # path → added | modified


def _patch(diff: str) -> str:
    """git's diff of one file without its header: from the first hunk on, as GitHub serves it."""
    lines = diff.split("\n")  # git's lines: a form feed inside one is not a line break
    start = next((i for i, line in enumerate(lines) if line.startswith("@@")), len(lines))
    return "\n".join(lines[start:]).rstrip("\n")


def build_branches(root: Path) -> list[Branch]:
    """A real repository with the base files on main and one branch per later pull request."""
    root.mkdir(parents=True, exist_ok=True)
    _git(root, "init", "-q", "-b", "main")
    for path, text in BASE.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "base")
    return [add_branch(root, n, files) for n, files in LATER.items()]


def add_branch(root: Path, n: int, files: dict[str, str]) -> Branch:
    """Agent pull request n: a branch off main of the repository at `root` (built by
    build_branches) leaving `files` so; its patches are what git diffs."""
    _git(root, "checkout", "-q", "-b", f"agent/{n}", "main")
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(text.encode())  # exactly these bytes: no newline translation
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", f"agent change {n}")
    head = _git(root, "rev-parse", "HEAD").strip()
    patches, statuses = {}, {}
    for path in sorted(files):
        patches[path] = _patch(_git(root, "diff", f"main...agent/{n}", "--", path))
        statuses[path] = "modified" if path in BASE else "added"
    _git(root, "checkout", "-q", "main")
    return Branch(n, head, patches, statuses)


def serve_later(fake: FakeGitHub, branch: Branch) -> None:
    """An open agent pull request whose files carry git's patches."""
    n = branch.number
    pull = pull_body(REPO, n, merged=False, head_sha=branch.head_sha)
    pull["state"] = "open"
    files = [file_body(p, branch.statuses[p], patch=text) for p, text in branch.patches.items()]
    fake.add_pull(REPO, pull, commits=[commit_body(branch.head_sha, AGENT, AGENT)], files=files)
