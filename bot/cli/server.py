"""`hippo serve|worker|beat|dev|socket`: run hippo's processes (the Procfile's, for a laptop).

With no REDIS_URL the parent starts the embedded Redis and hands its `redis+socket://` URL to the
processes it starts, so web, worker and beat share one broker and one set of dedupe keys.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from jobs.config import environment, metrics_folder, public_url_given
from jobs.lifeline import die_with_parent
from jobs.metrics_dir import prepare

if TYPE_CHECKING:  # Flask, werkzeug and the store load when a server starts, not for --help
    from flask import Flask
    from werkzeug.serving import BaseWSGIServer

    from jobs.runtime import Runtime

Sub = Any  # argparse's _SubParsersAction is private; this is what add_commands receives


def child_env(rt: Runtime) -> dict[str, str]:
    """The environment for a process that must see the same Redis and memory as this one."""
    env = environment()
    env["REDIS_URL"] = rt.redis_url
    env["HIPPO_DATA_DIR"] = str(rt.config.data_dir)
    env["HIPPO_MEMORY_REMOTE"] = rt.config.remote
    return env


def metrics_env(rt: Runtime) -> dict[str, str]:
    """child_env plus PROMETHEUS_MULTIPROC_DIR (default <HIPPO_DATA_DIR>/metrics): web and
    worker processes of one host write their metrics there and /metrics sums them."""
    env = child_env(rt)
    env["PROMETHEUS_MULTIPROC_DIR"] = prepare(metrics_folder(rt.config))
    return env


def serve_in_thread(app: Flask, host: str = "127.0.0.1", port: int = 0) -> BaseWSGIServer:
    """Serve `app` from a daemon thread (threaded, like gunicorn's threads); `.shutdown()` ends it.
    The bound port is `server.server_port` (port 0 picks a free one)."""
    from werkzeug.serving import make_server

    server = make_server(host, port, app, threaded=True)
    threading.Thread(target=server.serve_forever, name="hippo-web", daemon=True).start()
    return server


def _celery(rt: Runtime, *argv: str) -> list[str]:
    return [sys.executable, "-m", "celery", "-A", "jobs.worker", *argv]


def worker_argv(rt: Runtime, concurrency: int = 8, beat: bool = False) -> list[str]:
    # Threads, not prefork: tasks wait on git and HTTP, and threads in one process share the
    # store's group commit (bench/slack.py: 50 notes/s vs 20 with 2 prefork children).
    # mingle and gossip only matter for remote control across many workers; they cost ~1 s.
    argv = ["worker", "-l", "info", "--pool", "threads", "--concurrency", str(concurrency)]
    argv += ["--without-mingle", "--without-gossip"]
    if beat:  # development only: production runs exactly one separate beat
        argv += ["-B", "-s", str(rt.config.data_dir / "celerybeat-schedule")]
    return _celery(rt, *argv)


def start_child(
    argv: list[str], rt: Runtime, env: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """A child in its own session: a terminal's Ctrl-C reaches only hippo, which forwards one
    signal (two would make Celery skip its warm shutdown) and waits for the child. It gets
    SIGTERM when hippo dies, even by SIGKILL (jobs/lifeline.py). `env` defaults to
    child_env(rt)."""
    return subprocess.Popen(
        argv, env=env or child_env(rt), start_new_session=True, preexec_fn=die_with_parent()
    )


def stop_children(
    children: list[subprocess.Popen[bytes]], signum: int, timeout: float = 30
) -> None:
    """Send `signum` to each child still running, wait for all, kill any that outlive `timeout`."""
    for child in children:
        if child.poll() is None:
            child.send_signal(signum)
    deadline = time.monotonic() + timeout
    for child in children:
        try:
            child.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


def _signal_of(exc: BaseException) -> int:
    """The signal that ended the wait: Ctrl-C is SIGINT; cli.main turns SIGTERM into SystemExit."""
    return signal.SIGINT if isinstance(exc, KeyboardInterrupt) else signal.SIGTERM


def _run(argv: list[str], rt: Runtime) -> int:
    rt.store.init()
    child = start_child(argv, rt, metrics_env(rt))
    try:
        return child.wait()
    except BaseException as exc:
        stop_children([child], _signal_of(exc))
        raise
    finally:
        rt.close()


def cmd_serve(args: argparse.Namespace, rt: Runtime) -> int:
    port = args.port or rt.config.port
    argv = [
        sys.executable,
        "-m",
        "gunicorn",
        "bot.app:create_app()",
        "--config",
        "python:bot.gunicorn_conf",  # JSON logs, access log, Prometheus multiprocess mode
        "--workers",
        str(args.workers),
        "--threads",
        "8",
        "--bind",
        f"{args.host}:{port}",
    ]
    return _run(argv, rt)


def cmd_worker(args: argparse.Namespace, rt: Runtime) -> int:
    return _run(worker_argv(rt, args.concurrency), rt)


def cmd_beat(args: argparse.Namespace, rt: Runtime) -> int:
    schedule = str(rt.config.data_dir / "celerybeat-schedule")
    return _run(_celery(rt, "beat", "-l", "info", "-s", schedule), rt)


def cmd_dev(args: argparse.Namespace, rt: Runtime) -> int:
    """Web (in this process) + worker with embedded beat (a child), until Ctrl-C or SIGTERM."""
    from filelock import FileLock
    from filelock import Timeout as FileLockTimeout

    from bot.app import create_app
    from jobs import observe

    observe.install("web", rt.config.log_format, rt.config.log_level)
    # One `hippo dev` per data folder: a second would run a second beat (every digest twice).
    rt.config.data_dir.mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(rt.config.data_dir / "dev.lock"), thread_local=False)
    try:
        lock.acquire(timeout=0)
    except FileLockTimeout:
        print(
            f"hippo dev is already running on {rt.config.data_dir} ({_holder(rt)}); stop it "
            "first, or give this one its own --data-dir",
            file=sys.stderr,
        )
        return 1
    try:
        (rt.config.data_dir / "dev.pid").write_text(f"{os.getpid()}\n")
        return _dev(args, rt, create_app)
    finally:
        (rt.config.data_dir / "dev.pid").unlink(missing_ok=True)
        lock.release()


def _holder(rt: Runtime) -> str:
    try:
        return "pid " + (rt.config.data_dir / "dev.pid").read_text().strip()
    except OSError:
        return "pid unknown"


def _dev(args: argparse.Namespace, rt: Runtime, create_app: Any) -> int:
    from werkzeug.serving import make_server

    rt.store.init()
    port = args.port or rt.config.port
    env = child_env(rt)
    if args.port and not public_url_given():  # links point where we listen
        rt.config = replace(rt.config, port=port, public_url=f"http://localhost:{port}")
        env["PORT"] = str(port)
    server = make_server(args.host, port, create_app(rt.config, rt), threaded=True)
    worker = start_child(worker_argv(rt, args.concurrency, beat=True), rt, env)
    where = (
        "Slack" if rt.config.slack_bot_token else f"the outbox (http://{args.host}:{port}/outbox)"
    )
    print(
        f"hippo dev: web on http://{args.host}:{port}, worker pid {worker.pid}; "
        f"posts go to {where}",
        flush=True,
    )
    signum: int = signal.SIGTERM
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        signum = signal.SIGINT
    except SystemExit as exc:  # SIGTERM, from cli.main's handler
        signum = _signal_of(exc)
    finally:
        server.server_close()
        stop_children([worker], signum)
        rt.close()
    return 0


def cmd_socket(args: argparse.Namespace, rt: Runtime) -> int:
    """Slack over Socket Mode (no public URL needed); one such process per app (bolt#448)."""
    if not rt.config.slack_app_token:
        print(
            "hippo socket needs SLACK_APP_TOKEN: an app-level token (xapp-…) with "
            "connections:write, from the Slack app's Basic Information page",
            file=sys.stderr,
        )
        return 2
    from slack_bolt.adapter.socket_mode import SocketModeHandler

    from bot.slack.app import make_slack_app
    from jobs import observe

    observe.install("socket", rt.config.log_format, rt.config.log_level)
    handler = SocketModeHandler(make_slack_app(rt, socket_mode=True), rt.config.slack_app_token)
    handler.start()  # type: ignore[no-untyped-call]  # slack_bolt leaves it unannotated
    return 0


def add_commands(sub: Sub) -> None:
    port_help = "port to listen on (default: PORT, else 3000)"
    p = sub.add_parser("serve", help="the web app under gunicorn (Slack, GitHub, console, MCP)")
    p.add_argument("--host", default="0.0.0.0", help="address to listen on (0.0.0.0)")
    p.add_argument("--port", type=int, default=0, help=port_help)
    p.add_argument("--workers", type=int, default=2, metavar="N", help="gunicorn workers (2)")
    p.set_defaults(func=cmd_serve)
    p = sub.add_parser("worker", help="a Celery worker")
    p.add_argument(
        "--concurrency", type=int, default=8, metavar="N", help="tasks run at once (threads, 8)"
    )
    p.set_defaults(func=cmd_worker)
    p = sub.add_parser("beat", help="Celery beat (run exactly one)")
    p.set_defaults(func=cmd_beat)
    p = sub.add_parser("dev", help="web + worker + beat in one terminal, for a laptop")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    p.add_argument("--port", type=int, default=0, help=port_help)
    p.add_argument(
        "--concurrency", type=int, default=8, metavar="N", help="worker tasks run at once (8)"
    )
    p.set_defaults(func=cmd_dev)
    p = sub.add_parser("socket", help="Slack over Socket Mode (needs SLACK_APP_TOKEN)")
    p.set_defaults(func=cmd_socket)
