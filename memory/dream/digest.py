"""The morning digest as Slack Block Kit: pure, from a dream Report (no Slack client here).

Blocks: a header; the daily note; per step what changed (files, +/− lines) with a link to the
console diff and a "Revert" button (`action_id` "dream_revert", value "<workspace>|<commit>"),
except on the state step, which only touches `.dream/` (no person may write there);
corrections with their evidence; deletions and whether the cap was hit; lessons and agents'
entries that became active; contradictions for a person to settle; possible duplicates, each
with a "Merge" button (`action_id` "dream_merge_pair", value "<workspace>|<JSON pair>");
unverified files; files
nobody used in 60 days, each with a "Forget" button (`action_id` "dream_forget_file", value
"<workspace>|<path>"); Claude tokens used and cache hits.
"""

from __future__ import annotations

import json
from typing import Any

import memory.trust.standing as standing
from memory import format as fmt
from memory import markup
from memory.dream.corrections import FAILED
from memory.dream.merge import Possible
from memory.dream.promote import Contradiction
from memory.dream.report import Report, StepReport
from memory.reminders import show as reminders
from memory.trust.proposals import Proposal

REVERT_ACTION = "dream_revert"
FORGET_ACTION = "dream_forget_file"
ACCEPT_ACTION = "proposal_accept"
DROP_ACTION = "proposal_drop"
MERGE_ACTION = "dream_merge_pair"
MAX_VALUE = 2000  # characters Slack allows in a button's value
MAX_TEXT = 2900  # a section's text is limited to 3000 characters
MAX_LIST = 10

Block = dict[str, Any]


def _section(text: str) -> Block:
    if len(text) > MAX_TEXT:
        text = text[: MAX_TEXT - 1] + "…"
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}}


_escape = markup.slack  # the one Slack escaping function (memory/markup.py)


def _listed(items: list[str], more: str = "more") -> str:
    shown = items[:MAX_LIST]
    tail = f"\n…and {len(items) - len(shown)} {more}" if len(items) > len(shown) else ""
    return "\n".join(f"• {_escape(i)}" for i in shown) + tail


def daily_lines(text: str) -> list[str]:
    """The daily note's entries as plain lines (sources dropped: they are in the file), each
    not of hippo's own records saying so: `(tentative, from claude-code)`."""
    out = []
    for e in fmt.parse(text).entries:
        level, whose = standing.of(e), e.get("from") or ""
        said = f"{level}, from {whose}" if whose else level
        out.append(e.text if level == standing.ACTIVE else f"{e.text} ({said})")
    return out


def step_block(step: StepReport, console_url: str, workspace: str) -> list[Block]:
    adds = sum(f[1] for f in step.files)
    dels = sum(f[2] for f in step.files)
    files = ", ".join(f"`{_escape(f[0])}`" for f in step.files[:5])
    if len(step.files) > 5:
        files += f" and {len(step.files) - 5} more"
    assert step.commit is not None
    link = f"<{console_url.rstrip('/')}/console/commit/{step.commit}|diff {step.commit[:8]}>"
    what = _escape(step.subject.split(": ", 1)[-1])
    text = f"*{step.step}* — {what}\n{files} (+{adds} −{dels}) · {link}"
    block = _section(text)
    block["block_id"] = f"dream_step_{step.step}"
    if all(f[0].startswith(".dream/") for f in step.files):
        return [block]  # dreaming's own bookkeeping: only the dreaming identity may write it
    block["accessory"] = {
        "type": "button",
        "action_id": REVERT_ACTION,  # unique within its block, which is one per step
        "text": {"type": "plain_text", "text": "Revert"},
        "value": f"{workspace}|{step.commit}",
        "confirm": {
            "title": {"type": "plain_text", "text": f"Revert {step.step}?"},
            "text": {
                "type": "mrkdwn",
                "text": f"Undo the {step.step} step as a new commit by you.",
            },
            "confirm": {"type": "plain_text", "text": "Revert"},
            "deny": {"type": "plain_text", "text": "Keep"},
        },
    }
    return [block]


