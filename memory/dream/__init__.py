"""Dreaming: the nightly pass that keeps memory true. Pure steps (no network I/O); `run.dream`
orchestrates them against the store, each step one commit. See memory/dream/run.py."""
