"""`ast.parse` for the tests that read hippo's own source (architecture, docs, packaging, keys).

CPython 3.11 before 3.11.8 keeps the AST constructor's recursion depth in state that threads
share, so a parse while another thread of the same process parses can fail with a spurious
"SystemError: AST constructor recursion depth mismatch" (python/cpython#106905). Under xdist a
test's in-process servers may still be running threads; CI on 3.11.7 hit it once. The parse is
pure, so it is asked again.
"""

from __future__ import annotations

import ast


def parse(source: str) -> ast.Module:
    for _ in range(3):
        try:
            return ast.parse(source)
        except SystemError:
            continue
    return ast.parse(source)