def blocks(report: Report, *, console_url: str, workspace: str = "default") -> list[Block]:
    """The digest's blocks for `report`."""
    out: list[Block] = [
        {
            "type": "header",
            "text": {"type": "plain_text", "text": f"Dream of the night of {report.run_id}"},
        }
    ]
    lines = daily_lines(report.daily_text)
    if lines:
        out.append(_section(f"*Daily note* (`{report.daily_path}`)\n" + _listed(lines)))
    else:
        out.append(_section("*Daily note*: nothing new worth keeping a week."))
    foreign = report.extra.get("foreign_state")
    if foreign:
        out.append(
            _section(
                f"*State ignored*: `.dream/state.json` was changed outside dreaming "
                f"({_escape(str(foreign))}); tonight ran from the last state dreaming wrote"
            )
        )
    committed = [s for s in report.steps if s.commit]
    if committed:
        out.append({"type": "divider"})
    for step in committed:
        out.extend(step_block(step, console_url, workspace))
    corrections = next((s for s in report.steps if s.step == "corrections"), None)
    if corrections is not None:
        evidence = [ln.lstrip("- ").strip() for ln in corrections.body if _is_correction(ln)]
        if evidence:
            out.append(_section("*Corrections*\n" + _listed(evidence)))
        failed = [ln[len(FAILED) :].strip() for ln in corrections.body if ln.startswith(FAILED)]
        if failed:
            title = "*Checks that failed* (an answer that is no value of its claim's kind; "
            out.append(_section(title + "nothing written)\n" + _listed(failed)))
    if report.failed:
        out.append(
            _section(
                "*Steps not written* (nothing lost; fix and run again)\n" + _listed(report.failed)
            )
        )
    refused = report.extra.get("checks_errors") or []
    if refused:  # a bad .hippo/checks.yml: the team's checks did not run, the built-in ones did
        title = "*Declared checks not run* (`.hippo/checks.yml`; the built-in checks ran)\n"
        out.append(_section(title + _listed(refused)))
    cap = " — *cap reached*" if report.deferred else ""
    deleted = f"*Deletions*: {report.deleted} of at most {report.cap} tonight{cap}"
    if report.deferred:
        waiting = ", ".join(_escape(p) for p in report.deferred[:MAX_LIST])
        deleted += f"; waiting for the next night: {waiting}"
    out.append(_section(deleted))
    if report.activated:
        out.append(_section("*Lessons now active*\n" + _listed(report.activated)))
    out += reminders.digest_blocks(report.extra.get("reminders"))  # due today, overdue, closed
    out += contradiction_blocks(report.extra.get("contradictions") or [], console_url)
    out += proposal_blocks(report.extra.get("proposals") or [], workspace, console_url)
    out += possible_blocks(report.extra.get("possible_duplicates") or [], workspace)
    out += archive_blocks(report.extra.get("archive") or []) + sweep_blocks(report.extra)
    if report.unverified:
        out.append(_section("*Unverified files*\n" + _listed(report.unverified, "files")))
    out += unused_blocks(report.unused, workspace) + oplog_blocks(
        report.extra.get("oplog") or {}, report.extra.get("lessons_used")
    )
    out.append({"type": "context", "elements": [{"type": "mrkdwn", "text": usage_line(report)}]})
    return out


def archive_blocks(rolled: list[dict[str, Any]]) -> list[Block]:
    """The months the roll-up moved to the cold archive (jobs/archive.py), each commit named
    so a person can revert it (the files come back; docs/MEMORY.md, decision 18)."""
    lines = [
        f"{r['month']}: {r['episodes']} episodes from {r['files']} files "
        f"(commit `{r['commit'][:8]}`)"
        for r in rolled
        if r.get("created") and r.get("commit")
    ]
    if not lines:
        return []
    return [
        _section("*Archive rolled into cold storage* (search with --archive)\n" + _listed(lines))
    ]


def sweep_blocks(extra: dict[str, Any]) -> list[Block]:
    """The night's pull-request sweep (jobs/github/sweep.py): the agent's pull requests learned
    from that no webhook had told of, and why it stopped early (GitHub's rate limit)."""
    swept = extra.get("sweep") or {}
    learned, stopped, failed = (swept.get(k) or [] for k in ("learned", "stopped", "failed"))
    if not (learned or stopped or failed):
        return []
    text = (
        f"*Pull requests swept* (closed since {_escape(str(swept.get('since', '')))[:16]}, "
        f"{int(swept.get('repos', 0))} repositories): learned from {len(learned)}, "
        f"{int(swept.get('seen', 0))} learned already"
    )
    text += ("\n" + _listed(list(learned))) if learned else ""
    text += f"\n*Stopped*: {_escape(str(stopped))}" if stopped else ""
    text += ("\n*Not swept*\n" + _listed(list(failed))) if failed else ""
    return [_section(text)]


