"""`hippo dream [--now ISO-TIME]`: run tonight's dream by hand (same lock, steps and digest);
`hippo --memory me|org dream`: that memory's, its digest sent where that memory's goes
(jobs/memory_dreams.py: a person's to them alone)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from bot.cli import output as out

if TYPE_CHECKING:  # imported when the command runs: `hippo --help` stays fast
    from jobs.dream import Outcome
    from jobs.runtime import Runtime


def add_commands(sub: Any) -> None:
    p = sub.add_parser("dream", help="run the nightly dream now (verify, tidy, index, digest)")
    p.add_argument(
        "--now",
        metavar="ISO-TIME",
        help="pretend it is this time (in HIPPO_TIMEZONE unless it has an offset)",
    )
    p.add_argument("--workspace", default="", help="workspace (default: HIPPO_WORKSPACE)")
    out.add_json(p)
    p.set_defaults(func=cmd_dream)


def cmd_dream(args: argparse.Namespace, rt: Runtime) -> int:
    from jobs.dream import run_dream
    from jobs.memories import MemoryRuntime
    from memory.dream.run import STEPS

    if isinstance(rt, MemoryRuntime):  # `--memory me|org`: that memory's digest, never the team's
        from jobs.memory_dreams import dream_runtime

        rt = dream_runtime(rt.base, rt.scope, rt.config.user)

    with out.progress("dream", total=len(STEPS)) as advance:
        outcome = run_dream(rt, args.workspace, args.now, on_step=advance)
    if args.json:
        out.print_json(as_json(outcome))
        return out.FAILED if outcome.status == "busy" else out.OK
    if outcome.status == "busy":
        print("A dream of this workspace is already running; try again when it ends.")
        return out.FAILED
    report = outcome.report
    assert report is not None
    if outcome.status == "skipped":
        print(f"The dream of {report.run_id} already ran; nothing changed.")
        return out.OK
    print(f"Dream of the night of {report.run_id}:")
    for step in report.steps:
        mark = step.commit[:8] if step.commit else "--------"
        adds = sum(f[1] for f in step.files)
        dels = sum(f[2] for f in step.files)
        print(f"  {mark} {step.subject} (+{adds} −{dels})")
    print(f"  {report.claims_checked} claims sent to verifiers")
    print(f"  deletions: {report.deleted} (at most {report.cap} a night)")
    if report.deferred:
        print(f"  deferred to the next night: {', '.join(report.deferred)}")
    if report.unverified:
        print(f"  unverified: {len(report.unverified)} files")
    swept = report.extra.get("sweep")
    if swept:  # jobs/github/sweep.py: the agent's pull requests no webhook told of
        learned, seen = len(swept["learned"]), swept["seen"]
        print(f"  pull requests closed since {swept['since']}: {learned} learned, {seen} before")
        for line in filter(None, [*swept["learned"], *swept["failed"], swept["stopped"]]):
            print(f"    {line}")
    print(f"  snapshot {outcome.snapshot} published; digest {outcome.digest_ts or 'not posted'}")
    return out.OK


def as_json(outcome: Outcome) -> dict[str, Any]:
    report = outcome.report
    if report is None:
        return {"status": outcome.status}
    return {
        "status": outcome.status,
        "run_id": report.run_id,
        "steps": [
            {
                "step": s.step,
                "subject": s.subject,
                "commit": s.commit,
                "added": sum(f[1] for f in s.files),
                "removed": sum(f[2] for f in s.files),
                "files": [f[0] for f in s.files],
            }
            for s in report.steps
        ],
        "claims_checked": report.claims_checked,
        "deleted": report.deleted,
        "cap": report.cap,
        "deferred": report.deferred,
        "unverified": report.unverified,
        "failed": report.failed,
        "sweep": report.extra.get("sweep"),
        "snapshot": outcome.snapshot,
        "digest_ts": outcome.digest_ts,
    }
