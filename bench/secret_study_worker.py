"""One tree's scanner behind a pipe, for bench/secret_study.py: run from a tree's root (this
one, or main's extracted to a temporary folder), it answers one JSON request a line.

    {"judge": [text, ...]}  ->  {"lint": [bool, ...], "note": [bool, ...]}
    {"time": text}          ->  {"wall": seconds, "cpu": seconds}

`lint` is what `hippo lint` reports for a memory file holding the text (memory.secrets.scan);
`note` whether `hippo note` refuses it as a secret (memory.notes.clean_note raises SecretFound).
"""

from __future__ import annotations

import json
import os
import sys
import time

sys.path.insert(0, os.getcwd())

from memory import notes, secrets
from memory.errors import NoteRejected, SecretFound


def _note_refuses(text: str) -> bool:
    try:
        notes.clean_note(text)
    except SecretFound:
        return True
    except NoteRejected:
        return False
    return False


def main() -> None:
    for line in sys.stdin:
        req = json.loads(line)
        if "judge" in req:
            texts = req["judge"]
            out = {
                "lint": [bool(secrets.scan(t)) for t in texts],
                "note": [_note_refuses(t) for t in texts],
            }
        else:
            wall, cpu = time.perf_counter(), time.process_time()
            secrets.scan(req["time"])
            out = {"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu}
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
