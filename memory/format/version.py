"""The memory format version: `.dream/state.json` records the version hippo wrote
(`formatVersion`). A memory written by a newer hippo is refused for writing (this hippo could
damage what it does not know); `hippo migrate` upgrades an older memory, one step per version.

Version 1 is the format described in docs/MEMORY.md (entries, metadata, forgotten.md, archive/,
.dream/state.json). A memory without the key predates versioning and is version 1.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping

from memory.errors import FormatTooNew
from memory.writes.operations import Operation, WriteFile

FORMAT_VERSION = 1
STATE = ".dream/state.json"
_KEY = re.compile(r'"formatVersion"\s*:\s*(\d+)')

# from-version → the operations that bring a tree at that version to the next one. Empty until
# the format first changes; `hippo migrate` then has something to run.
MIGRATIONS: dict[int, Callable[[Mapping[str, str]], list[Operation]]] = {}


def of(state_text: str | None) -> int:
    """The version recorded in the state file's text (1 when it records none)."""
    m = _KEY.search(state_text or "")
    return int(m.group(1)) if m else 1


def check(state_text: str | None) -> int:
    """The recorded version; FormatTooNew when it is newer than this hippo knows."""
    found = of(state_text)
    if found > FORMAT_VERSION:
        raise FormatTooNew(found, FORMAT_VERSION)
    return found


def plan(tree: Mapping[str, str]) -> tuple[int, list[Operation]]:
    """(version found, the operations that bring `tree` to FORMAT_VERSION)."""
    found = check(tree.get(STATE))
    ops: list[Operation] = []
    for v in range(found, FORMAT_VERSION):
        ops.extend(MIGRATIONS[v](tree))
    return found, ops


def migrate_ops(tree: Mapping[str, str]) -> tuple[int, list[Operation]]:
    """`plan`, plus the state file rewritten at FORMAT_VERSION when it records an older one
    (or none): what `hippo migrate` commits as the dreaming identity."""
    found, ops = plan(tree)
    text = tree.get(STATE)
    if found == FORMAT_VERSION and text and _KEY.search(text):
        return found, ops
    try:
        data = json.loads(text) if text else {}
    except (ValueError, RecursionError):
        data = {}
    data = data if isinstance(data, dict) else {}
    rest = {k: v for k, v in data.items() if k != "formatVersion"}
    data = {"formatVersion": FORMAT_VERSION, **rest}
    ops.append(WriteFile(STATE, json.dumps(data, indent=2) + "\n"))
    return found, ops
