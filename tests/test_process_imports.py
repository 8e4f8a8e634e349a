"""The web and worker processes import what their routes and tasks need when they need it: a
process that never answers a question with Claude, never talks to GitHub and never serves MCP
does not carry anthropic, PyGithub or the MCP SDK (about 150 MB of every process before)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import ROOT

LAZY = ("anthropic", "github", "mcp", "pydantic")
PROBE = """
import json, sys
{code}
print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}})))
"""


def loaded(tmp_path: Path, code: str) -> set[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HIPPO_", "REDIS_"))}
    env |= {"HIPPO_DATA_DIR": str(tmp_path / "data"), "PYTHONPATH": str(ROOT)}
    env |= {"HIPPO_MEMORY_REMOTE": str(tmp_path / "remote.git"), "ANTHROPIC_API_KEY": ""}
    run = subprocess.run(
        [sys.executable, "-c", PROBE.format(code=code)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return set(json.loads(run.stdout.strip().splitlines()[-1]))


@pytest.mark.parametrize(
    ("process", "code", "needs"),
    [
        ("web", "from bot.app import create_app\ncreate_app()", {"flask", "slack_bolt"}),
        ("worker", "import jobs.worker", {"celery", "kombu"}),
    ],
)
def test_a_process_starts_without_the_clients_it_has_not_used(
    tmp_path: Path, process: str, code: str, needs: set[str]
) -> None:
    """The web app (every route registered) and the Celery worker (every task registered)
    start without anthropic, PyGithub, the MCP SDK or pydantic, and with what they serve."""
    modules = loaded(tmp_path, code)
    assert sorted(modules.intersection(LAZY)) == [], process
    assert needs <= modules
