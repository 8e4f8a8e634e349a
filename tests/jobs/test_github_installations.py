"""The installations hash (jobs/github/tasks.py): what the `installation` task records is what a
delivery without an installation id is answered with, on the embedded Redis as on a shared one."""

from __future__ import annotations

from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from jobs.celery_app import make_celery
from jobs.config import Config
from jobs.github.tasks import github_client, installation
from jobs.runtime import Runtime
from tests.fakes.github import FakeGitHub, user_body


def test_a_delivery_without_an_installation_uses_the_recorded_one(tmp_path: Path) -> None:
    """No REDIS_URL (the embedded Redis): the recorded installation's token is minted, and
    GitHub is not asked which installation covers the repository."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    public = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    with FakeGitHub() as fake:
        fake.enable_app("4242", public.decode())
        fake.route("GET", "/users/alice", user_body("alice"))
        config = Config(
            data_dir=tmp_path / "data",
            memory_remote=str(tmp_path / "remote.git"),
            github_app_id="4242",
            github_app_private_key=private,
            github_api_url=fake.url,
        )
        rt = Runtime(config)
        try:
            make_celery(rt)  # the current app: a direct call runs the task on rt
            installation(action="created", installation_id=957387, repos=["octo/app"])
            assert github_client(rt, None, "octo/app").get_user("alice").login == "alice"
        finally:
            rt.close()
        paths = [r.path for r in fake.requests]
    assert "/app/installations/957387/access_tokens" in paths
    assert "/repos/octo/app/installation" not in paths
