"""A write: entry-level operations and their pure application to a tree.

operations.py defines the operations (AddEntry, ReplaceEntry, …) and the rules that need no
tree (`check_op`, `check_path`); apply.py applies a list of them to a tree (`apply_ops`), one
file at a time through edited_file.py; validate.py holds the rules every string obeys before
it reaches git, whichever door it came through.
"""

from typing import TYPE_CHECKING

from memory.lazy import exports

if TYPE_CHECKING:
    from memory.writes.apply import apply_ops
    from memory.writes.operations import (
        AddEntry,
        AddTombstone,
        AppendLine,
        Applied,
        DeleteFile,
        Meta,
        MoveFile,
        Operation,
        Reader,
        RemoveEntry,
        ReplaceEntry,
        WriteFile,
        check_op,
        check_path,
        check_write,
        paths_of,
    )

# Each name is imported from its module when first used (memory/lazy.py).
__getattr__, __dir__ = exports(
    __name__,
    {
        "apply": ("apply_ops",),
        "operations": (
            "AddEntry",
            "AddTombstone",
            "AppendLine",
            "Applied",
            "DeleteFile",
            "Meta",
            "MoveFile",
            "Operation",
            "Reader",
            "RemoveEntry",
            "ReplaceEntry",
            "WriteFile",
            "check_op",
            "check_path",
            "check_write",
            "paths_of",
        ),
    },
)

__all__ = [
    "AddEntry",
    "AddTombstone",
    "AppendLine",
    "Applied",
    "DeleteFile",
    "Meta",
    "MoveFile",
    "Operation",
    "Reader",
    "RemoveEntry",
    "ReplaceEntry",
    "WriteFile",
    "apply_ops",
    "check_op",
    "check_path",
    "check_write",
    "paths_of",
]
