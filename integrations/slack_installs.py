"""Where hippo keeps the Slack workspaces it is installed in: slack_sdk's SQLAlchemy installation
and OAuth state stores, plus one row of hippo's own per workspace (its memory remote and digest
channel, when and whether it is installed).

DATABASE_URL names the database: PostgreSQL in production (`postgresql://user@host/db`, driven by
psycopg); without it a SQLite file in the data folder, for a laptop. The bot tokens are stored as
Slack hands them out: guard the database as you guard SLACK_SIGNING_SECRET.

Uninstalling (Bolt's `app_uninstalled` and `tokens_revoked` listeners delete the bot) marks the
workspace uninstalled and keeps its row: its memory repository and settings stay for a reinstall.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from slack_sdk.oauth.installation_store import Bot, Installation
from slack_sdk.oauth.installation_store.sqlalchemy import SQLAlchemyInstallationStore
from slack_sdk.oauth.state_store.sqlalchemy import SQLAlchemyOAuthStateStore
from sqlalchemy import Column, DateTime, MetaData, String, Table, and_, create_engine, select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError

from integrations.private_files import private_file

log = logging.getLogger("hippo.slack.installs")

STATE_TTL = 600  # seconds a person has between /slack/install and Slack's redirect back
# How long the ack path trusts a bot it read (`Installs.ack_bot`): an install or uninstall in this
# process forgets it at once; one handled by another web process reaches this one within BOT_TTL.
BOT_TTL = 5.0

_META = MetaData()
WORKSPACES = Table(
    "hippo_workspaces",
    _META,
    Column("team_id", String(32), primary_key=True),
    Column("team_name", String(200), nullable=False, default=""),
    Column("memory_remote", String(1000), nullable=False, default=""),
    Column("digest_channel", String(64), nullable=False, default=""),
    Column("installed_at", DateTime, nullable=True),
    Column("uninstalled_at", DateTime, nullable=True),
)


@dataclass(frozen=True)
class Workspace:
    """One workspace hippo was installed in, and its own settings ("" = the default)."""

    team_id: str
    team_name: str = ""
    memory_remote: str = ""
    digest_channel: str = ""
    installed: bool = False


def database_url(url: str, data_dir: Path) -> str:
    """SQLAlchemy's URL for DATABASE_URL: `postgres://` and `postgresql://` use psycopg 3;
    empty is a SQLite file under the data folder."""
    if not url:
        return f"sqlite:///{Path(data_dir).resolve() / 'slack-installs.db'}"
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url.removeprefix(prefix)
    return url


def make_engine(url: str, data_dir: Path) -> Engine:
    full = database_url(url, data_dir)
    if full.startswith("sqlite:///"):
        # Every workspace's bot token, in clear: 0600 in a 0700 folder (SQLite's journal and
        # WAL files copy the database's mode).
        private_file(Path(full.removeprefix("sqlite:///")))
    # pre_ping: a connection PostgreSQL dropped overnight is replaced, not an error on a request
    return create_engine(full, pool_pre_ping=True)


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)  # naive UTC: SQLite and PostgreSQL alike


class InstallationStore(SQLAlchemyInstallationStore):
    """slack_sdk's store, which also keeps hippo's row per workspace in step with installs, and
    tells `changed` (Installs' cache of bots) about every save and delete, by team id."""

    changed: Callable[[str], None] | None = None

    def _changed(self, team_id: str) -> None:
        if self.changed is not None and team_id:
            self.changed(team_id)

    def save(self, installation: Installation) -> None:
        super().save(installation)
        self._changed(installation.team_id or "")
        if installation.team_id:
            _upsert(
                self.engine,
                installation.team_id,
                team_name=installation.team_name or "",
                installed_at=_now(),
                uninstalled_at=None,
            )

    def delete_bot(self, *, enterprise_id: str | None, team_id: str | None) -> None:
        # By team alone: a workspace is one team, whether or not an Enterprise Grid holds it.
        if not team_id:
            return super().delete_bot(enterprise_id=enterprise_id, team_id=team_id)
        with self.engine.begin() as conn:
            conn.execute(self.bots.delete().where(self._mine(self.bots, team_id)))
        self._changed(team_id)  # after the commit: a lookup racing it cannot cache the old bot
        # no bot token left: hippo cannot speak there any more
        _upsert(self.engine, team_id, uninstalled_at=_now())
        log.info("workspace %s uninstalled; its memory stays", team_id)

    def delete_all(self, *, enterprise_id: str | None, team_id: str | None) -> None:
        """app_uninstalled: every token of the workspace goes (bots and installations)."""
        self.delete_bot(enterprise_id=enterprise_id, team_id=team_id)
        if team_id:
            with self.engine.begin() as conn:
                table = self.installations
                conn.execute(table.delete().where(self._mine(table, team_id)))

    def find_team_bot(self, team_id: str) -> Bot | None:
        """The newest bot installed in the workspace (any Enterprise Grid it belongs to)."""
        table = self.bots
        query = (
            select(table)
            .where(self._mine(table, team_id))
            .order_by(table.c.installed_at.desc(), table.c.id.desc())
            .limit(1)
        )
        with self.engine.connect() as conn:
            row = conn.execute(query).mappings().first()
        return self.build_bot_entity(row) if row is not None else None

    def _mine(self, table: Table, team_id: str) -> Any:
        return and_(table.c.client_id == self.client_id, table.c.team_id == team_id)


def _upsert(engine: Engine, team_id: str, **values: Any) -> None:
    with engine.begin() as conn:
        found = conn.execute(select(WORKSPACES.c.team_id).where(WORKSPACES.c.team_id == team_id))
        if found.first() is None:
            conn.execute(WORKSPACES.insert().values(team_id=team_id, **values))
        else:
            where = WORKSPACES.c.team_id == team_id
            conn.execute(WORKSPACES.update().where(where).values(**values))


def _workspace(row: Any) -> Workspace:
    return Workspace(
        team_id=row.team_id,
        team_name=row.team_name or "",
        memory_remote=row.memory_remote or "",
        digest_channel=row.digest_channel or "",
        installed=row.installed_at is not None and row.uninstalled_at is None,
    )


class Installs:
    """The installation store, the OAuth state store and hippo's workspace rows, on one engine."""

    def __init__(self, engine: Engine, client_id: str) -> None:
        self.engine = engine
        self.installations = InstallationStore(client_id=client_id, engine=engine, logger=log)
        self.states = SQLAlchemyOAuthStateStore(
            expiration_seconds=STATE_TTL, engine=engine, logger=log
        )
        # The ack path's bots by team: (when read, the bot). An install or uninstall bumps
        # `_generation`, so a lookup that started before it never stores what it read.
        self._bots: dict[str, tuple[float, Bot]] = {}
        self._generation = 0
        self._bots_lock = threading.Lock()
        self.installations.changed = self._forget

    def create_tables(self) -> None:
        """Create the tables that are missing (web and worker may both try at once)."""
        for attempt in (1, 2):
            try:
                self.installations.create_tables()  # type: ignore[no-untyped-call]
                self.states.create_tables()  # type: ignore[no-untyped-call]
                _META.create_all(self.engine)
                return
            except SQLAlchemyError:
                if attempt == 2:  # the other process created them between check and create
                    raise

    def bot(self, team_id: str) -> Bot | None:
        """The workspace's bot (token, ids), or None when hippo is not installed there."""
        return self.installations.find_team_bot(team_id)

    def ack_bot(self, team_id: str) -> Bot | None:
        """`bot`, for the Slack front door's ack: read from the database at most once per
        BOT_TTL per workspace (a SELECT per request was most of the ack's own CPU). Only
        installed bots are kept, so a new install counts at once. Tasks, which post with the
        token, read it fresh (`bot`)."""
        now = time.monotonic()
        with self._bots_lock:
            hit = self._bots.get(team_id)
            generation = self._generation
        if hit is not None and now - hit[0] < BOT_TTL:
            return hit[1]
        found = self.bot(team_id)
        with self._bots_lock:
            if found is None or not found.bot_token:
                self._bots.pop(team_id, None)
            elif generation == self._generation:  # no install or uninstall meanwhile
                self._bots[team_id] = (now, found)
        return found

    def _forget(self, team_id: str) -> None:
        with self._bots_lock:
            self._generation += 1
            self._bots.pop(team_id, None)

    def workspace(self, team_id: str) -> Workspace | None:
        with self.engine.connect() as conn:
            row = conn.execute(select(WORKSPACES).where(WORKSPACES.c.team_id == team_id)).first()
        return _workspace(row) if row is not None else None

    def workspaces(self, *, installed_only: bool = False) -> list[Workspace]:
        with self.engine.connect() as conn:
            rows = conn.execute(select(WORKSPACES).order_by(WORKSPACES.c.team_id)).all()
        found = [_workspace(row) for row in rows]
        return [w for w in found if w.installed or not installed_only]

    def configure(
        self, team_id: str, *, memory_remote: str | None = None, digest_channel: str | None = None
    ) -> Workspace:
        """Set a workspace's own memory remote or digest channel ("" goes back to the default)."""
        values = {
            k: v
            for k, v in (("memory_remote", memory_remote), ("digest_channel", digest_channel))
            if v is not None
        }
        if values:
            _upsert(self.engine, team_id, **values)
        found = self.workspace(team_id)
        return found if found is not None else Workspace(team_id)
