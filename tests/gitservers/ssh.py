"""OpenSSH's sshd (Debian's `openssh-server`) on 127.0.0.1 with generated host and client keys and
a test-only config in a temp folder, logging in as the current user with keys only."""

from __future__ import annotations

import os
import pwd
import shlex
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.gitservers.procs import accepts, free_port, stop_tree

SSHD = "/usr/sbin/sshd"  # sshd re-execs itself, so an absolute path

_KEYS: dict[tuple[str, str, str], tuple[bytes, bytes]] = {}  # (file, kind, passphrase) -> pair


class SshUnavailable(RuntimeError):
    """sshd is not installed or cannot run here (tests skip with this reason)."""


class SshServer:
    """sshd on 127.0.0.1:port, logging in as the current user with generated keys only.

    Clients: `git_ssh_command(key)` for the git CLI; for libgit2 (pygit2), `Keypair(user,
    key + ".pub", key, passphrase)` and a host check against `known_hosts` (libgit2 reads
    `<homedir>/.ssh/known_hosts`; `libgit2_home` is such a folder).
    """

    passphrase = "correct horse battery"

    def __init__(self, root: Path, folder: Path) -> None:
        self.root = Path(root)
        self.folder = Path(folder)  # keys, config, known_hosts, pid file, log
        self.user = pwd.getpwuid(os.getuid()).pw_name
        self.port = 0
        self.host_key = self.folder / "ssh_host_ed25519_key"
        self.client_key = self.folder / "client_ed25519"
        self.client_key_passphrase_protected = self.folder / "client_rsa"
        self.stranger_key = self.folder / "stranger_ed25519"  # not authorized: for auth tests
        self.known_hosts = self.folder / "known_hosts"
        self.libgit2_home = self.folder / "home"  # no ':' in it: libgit2 splits paths on ':'
        self.log = self.folder / "sshd.log"
        self._proc: subprocess.Popen[bytes] | None = None

    def url(self, name: str) -> str:
        return f"ssh://{self.user}@127.0.0.1:{self.port}{(self.root / name).resolve()}"

    def git_ssh_command(self, key: Path | None = None) -> str:
        """GIT_SSH_COMMAND for the git CLI: this key only, strict host check against known_hosts."""
        return shlex.join(
            [
                "ssh",
                "-i",
                str(key or self.client_key),
                "-o",
                "IdentitiesOnly=yes",
                "-o",
                "BatchMode=yes",
                "-o",
                f"UserKnownHostsFile={self.known_hosts}",
                "-o",
                "StrictHostKeyChecking=yes",
                "-o",
                "GlobalKnownHostsFile=/dev/null",
            ]
        )

    def _keygen(self, path: Path, kind: str, passphrase: str = "") -> None:
        """A key pair at path (and path.pub). Generated once per process per role and copied
        after: RSA generation takes seconds on a busy machine, and a test needs four keys."""
        role = (path.name, kind, passphrase)
        if role not in _KEYS:
            bits = ["-b", "3072"] if kind == "rsa" else []
            args = ["-q", "-t", kind, *bits, "-N", passphrase, "-C", path.name, "-f", str(path)]
            subprocess.run(["ssh-keygen", *args], check=True, capture_output=True)
            _KEYS[role] = (path.read_bytes(), Path(f"{path}.pub").read_bytes())
            return
        private, public = _KEYS[role]
        path.write_bytes(private)
        path.chmod(0o600)  # ssh refuses a private key others can read
        Path(f"{path}.pub").write_bytes(public)

    def _prepare(self) -> None:
        if not os.access(SSHD, os.X_OK) or shutil.which("ssh-keygen") is None:
            raise SshUnavailable(
                f"{SSHD} or ssh-keygen is missing: install Debian's openssh-server "
                "(apt-get install -y openssh-server)"
            )
        if os.geteuid() == 0 and not Path("/run/sshd").is_dir():
            # sshd running as root needs its privilege-separation folder; Debian's service unit
            # creates it at boot (RuntimeDirectory=sshd), a container has none.
            try:
                Path("/run/sshd").mkdir(mode=0o755, parents=True, exist_ok=True)
            except OSError as e:
                raise SshUnavailable(f"sshd needs /run/sshd and it cannot be made: {e}") from e
        self.folder.mkdir(parents=True, exist_ok=True)
        self._keygen(self.host_key, "ed25519")
        self._keygen(self.client_key, "ed25519")
        self._keygen(self.client_key_passphrase_protected, "rsa", self.passphrase)
        self._keygen(self.stranger_key, "ed25519")
        authorized = self.folder / "authorized_keys"
        authorized.write_text(
            Path(f"{self.client_key}.pub").read_text()
            + Path(f"{self.client_key_passphrase_protected}.pub").read_text()
        )

    def _config(self, port: int) -> Path:
        config = self.folder / "sshd_config"
        config.write_text(
            "\n".join(
                [
                    "ListenAddress 127.0.0.1",
                    f"Port {port}",
                    f"HostKey {self.host_key}",
                    f"AuthorizedKeysFile {self.folder / 'authorized_keys'}",
                    f"PidFile {self.folder / 'sshd.pid'}",
                    "StrictModes no",  # the temp folder is not a home with 0700 .ssh
                    "UsePAM no",
                    "PermitRootLogin prohibit-password",  # keys only, also when tests run as root
                    "PasswordAuthentication no",
                    "KbdInteractiveAuthentication no",
                    "PubkeyAuthentication yes",
                    "AcceptEnv GIT_PROTOCOL",
                    "LogLevel VERBOSE",
                    "",
                ]
            )
        )
        return config

    def start(self) -> SshServer:
        self._prepare()
        for _ in range(5):
            port = free_port()
            config = self._config(port)
            with self.log.open("ab") as log:
                proc = subprocess.Popen(
                    [SSHD, "-D", "-e", "-f", str(config)],
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=log,
                )
            deadline = time.monotonic() + 10
            while proc.poll() is None and not accepts(port) and time.monotonic() < deadline:
                time.sleep(0.02)
            if proc.poll() is None and accepts(port):
                self._proc, self.port = proc, port
                host = Path(f"{self.host_key}.pub").read_text().split()
                line = f"[127.0.0.1]:{port} {host[0]} {host[1]}\n"
                self.known_hosts.write_text(line)
                (self.libgit2_home / ".ssh").mkdir(parents=True, exist_ok=True)
                (self.libgit2_home / ".ssh" / "known_hosts").write_text(line)
                return self
            stop_tree(proc)
        raise SshUnavailable(f"sshd did not start: {self.log.read_text()[-2000:]}")

    def stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            stop_tree(proc)

    def __enter__(self) -> SshServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@contextmanager
def ssh_server(root: Path, folder: Path | None = None) -> Iterator[SshServer]:
    """sshd over the bare repositories in root (keys and config in folder, default
    root/.sshd); stopped with every session it started on exit. Raises SshUnavailable."""
    with SshServer(root, folder or Path(root) / ".sshd") as server:
        yield server
