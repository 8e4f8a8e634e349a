"""Where the repository and its test data are, for tests at any depth of tests/."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"
