"""The one table of who may do what (memory/trust/actors.py), docs/TRUST.md's per-actor-kind
table, and the decision of a Slack user's kind from Slack's own payloads."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from memory.trust.actors import MAY, Action, Actor, Kind, may, refusal, slack_kind
from tests.paths import DATA, ROOT

USERS_INFO = json.loads((DATA / "slack-web-api" / "java-slack-sdk" / "users.info.json").read_text())


def doc_table() -> dict[str, dict[str, str]]:
    """docs/TRUST.md's per-actor-kind table: kind → action → cell."""
    text = (ROOT / "docs" / "TRUST.md").read_text()
    section = text.split("## Per actor kind", 1)[1].split("\n## ", 1)[0]
    rows = [r for r in section.splitlines() if r.startswith("| ")]
    header = [c.strip() for c in rows[0].strip("|").split("|")]
    out = {}
    for row in rows[2:]:
        cells = [c.strip() for c in row.strip("|").split("|")]
        kind = re.sub(r"[`*]", "", cells[0])
        out[kind] = dict(zip(header[3:], cells[3:], strict=True))
    return out


def test_the_docs_table_is_the_codes_table() -> None:
    """Every kind and action of the code's table is a row and a column of TRUST.md's, with
    'yes' (or 'admins', for ADMIN needing an admin) exactly where the code allows."""
    table = doc_table()
    assert set(table) == {k.value for k in Kind}
    for kind in Kind:
        row = table[kind.value]
        assert set(row) == {a.value for a in Action}, kind
        for action in Action:
            allowed = action in MAY[kind]
            want = "admins" if kind is Kind.MEMBER and action is Action.ADMIN else "yes"
            assert row[action.value] == (want if allowed else "–"), (kind, action)


def test_admin_for_a_member_needs_an_admin() -> None:
    """A member presses admin buttons only as an admin; outsiders never, admin or not."""
    assert not may(Actor(Kind.MEMBER, "W1", "slack"), Action.ADMIN)
    assert may(Actor(Kind.MEMBER, "W1", "slack", admin=True), Action.ADMIN)
    assert not may(Actor(Kind.EXTERNAL, "W2", "slack", admin=True), Action.ADMIN)
    text = refusal(Actor(Kind.GUEST, "W3", "slack", "you are a guest in this workspace"),
                   Action.INSTRUCT)  # fmt: skip
    assert text.startswith("Only people of this workspace's team can give hippo instructions")
    assert "(you are a guest in this workspace)" in text and "ask a member" in text


def info(**fields: Any) -> dict[str, Any]:
    user: dict[str, Any] = {**USERS_INFO["user"], "team_id": "T111"}
    user.pop("enterprise_user")
    return {**user, **fields}


@pytest.mark.parametrize(
    ("user", "facts", "kind"),
    [
        (info(), {}, Kind.MEMBER),
        (info(is_restricted=True), {}, Kind.GUEST),
        (info(is_restricted=True, is_ultra_restricted=True), {}, Kind.GUEST),
        (info(team_id="T999", is_admin=True), {}, Kind.EXTERNAL),
        (info(is_stranger=True), {}, Kind.EXTERNAL),
        (info(deleted=True), {}, Kind.EXTERNAL),
        (info(is_bot=True), {}, Kind.APP),
        (info(is_app_user=True), {}, Kind.APP),
        (info(), {"app": "B999"}, Kind.APP),
        (info(), {"user_team": "T999"}, Kind.EXTERNAL),
        (None, {}, Kind.UNKNOWN),
        # Enterprise Grid: their home workspace differs, the org's teams include ours
        (
            info(
                team_id="T222", enterprise_user={"enterprise_id": "E1", "teams": ["T111", "T222"]}
            ),
            {"enterprise": "E1"},
            Kind.MEMBER,
        ),
        (
            info(enterprise_user={"enterprise_id": "E9", "teams": ["T111"]}),
            {"enterprise": "E1"},
            Kind.EXTERNAL,
        ),
    ],
)
def test_a_slack_users_kind(user: dict[str, Any] | None, facts: dict[str, str], kind: Kind) -> None:
    """users.info's answer (Slack's shape, the Java SDK's sample) and the request's own fields
    decide the kind; an app named by the payload needs no users.info."""
    assert slack_kind(user, team="T111", **facts)[0] is kind
