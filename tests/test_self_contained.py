"""The repository is self-contained: tests read their data from tests/data, never from beside it.

A fresh `git clone` in an empty folder must pass the suite (`.ci/run` runs `make test` that way);
here the data-reading tests run from such a clone, and every data file is checked to be used,
well-formed and named in tests/data/README.md.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import CONFORMANCE, ROOT

# Places a reader could reach outside the checkout. Spelled in pieces so this file does not match.
OUTSIDE = ("../" + "shared", "shared/" + "conformance", "ROOT." + "parent", "parents[" + "2]")
SCANNED = ("tests", "bench", "bot", "demo", "jobs", "memory", "integrations")


def scanned_files() -> list[Path]:
    files = [ROOT / "Makefile", ROOT / ".ci" / "run", ROOT / "pyproject.toml"]
    for top in SCANNED:
        files += [
            p
            for p in (ROOT / top).rglob("*")
            if p.is_file() and p.suffix in {".py", ".sh", ".toml", ".cfg", ".ini"}
        ]
    return files


def test_no_reader_points_outside_the_repository() -> None:
    """No code, test, benchmark or build file names a path beside the checkout."""
    found = [
        f"{path.relative_to(ROOT)}: {needle}"
        for path in scanned_files()
        for needle in OUTSIDE
        if needle in path.read_text(errors="replace")
    ]
    assert found == []


def test_the_conformance_folder_is_inside_the_repository() -> None:
    """CONFORMANCE resolves under the checkout, and the code imported is this checkout's own."""
    import memory

    assert CONFORMANCE.resolve().is_relative_to(ROOT)
    assert Path(memory.__file__).resolve().is_relative_to(ROOT)


def data_files() -> list[Path]:
    return sorted(p for p in CONFORMANCE.rglob("*") if p.is_file() and p.name != "README.md")


def test_every_data_file_is_well_formed_used_and_credited() -> None:
    """Each copied file parses, is read by a test (by name, or by its folder's glob), and its
    folder has a row in tests/data/README.md naming the source and licence."""
    readme = (CONFORMANCE / "README.md").read_text()
    test_code = "\n".join(
        p.read_text() for p in (ROOT / "tests").rglob("*.py") if p.name != Path(__file__).name
    )
    globbed = {"agentmemoryrepo"}  # test_format and test_search read every example in it
    unused, uncredited = [], []
    assert data_files(), "tests/data is empty"
    for path in data_files():
        rel = path.relative_to(CONFORMANCE)
        if path.suffix == ".json":
            json.loads(path.read_text())  # raises on a damaged copy
        top = rel.parts[0]
        name = path.name.removesuffix(".payload.json")
        if top not in globbed and name not in test_code:
            unused.append(str(rel))
        if f"`{top}/" not in readme:
            uncredited.append(top)
    assert unused == []
    assert uncredited == []
    assert readme.count("| MIT |") == 8


def fresh_clone(dest: Path) -> Path:
    """A `git clone` of this checkout at HEAD, plus its uncommitted edits (so the test checks the
    tree under test), alone in `dest`."""
    clone = dest / "hippo"
    subprocess.run(
        ["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(clone)],
        check=True,
        capture_output=True,
    )
    head = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "HEAD"], check=True, capture_output=True, text=True
    ).stdout.strip()
    subprocess.run(["git", "-C", str(clone), "checkout", "--quiet", "--detach", head], check=True)
    listed = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "-z", "--modified", "--others", "--exclude-standard"],
        check=True,
        capture_output=True,
    ).stdout.split(b"\0")
    for raw in filter(None, listed):
        rel = raw.decode()
        source, target = ROOT / rel, clone / rel
        if source.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
        else:  # deleted in the working tree
            target.unlink(missing_ok=True)
    return clone


