"""The memory commands of `hippo` load only what they use: no LLM, Celery, Slack, web or GitHub
library, nor detect-secrets for a note that holds nothing its detectors look for (each cost the
CLI hundreds of milliseconds at every start)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli.commands import COMMANDS
from tests.paths import ROOT

# Top-level packages a memory command has no use for.
HEAVY = ("anthropic", "celery", "kombu", "slack_sdk", "slack_bolt", "flask", "github", "mcp")
HEAVY += (
    "detect_secrets",
)  # memory.secrets.library_detectors loads it only for a text that needs it
PROBE = """
import json, sys
from bot.cli.main import main
try:
    code = main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def imported(tmp_path: Path, *argv: str, env: dict[str, str] | None = None) -> tuple[int, set[str]]:
    """Run `hippo *argv` in a fresh interpreter (with `env` added); its exit code and the
    modules it loaded (dotted names and their top-level packages)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HIPPO_", "REDIS_"))} | (
        env or {}
    )
    env |= {
        "HIPPO_MEMORY_REMOTE": str(tmp_path / "remote.git"),
        "HIPPO_DATA_DIR": str(tmp_path / "data"),
        "PYTHONPATH": str(ROOT),
    }
    run = subprocess.run(
        [sys.executable, "-c", PROBE, *argv],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    found = json.loads(run.stdout.strip().splitlines()[-1])
    names = set(found["modules"])
    return found["code"], names | {m.split(".")[0] for m in names}


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["note", "the checkout queue drains at 02:00"],
        ["search", "checkout queue"],
        ["show", "MEMORY.md"],
        ["log"],
        ["brief", "checkout queue"],
    ],
)
def test_memory_commands_import_no_heavy_library(tmp_path: Path, argv: list[str]) -> None:
    """`hippo --help`, `note`, `search`, `show`, `log` and `brief` run (exit 0) on a local
    memory and import none of anthropic, Celery, Slack, Flask, PyGithub or the MCP SDK; --help
    imports not even the store (pygit2), the briefing, the settings or any command's module (it
    is answered from bot/cli/commands.py); a command loads its own module of commands only."""
    assert imported(tmp_path, "init")[0] == 0
    code, modules = imported(tmp_path, *argv)
    assert code == 0
    assert sorted(modules.intersection(HEAVY)) == []
    own = {"bot.cli.brief"} if argv[0] == "brief" else {"bot.cli.memory"}
    assert sorted(modules.intersection(m for m, _ in COMMANDS) - own) == []
    if argv == ["--help"]:
        lazy = {"pygit2", "redis", "memory.prompts.briefing", "jobs.config", "bot.cli.memory"}
        assert sorted(modules.intersection(lazy)) == []
    else:
        assert "pygit2" in modules  # the probe sees what the command loaded


def test_server_commands_still_load_what_they_serve(tmp_path: Path) -> None:
    """The other side of the rule: `hippo mcp --help` parses without the MCP SDK, and the lazy
    handlers still find their libraries (the dream command loads the dream when it runs)."""
    code, modules = imported(tmp_path, "mcp", "--help")
    assert code == 0 and "mcp" not in modules
    assert imported(tmp_path, "init")[0] == 0
    code, modules = imported(tmp_path, "dream", "--now", "2026-11-30T03:00")
    assert code == 0
    assert "memory.dream.run" in modules


# What a read has no use for: the trust gate's contradiction check (agents' writes), the
# Prometheus client (a write's metrics, and only with PROMETHEUS_MULTIPROC_DIR: a CLI process
# serves no /metrics), logging's config (servers only; memory/lazy.py,
# jobs/runtime.py); and the secret scanner, which `hippo show` loads to lint the file it shows.
WRITE_ONLY = ("memory.trust.agent_gate", "prometheus_client", "logging.config")
WRITE_ONLY += ("redis",)  # the briefing's operational log: not without REDIS_URL
SCANNER = "memory.secrets.scanner"


@pytest.mark.parametrize(
    ("argv", "unused"),
    [(["search", "checkout queue"], (*WRITE_ONLY, SCANNER)), (["show", "MEMORY.md"], WRITE_ONLY)],
)
def test_reads_do_not_load_the_write_path(
    tmp_path: Path, argv: list[str], unused: tuple[str, ...]
) -> None:
    """`hippo search` and `show` never write: they load none of what only a write uses, and
    `hippo --help` does not read the installed metadata (only `--version` does)."""
    assert imported(tmp_path, "init")[0] == 0
    code, modules = imported(tmp_path, *argv)
    assert code == 0
    assert sorted(modules.intersection(unused)) == []
    code, modules = imported(tmp_path, "note", "the checkout queue drains at 02:00")
    assert code == 0  # the probe sees a write load the scanner; metrics only where kept:
    assert SCANNER in modules and "prometheus_client" not in modules
    metrics = {"PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "metrics")}
    (tmp_path / "metrics").mkdir()
    code, modules = imported(tmp_path, "note", "the queue drains at 03:00", env=metrics)
    assert code == 0 and {"prometheus_client", SCANNER} <= modules
    code, modules = imported(tmp_path, "--help")
    assert code == 0 and "importlib.metadata" not in modules


def test_a_search_on_a_warm_cache_loads_no_git(tmp_path: Path) -> None:
    """The first search builds the index beside the cache (git, the store); the next, with the
    remote's tip unchanged or a note ahead, is answered from that index alone (brought up from
    the note's loose objects): no pygit2, no store, no writes module (memory/git/on_disk.py)."""
    assert imported(tmp_path, "init")[0] == 0
    assert imported(tmp_path, "note", "the checkout queue drains at 02:00")[0] == 0
    code, modules = imported(tmp_path, "search", "checkout queue")
    assert code == 0 and "pygit2" in modules
    unused = {"pygit2", "memory.git.store", "memory.writes.operations", "memory.search.index"}
    for _ in range(2):  # the index at the tip; then a note behind it, read from loose objects
        code, modules = imported(tmp_path, "search", "checkout queue")
        assert code == 0
        assert sorted(modules.intersection({*unused, *WRITE_ONLY, SCANNER})) == []
        assert imported(tmp_path, "note", "the checkout queue drains at 03:00 now")[0] == 0


def test_a_reader_that_leaves_early_ends_the_command_quietly(tmp_path: Path) -> None:
    """`hippo search … | head -1`: the pipe closes under the command; it exits 141 (128 +
    SIGPIPE, as git does) with no traceback."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HIPPO_", "REDIS_"))}
    env |= {"HIPPO_MEMORY_REMOTE": str(tmp_path / "remote.git"),
            "HIPPO_DATA_DIR": str(tmp_path / "data"), "PYTHONPATH": str(ROOT)}  # fmt: skip
    hippo = [sys.executable, "-m", "bot.cli.main"]
    subprocess.run([*hippo, "init"], env=env, check=True, capture_output=True, timeout=60)
    subprocess.run([*hippo, "note", "the checkout queue drains at 02:00"], env=env, check=True,
                   capture_output=True, timeout=60)  # fmt: skip
    run = _search_into_closed_pipe(hippo, env)
    assert run == (141, b"")


def _search_into_closed_pipe(hippo: list[str], env: dict[str, str]) -> tuple[int, bytes]:
    """Run `hippo search` with its stdout a pipe whose reader has already left: the exit code
    and what it wrote to stderr."""
    read, write = os.pipe()
    os.close(read)
    proc = subprocess.Popen(
        [*hippo, "search", "checkout queue"],
        env=env,
        stdout=write,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    os.close(write)
    _, err = proc.communicate(timeout=60)
    return proc.returncode, err
