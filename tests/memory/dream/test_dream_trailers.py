"""A night that defers more deletions than one commit trailer can name (hundreds of files on a
1,000-file memory) still commits its corrections: the list is split over numbered trailers,
and a rerun after a crash reads every part back into the state."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from memory.dream.run import dream
from memory.dream.state import State
from memory.dream.verifiers import Verdict, Verifiers
from memory.git import Author, Store
from memory.writes import WriteFile
from memory.writes.validate import MAX_TRAILER_CHARS
from tests.fakes.verifiers import TableVerifier

ALICE = Author("alice", "alice@example.com")
NIGHT = datetime(2026, 11, 30, 3, 0)
N = 40  # cap: 6 a night, so 34 files wait


def test_a_long_deferred_list_is_committed_and_read_back(tmp_path: Path) -> None:
    store = Store.open(str(tmp_path / "remote.git"), tmp_path / "data")
    store.init()
    folder = "services/" + "a-rather-long-folder-name-for-this-team-" * 2
    files = {
        f"{folder}/f{i:03}.md": f"# F{i}\n\n- runs from acme/api:gone{i}.py\n" for i in range(N)
    }
    store.write([WriteFile(p, t) for p, t in files.items()], author=ALICE, message="seed")
    verdicts = {f"acme/api:gone{i}.py": Verdict.unfixable("deleted") for i in range(N)}
    verifiers = Verifiers([TableVerifier("github", ["path"], verdicts)])

    def crash(step: str) -> None:
        if step == "corrections":
            raise RuntimeError("worker killed")

    with pytest.raises(RuntimeError):
        dream(store, now=NIGHT, verifiers=verifiers, after_step=crash, limit=N)
    report = dream(store, now=NIGHT, verifiers=verifiers, limit=N)
    assert not report.failed
    fixes = next(s for s in report.steps if s.step == "corrections")
    assert fixes.resumed and fixes.commit
    trailers = store.diff(fixes.commit).commit.trailers
    parts = [k for k in trailers if k.startswith("Hippo-Dream-Deferred")]
    assert len(parts) >= 2 and all(len(trailers[k]) <= MAX_TRAILER_CHARS for k in parts)
    deferred = State.load(store.read(".dream/state.json")).deferred
    assert len(deferred) == N - 6  # every part read back (the cap deleted 6)
    assert set(deferred) <= set(files)