# One or more readers per data file, not whole files: the clone's run asserts that the data is
# found and read, and RUN_RECORDING_READS checks that together they open every data file.
FROM_THE_CLONE = [
    "tests/test_self_contained.py",
    "tests/memory/test_format.py::test_every_example_round_trips_byte_for_byte",
    "tests/memory/test_search_all_words.py::test_conformance_examples_are_searchable",
    "tests/memory/test_lint.py::test_conformance_memory_example_reports_its_missing_links",
    "tests/memory/dream/test_claims_corpus.py::test_corpus_is_big_and_has_negatives",
    "tests/memory/test_facts.py::test_same_facts_in_other_words_are_found",
    "tests/bot/slack/test_slack_manifest.py::test_manifest_is_valid",
    "tests/bot/slack/test_slack_manifest.py::test_schema_rejects_the_invalid_example",
    "tests/bot/slack/test_slack_manifest.py::test_every_event_has_a_listener",
    "tests/bot/slack/test_slack_manifest.py::test_every_action_has_a_listener",
    "tests/bot/slack/test_slack_manifest.py::test_every_command_has_a_listener",
    "tests/bot/slack/test_slack_manifest.py::test_every_shortcut_has_a_listener",
    "tests/bot/slack/test_slack_socket.py::test_socket_mode_envelope_is_queued_once",
    "tests/bot/slack/test_slack_front_door.py::test_url_verification_answers_the_challenge",
    "tests/bot/slack/test_slack_front_door.py::test_mention_and_message_copies_make_one_task",
    "tests/bot/slack/test_slack_front_door.py::test_edits_and_bot_messages_are_ignored",
    "tests/bot/slack/test_slack_replies.py::test_dm_question_gets_recall",
    "tests/integrations/test_github_client.py::test_signature_accepts_only_the_hmac_of_the_raw_body",
    "tests/integrations/test_github_client.py::test_app_installation_token_is_minted_with_a_verified_jwt",
    "tests/integrations/test_github_client.py::test_installation_client_uses_the_minted_token",
    "tests/integrations/test_github_client.py::test_fetch_edited_on_top_over_rest",
    "tests/bot/test_github_webhook.py::test_ping_is_answered",
    "tests/bot/test_github_webhook.py::test_installation_reviews_comments_and_bad_bodies",
    "tests/bot/test_github_webhook.py::test_agent_pushes_are_recorded",
    "tests/bot/test_github_webhook.py::test_a_closed_agent_pull_request_is_queued_once",
    "tests/bot/test_github_checks.py::test_learning_comments_once_and_says_when_a_lesson_became_active",
]

# pytest in the clone, with an audit hook noting every file opened under the clone's tests/data;
# the last line of its output names them (a reader that fell back to another copy would not be).
RUN_RECORDING_READS = """
import json, os, sys
import pytest
data = os.path.join(os.getcwd(), "tests", "data") + os.sep
opened = set()
def note(event, args):
    if event == "open" and isinstance(args[0], (str, os.PathLike)):
        path = os.path.abspath(os.fspath(args[0]))
        if path.startswith(data):
            opened.add(os.path.relpath(path, data))
sys.addaudithook(note)
code = pytest.main(sys.argv[1:])
print("OPENED " + json.dumps(sorted(opened)))
sys.exit(code)
"""


@pytest.mark.skipif(not (ROOT / ".git").exists(), reason="not a git checkout")
def test_a_fresh_clone_in_an_empty_folder_reads_all_its_data(tmp_path: Path) -> None:
    """Clone into a folder with nothing beside the clone; the data-reading tests pass there and,
    between them, open every data file from the clone's own tests/data."""
    clone = fresh_clone(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hippo"]
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "PYTEST_ADDOPTS"}}
    run = subprocess.run(
        [
            sys.executable,
            "-c",
            RUN_RECORDING_READS,
            "-q",
            "-p",
            "no:cacheprovider",
            "--deselect",
            "tests/test_self_contained.py::test_a_fresh_clone_in_an_empty_folder_reads_all_its_data",
            *FROM_THE_CLONE,
        ],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert " passed" in run.stdout
    opened = set(json.loads(run.stdout.rsplit("OPENED ", 1)[1]))
    expected = {str(p.relative_to(CONFORMANCE)) for p in data_files()}
    assert sorted(expected - opened) == []
