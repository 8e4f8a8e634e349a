"""The folder where processes of one host keep Prometheus values (multiprocess mode).

Kept apart from integrations/metrics.py on purpose: prometheus-client decides between memory
and files when first imported, so this must run (and set PROMETHEUS_MULTIPROC_DIR) before.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

_FILE = re.compile(r"_(\d+)\.db$")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def prepare(folder: str) -> str:
    """Create `folder` and remove the files of processes that no longer run (their counters
    would otherwise be summed forever; Prometheus reads the drop as a counter reset)."""
    path = Path(folder)
    path.mkdir(parents=True, exist_ok=True)
    for f in path.glob("*.db"):
        m = _FILE.search(f.name)
        if m and not _alive(int(m.group(1))):
            f.unlink(missing_ok=True)
    return folder