def usage_line(report: Report) -> str:
    """Claims sent to verifiers, Claude's tokens tonight, and the agent's cache hits."""
    usage = report.extra.get("usage") or {}
    tokens = int(usage.get("input_tokens", 0)) + int(usage.get("output_tokens", 0))
    cached = int(usage.get("cache_read_input_tokens", 0))
    claims = f"{report.claims_checked} claims sent to verifiers"
    llm = f"Claude: {tokens:,} tokens, {cached:,} read from cache" if usage else "Claude: not used"
    if usage.get("skipped"):  # integrations/dream_llm.py stopped asking an unavailable Claude
        llm += f" (unavailable: {int(usage['skipped']):,} checks done without it)"
    line = f"{claims} · {llm}"
    agent = report.extra.get("agent_usage") or {}
    if agent.get("turns"):
        read = int(agent.get("cache_read", 0))
        prompt = read + int(agent.get("input", 0)) + int(agent.get("cache_write", 0))
        share = f"{100 * read // prompt}%" if prompt else "0%"
        line += f" · agent: {agent['turns']} turns, {share} of prompt tokens read from cache"
    return line


OPLOG_EVENTS = ("recalls", "briefings", "promotions", "revocations", "contradictions")


def oplog_blocks(day: dict[str, Any], used: list[tuple[str, str, int]] | None) -> list[Block]:
    """The operational log of the day before (jobs/oplog.py): what was recalled, briefed,
    promoted, revoked and contradicted, and the lessons handed out most in briefings."""
    if not day:
        return []
    counts = " · ".join(f"{int(day.get(e, 0)):,} {e}" for e in OPLOG_EVENTS)
    text = f"*Activity on {_escape(str(day.get('day', '')))}*: {counts}"
    if used:
        lines = [f"{text} ({n}×, `{path}`)" for path, text, n in used[:5]]
        text += "\n*Lessons briefed most*\n" + _listed(lines)
    return [_section(text)]


def contradiction_blocks(found: list[Contradiction], console_url: str = "") -> list[Block]:
    """What agents wrote against an active entry (memory/trust/agent_gate.py): both are kept, the
    new one tentative, until a person settles it (edits or forgets one of them in the file: each
    line links to the file in the console)."""
    if not found:
        return []
    base = console_url.rstrip("/")
    lines = []
    for c in found[:MAX_LIST]:
        url = f"{base}/console/file/{c.path}"
        where = markup.slack_link(url, c.path) if base else f"`{_escape(c.path)}`"
        source = f" (source: {_escape(c.source)})" if c.source else ""
        lines.append(f"{where}: “{_escape(c.text)}” contradicts “{_escape(c.contradicts)}”{source}")
    more = f"\n…and {len(found) - MAX_LIST} more" if len(found) > MAX_LIST else ""
    head = "*Contradictions to settle* (the active entry stands; the new one is tentative)\n"
    return [_section(head + "\n".join(f"• {line}" for line in lines) + more)]


def proposal_blocks(found: list[Proposal], workspace: str, console_url: str = "") -> list[Block]:
    """Agents' deletions and edits of entries they may not change, and the dream's lessons,
    titles and layout changes (memory/trust/proposals.py), each one card with Accept and Drop
    buttons (`action_id` ACCEPT_ACTION / DROP_ACTION, value
    "<workspace>|<proposal id>"); the console's Proposals page lists them all."""
    if not found:
        return []
    base = console_url.rstrip("/")
    link = f" (<{base}/console/proposals|all in the console>)" if base else ""
    out = [_section(f"*Proposals* (agents' and the dream's): accept or drop each{link}")]
    for i, p in enumerate(found[:MAX_LIST]):
        by = f" — {_escape(p.by)}" if p.by else ""
        block = _section(f"• {_escape(p.describe())}{by}")
        block["block_id"] = f"proposal_{i}"
        out.append(block)
        value = f"{workspace}|{p.id}"
        buttons = [
            {
                "type": "button",
                "action_id": ACCEPT_ACTION,
                "text": {"type": "plain_text", "text": "Accept"},
                "value": value,
                "style": "primary",
            },
            {
                "type": "button",
                "action_id": DROP_ACTION,
                "text": {"type": "plain_text", "text": "Drop"},
                "value": value,
            },
        ]
        out.append({"type": "actions", "block_id": f"proposal_actions_{i}", "elements": buttons})
    if len(found) > MAX_LIST:
        out.append(_section(f"…and {len(found) - MAX_LIST} more in the console"))
    return out


