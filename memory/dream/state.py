"""`.dream/state.json`: what the last dream saw and did, so the next one knows where to start.

Keys: `formatVersion` (the memory format hippo wrote, memory/format/version.py), `lastRun` (the run
id: the night's date), `lastRunAt` (ISO time), `lastCommit` (the commit the dream finished on,
before this file), `checked` (path → date last verified), `unverified` (paths with claims
nothing could check), `deferred` (paths whose deletions waited for the cap), `apart` (fact keys of
entries a person un-merged: tidy never merges them again on its own; and `tag:<spelling>` for tag
spellings whose merge a person reverted, memory/dream/tag_vocabulary.py; written only when any),
and `resurrected` (paths where a forgotten fact a plain push brought back was found: looked at
again the next night, until none is left there; absent until a night has looked at every file,
memory/dream/plain_git.py)
(the prompt snapshots are refs, see memory/prompts/snapshot.py).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import memory.format.version as version
from memory.writes.operations import WriteFile

PATH = ".dream/state.json"
MAX_APART = 5_000  # un-merged facts remembered (a person's undo of a merge is rare)


@dataclass
class State:
    last_run: str = ""
    last_run_at: str = ""
    last_commit: str = ""
    checked: dict[str, str] = field(default_factory=dict)
    unverified: list[str] = field(default_factory=list)
    deferred: list[str] = field(default_factory=list)
    apart: list[str] = field(default_factory=list)
    resurrected: list[str] | None = None  # None: no night has looked at every file yet
    format_version: int = version.FORMAT_VERSION

    @classmethod
    def load(cls, text: str | None) -> State:
        """Parse the file; a missing or damaged file is a fresh state (the dream starts over)."""
        if not text:
            return cls()
        try:
            data = json.loads(text)
        except (ValueError, RecursionError):  # damaged, or nested thousands deep
            return cls()
        if not isinstance(data, dict):
            return cls()
        checked = data.get("checked")
        return cls(
            last_run=str(data.get("lastRun") or ""),
            last_run_at=str(data.get("lastRunAt") or ""),
            last_commit=str(data.get("lastCommit") or ""),
            checked={str(k): str(v) for k, v in checked.items()}
            if isinstance(checked, dict)
            else {},
            unverified=_strings(data.get("unverified")),
            deferred=_strings(data.get("deferred")),
            apart=_strings(data.get("apart")),
            resurrected=_strings(data["resurrected"]) if "resurrected" in data else None,
            format_version=version.of(text),
        )

    def dump(self) -> str:
        data = {
            "formatVersion": self.format_version,
            "lastRun": self.last_run,
            "lastRunAt": self.last_run_at,
            "lastCommit": self.last_commit,
            "checked": dict(sorted(self.checked.items())),
            "unverified": sorted(set(self.unverified)),
            "deferred": sorted(set(self.deferred)),
        }
        if self.resurrected is not None:
            data["resurrected"] = sorted(set(self.resurrected))
        if self.apart:
            data["apart"] = sorted(set(self.apart))[-MAX_APART:]
        return json.dumps(data, indent=2, sort_keys=False) + "\n"


def _strings(value: object) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []


def next_state(
    old: State,
    *,
    run_id: str,
    run_at: str,
    last_commit: str,
    checked: Iterable[str],
    today: str,
    verified: Iterable[str],
    unverified: Iterable[str],
    deferred: Iterable[str],
    existing: Iterable[str],
    apart: Iterable[str] = (),
    resurrected: Iterable[str] | None = None,
) -> State:
    """The state after a run: checked dates updated, lists kept to files that still exist."""
    alive = set(existing)
    marks: Mapping[str, str] = {**old.checked, **dict.fromkeys(checked, today)}
    unv = (set(old.unverified) - set(verified) - set(checked)) | set(unverified)
    return State(
        format_version=old.format_version,  # only `hippo migrate` moves it
        last_run=run_id,
        last_run_at=run_at,
        last_commit=last_commit,
        checked={p: d for p, d in marks.items() if p in alive},
        unverified=sorted(p for p in unv if p in alive),
        deferred=sorted(p for p in set(deferred) if p in alive),
        apart=sorted(set(old.apart) | set(apart)),
        resurrected=None if resurrected is None else sorted(set(resurrected) & alive),
    )


def write_op(state: State) -> WriteFile:
    return WriteFile(PATH, state.dump())
