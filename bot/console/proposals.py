"""/console/proposals: what agents proposed (deletions and edits of entries they may not change),
each settled by one click of the signed-in person (jobs/proposals.py)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, flash, redirect, render_template, request, url_for

from bot.console.auth import author
from jobs import proposals as settling
from jobs.runtime import Runtime
from memory.errors import MemoryStoreError
from memory.trust import proposals


def install(bp: Blueprint, rt: Runtime) -> None:
    @bp.get("/proposals")
    def proposals_page() -> Any:
        tree = {p: b.decode("utf-8", "replace") for p, b in rt.store.tree().items()}
        return render_template("console/proposals.html", proposals=proposals.pending(tree))

    @bp.post("/proposals/<proposal_id>")
    def settle(proposal_id: str) -> Any:
        accept = request.form.get("decision") == "accept"
        try:
            flash(settling.settle(rt, proposal_id, accept=accept, who=author()), "ok")
        except MemoryStoreError as exc:
            flash(str(exc), "error")
        return redirect(url_for("console.proposals_page"))