def merge_value(workspace: str, pair: Possible) -> str:
    """The Merge button's value: `<workspace>|` and the pair as JSON (path, text, path, text)."""
    return f"{workspace}|" + json.dumps([pair.path, pair.text, pair.other_path, pair.other_text])


def possible_blocks(found: list[Possible], workspace: str) -> list[Block]:
    """Pairs tidy found close but could not show to be one statement (memory/dream/merge.py):
    nothing merged; each with a Merge button (`action_id` MERGE_ACTION) for a person."""
    if not found:
        return []
    out = [
        _section(
            "*Possible duplicates* (not merged: they may say different things). Merge keeps "
            "the fuller entry with both sources; the other is recorded in forgotten.md"
        )
    ]
    for i, pair in enumerate(found[:MAX_LIST]):
        text = (
            f"`{_escape(pair.path)}`: “{_escape(pair.text)}”\n"
            f"`{_escape(pair.other_path)}`: “{_escape(pair.other_text)}”"
        )
        block = _section(text)
        block["block_id"] = f"dream_possible_{i}"
        value = merge_value(workspace, pair)
        if len(value) <= MAX_VALUE:  # longer entries: merged by hand in the file
            block["accessory"] = {
                "type": "button",
                "action_id": MERGE_ACTION,
                "text": {"type": "plain_text", "text": "Merge"},
                "value": value,
                "confirm": {
                    "title": {"type": "plain_text", "text": "Merge these two entries?"},
                    "text": {
                        "type": "mrkdwn",
                        "text": "Keep one entry with both sources, as a commit by you "
                        "(revertable).",
                    },
                    "confirm": {"type": "plain_text", "text": "Merge"},
                    "deny": {"type": "plain_text", "text": "Keep both"},
                },
            }
        out.append(block)
    if len(found) > MAX_LIST:
        out.append(_section(f"…and {len(found) - MAX_LIST} more"))
    return out


def unused_blocks(paths: list[str], workspace: str) -> list[Block]:
    """Files no session read in 60 days and nothing can verify, each with a Forget button
    (`action_id` FORGET_ACTION, value "<workspace>|<path>"); nothing goes without a person."""
    if not paths:
        return []
    out = [
        _section(
            "*Nobody used these in 60 days* (and nothing can check them): forget them, or "
            "leave them and they stay"
        )
    ]
    for i, path in enumerate(paths[:MAX_LIST]):
        block = _section(f"`{_escape(path)}`")
        block["block_id"] = f"dream_unused_{i}"
        block["accessory"] = {
            "type": "button",
            "action_id": FORGET_ACTION,
            "text": {"type": "plain_text", "text": "Forget"},
            "value": f"{workspace}|{path}",
            "style": "danger",
            "confirm": {
                "title": {"type": "plain_text", "text": "Forget this file?"},
                "text": {
                    "type": "mrkdwn",
                    "text": f"Remove every entry of `{_escape(path)}`; each is recorded in "
                    "forgotten.md, and the commit can be reverted.",
                },
                "confirm": {"type": "plain_text", "text": "Forget"},
                "deny": {"type": "plain_text", "text": "Keep"},
            },
        }
        out.append(block)
    return out


def _is_correction(line: str) -> bool:
    return line.startswith(("- fixed", "- deleted", "- deferred", "  evidence"))


def text(report: Report) -> str:
    """The notification text (the fallback Slack shows where blocks cannot be)."""
    done = [s.step for s in report.steps if s.commit]
    return f"Dream of the night of {report.run_id}: {', '.join(done) or 'nothing changed'}"
