"""hippo installed in many workspaces, for tests: the Config, and installations saved directly
(the OAuth flow itself is tested end to end in tests/bot/slack/test_slack_install.py)."""

from __future__ import annotations

from pathlib import Path

from slack_sdk.oauth.installation_store import Installation

from jobs.config import Config
from jobs.runtime import Runtime
from tests.fakes.slack import SECRET


def many_config(tmp_path: Path, slack_url: str, redis_url: str, database_url: str = "") -> Config:
    """OAuth on (client id and secret), each workspace's remote a bare repo under remotes/."""
    return Config(
        redis_url=redis_url,
        data_dir=tmp_path / "data",
        memory_remote=str(tmp_path / "own.git"),
        memory_remote_template=str(tmp_path / "remotes" / "memory-{team}.git"),
        slack_signing_secret=SECRET,
        slack_api_url=slack_url,
        slack_client_id="111.222",
        slack_client_secret="client-secret",
        database_url=database_url,
        public_url="https://hippo.test",
    )


def installed(rt: Runtime, team: str, token: str) -> None:
    """What a finished OAuth flow saves for `team` (bot U<team>, B<team>)."""
    rt.workspaces.installs.installations.save(
        Installation(
            app_id="AHIPPO",
            enterprise_id=None,
            team_id=team,
            team_name=f"Team {team}",
            bot_token=token,
            bot_id=f"B{team}",
            bot_user_id=f"U{team}",
            bot_scopes="chat:write",
            user_id=f"W{team}",
        )
    )
