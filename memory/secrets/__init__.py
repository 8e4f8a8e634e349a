"""Credentials recognised in text before it is committed: `scan`, `first` and `redact`.

scanner.py runs the passes; patterns.py holds one Detector per documented token format,
contextual.py the credentials found by what surrounds them (a URL's password, a key word),
values.py the judgement of a value (placeholder, name, code or secret), and
library_detectors.py detect-secrets' own detectors, loaded only when a text needs them.
"""

from typing import TYPE_CHECKING

from memory.lazy import exports

if TYPE_CHECKING:
    from memory.secrets.patterns import Detector
    from memory.secrets.scanner import DETECTORS, Hit, first, redact, scan

# Imported when first used (memory/lazy.py): a search or a read never scans for secrets.
__getattr__, __dir__ = exports(
    __name__,
    {"patterns": ("Detector",), "scanner": ("DETECTORS", "Hit", "first", "redact", "scan")},
)

__all__ = ["DETECTORS", "Detector", "Hit", "first", "redact", "scan"]
