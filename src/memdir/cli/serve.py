"""``memdir serve`` (the MCP server and the REST API) and ``memdir keys`` (the API's keys).

The servers are adapters of their own (``mcp.py``, ``http.py``); this module only parses the
options and starts them. ``serve --mcp`` talks MCP on stdin/stdout, so nothing else may be
printed there: the SDK logs to stderr. The servers (and their web stacks) are imported only
when ``serve`` runs, so every other ``memdir`` command starts as fast as before.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ..errors import ConfigError, MemdirError, NotFoundError, ValidationError
from .app import cli, emit_json, json_option, memory

if TYPE_CHECKING:
    from fastapi import FastAPI

    from ..http.keys import KeyInfo, Keys

__all__ = ["worker_app"]

MAX_BODY = 1024 * 1024  # http.MAX_BODY; a test keeps the two equal
THREADS = 8  # http.users.THREADS; a test keeps the two equal
_WORKER_ENV = "MEMDIR_SERVE_WORKER"  # --processes: the options, for each worker process


def _data_option(func: click.decorators.FC) -> click.decorators.FC:
    return click.option(
        "--data",
        "data_dir",
        type=click.Path(file_okay=False, path_type=Path),
        help="The server's data directory: keys.json and users/<user>/ "
        "(default: $MEMDIR_SERVER_DIR, else $MEMDIR_HOME/server).",
    )(func)


def _one_blas_thread() -> None:
    """Embedding one text is a small matrix product: BLAS threads only fight the server's own
    worker threads (and everything else) for the cores. Measured on 2 shared cores: a recall
    right after a write had a p95 of 398 ms with numpy's default BLAS threads, 7 ms with one."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(1, user_api="blas")  # process-wide, for the server's lifetime


def _warm_in_background() -> None:
    """Load what the first recall needs — the embedder (its tables mapped, BLAS started) and the
    translation tables — on a thread while the server starts, so the first request does not
    wait for them. Both are process-wide caches that a request's own call then finds."""

    def warm() -> None:
        from ..index.translate import translate
        from ..providers.embeddings import get_embedder

        with contextlib.suppress(MemdirError):  # a bad embedder is the first request's error
            get_embedder().encode(["warm up"], "query")
        translate("预热")

    threading.Thread(target=warm, name="memdir-warm-up", daemon=True).start()


@cli.command()
@click.option("--mcp", "use_mcp", is_flag=True, help="Serve MCP (stdio unless --http is given).")
@click.option("--http", "use_http", is_flag=True, help="Serve over HTTP: the REST API, or MCP.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True)
@click.option(
    "--token-file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    default=None,
    help="MCP over HTTP: require 'Authorization: Bearer <token>' with the token on the file's "
    "first line (default: $MEMDIR_MCP_TOKEN; needed for a --host other than loopback).",
)
@click.option(
    "--max-body",
    type=click.IntRange(1024),
    default=MAX_BODY,
    show_default=True,
    help="REST API: the largest request body in bytes (larger ones get 413).",
)
@click.option(
    "--backend",
    default=None,
    metavar="NAME_OR_DSN",
    help="REST API: where every user's memories live — `file` (the default), another "
    "registered backend, or a DSN such as postgresql://… (default: $MEMDIR_BACKEND, else "
    "`backend:` in config.yaml, else file).",
)
@click.option(
    "--processes",
    type=click.IntRange(1, 64),
    default=1,
    show_default=True,
    help="REST API: server processes sharing the port, over the same data (they behave as "
    "one: the stores' locks hold across processes).",
)
@click.option(
    "--threads",
    type=click.IntRange(1, 256),
    default=THREADS,
    show_default=True,
    help="REST API: threads per process that run memdir calls (a user's reads run side by "
    "side, their writes one at a time).",
)
@_data_option
@click.pass_context
def serve(
    ctx: click.Context,
    use_mcp: bool,
    use_http: bool,
    host: str,
    port: int,
    max_body: int,
    backend: str | None,
    processes: int,
    threads: int,
    token_file: Path | None,
    data_dir: Path | None,
) -> None:
    """Run a server: --mcp for MCP clients over stdio, --mcp --http for MCP over streamable
    HTTP (at /mcp), --http for the multi-user REST API (keys from `memdir keys create`)."""
    if not use_mcp and not use_http:
        raise click.UsageError("say what to serve: --mcp (stdio), --mcp --http, or --http")
    token = _mcp_token(token_file) if use_mcp and use_http else None
    if token_file is not None and token is None:
        raise click.UsageError("--token-file is for MCP over HTTP (--mcp --http); the REST API "
                               "uses per-user keys (memdir keys create)")  # fmt: skip
    if use_mcp and (backend or processes != 1 or threads != THREADS):
        raise click.UsageError("--backend, --processes and --threads are for the REST API "
                               "(--http without --mcp)")  # fmt: skip
    if use_mcp and use_http and token is None and not _loopback(host):
        raise click.UsageError(
            f"MCP over HTTP on {host} would let anyone who can reach it read and change this "
            "memory: set MEMDIR_MCP_TOKEN (or --token-file) to require a bearer token, or "
            "listen on 127.0.0.1"
        )
    _one_blas_thread()
    _warm_in_background()
    if use_mcp:
        if not use_http:  # stdio: memdir's own loop, no SDK or web stack to load first
            from ..mcp import build_tools
            from ..mcp.stdio import serve_stdio

            serve_stdio(build_tools(memory(ctx), warm=True))
            return
        from ..mcp import build_server, http_app

        server = build_server(memory(ctx), warm=True)
        try:
            mcp_app = http_app(server, host=host, token=token)
        except ValidationError as exc:
            raise click.UsageError(str(exc)) from exc
        import uvicorn

        uvicorn.run(mcp_app, host=host, port=port, log_level="warning")
        return
    import uvicorn

    from ..http.keys import default_data_dir
    from ..memory import Memory

    data = data_dir or default_data_dir()
    if backend:  # an unknown name fails here, once, not on every request (nothing is opened)
        Memory(home=data, backend=backend)
    options = {
        "data": str(data),
        "max_body": max_body,
        "backend": backend,
        "threads": threads,
    }
    if processes == 1:
        uvicorn.run(_rest_app(options), host=host, port=port, log_level="info")
        return
    # uvicorn's supervisor binds the port once and starts the workers, each importing the app
    # from the options in its environment; it restarts a worker that dies
    os.environ[_WORKER_ENV] = json.dumps(options)
    uvicorn.run(
        f"{__name__}:worker_app",
        factory=True,
        host=host,
        port=port,
        workers=processes,
        log_level="info",
    )


def _rest_app(options: dict[str, Any]) -> FastAPI:
    from ..http import create_app
    from ..web import mount_keys

    app = create_app(
        Path(options["data"]),
        max_body=options["max_body"],
        backend=options["backend"],
        threads=options["threads"],
    )
    mount_keys(app)  # the web page at /ui behind the same keys, and /docs served offline
    return app


def worker_app() -> FastAPI:
    """One process of ``serve --http --processes N`` (uvicorn calls it in each worker)."""
    _one_blas_thread()
    _warm_in_background()
    return _rest_app(json.loads(os.environ[_WORKER_ENV]))


def _mcp_token(token_file: Path | None) -> str | None:
    """The MCP-over-HTTP token: the first line of ``token_file``, else ``$MEMDIR_MCP_TOKEN``."""
    if token_file is not None:
        lines = token_file.read_text(encoding="utf-8").splitlines()
        token = lines[0].strip() if lines else ""
        if not token:
            raise click.UsageError(f"{token_file} is empty: put the token on its first line")
        return token
    return os.environ.get("MEMDIR_MCP_TOKEN", "").strip() or None


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False  # a name: it may resolve anywhere


@cli.group()
def keys() -> None:
    """API keys for the REST API: each key names one user, whose memories are kept apart."""


def _key_line(info: KeyInfo) -> str:
    state = f"revoked {info.revoked}" if info.revoked else "active"
    return f"{info.id}  {info.user:<20} created {info.created}  {state}"


def _keys_backend_option(func: click.decorators.FC) -> click.decorators.FC:
    return click.option(
        "--backend",
        default=None,
        metavar="NAME_OR_DSN",
        help="Where the server's users live, as for `serve --http --backend`: on a "
        "postgresql://… DSN the keys are in that database (shared by every server process), "
        "else in keys.json under --data (default: $MEMDIR_BACKEND, else config.yaml, else file).",
    )(func)


def _ring(data_dir: Path | None, backend: str | None) -> Keys:
    from ..http.keys import default_data_dir, open_keys

    return open_keys(data_dir or default_data_dir(), backend)


@keys.command("create")
@click.argument("user")
@_data_option
@_keys_backend_option
@json_option
def keys_create(user: str, data_dir: Path | None, backend: str | None, as_json: bool) -> None:
    """Issue a new API key for USER and print it (once: only its hash is stored)."""
    info, key = _ring(data_dir, backend).create(user)
    if as_json:
        emit_json({**info.to_dict(), "key": key})
        return
    click.echo(key)
    click.echo(
        f"key {info.id} for user {info.user}: keep it now, it is not shown again "
        "(send it as `Authorization: Bearer <key>`)",
        err=True,
    )


@keys.command("list")
@_data_option
@_keys_backend_option
@json_option
def keys_list(data_dir: Path | None, backend: str | None, as_json: bool) -> None:
    """Every key: id, user, when it was issued, and whether it is revoked."""
    infos = _ring(data_dir, backend).list()
    if as_json:
        emit_json([i.to_dict() for i in infos])
        return
    if not infos:
        click.echo("no keys yet: `memdir keys create USER` issues one")
    for info in infos:
        click.echo(_key_line(info))


@keys.command("revoke")
@click.argument("what")
@_data_option
@_keys_backend_option
@json_option
def keys_revoke(what: str, data_dir: Path | None, backend: str | None, as_json: bool) -> None:
    """Revoke the key with id WHAT, or every key of the user WHAT (at once, also for a running
    server)."""
    if not what.strip():
        raise ValidationError("give a key id or a user name: see `memdir keys list`")
    revoked = _ring(data_dir, backend).revoke(what)
    if as_json:
        emit_json([i.to_dict() for i in revoked])
        return
    if not revoked:
        click.echo(f"{what}: already revoked")
    for info in revoked:
        click.echo(f"revoked {_key_line(info)}")


@keys.command("import")
@click.option(
    "--from",
    "source",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="The data directory whose keys.json to copy (default: $MEMDIR_SERVER_DIR, else "
    "$MEMDIR_HOME/server).",
)
@_keys_backend_option
@json_option
def keys_import(source: Path | None, backend: str | None, as_json: bool) -> None:
    """Copy the keys of a keys.json into the PostgreSQL database, so every key already issued
    keeps working when the server moves there (idempotent; keys.json is left as it is)."""
    from ..http.keys import KeyRing, default_data_dir, open_keys
    from ..pg.keys import PgKeyRing

    folder = source or default_data_dir()
    target = open_keys(folder, backend)
    if not isinstance(target, PgKeyRing):
        raise ConfigError(
            "keys import copies keys.json into a PostgreSQL database: name it with "
            "--backend postgresql://USER:PASSWORD@HOST:PORT/DB (or set MEMDIR_BACKEND)"
        )
    ring = KeyRing(folder)
    if not ring.path.is_file():
        raise NotFoundError(f"there is no {ring.path} to import: name the folder with --from DIR")
    try:
        added, skipped = target.adopt(ring.stored())
    finally:
        target.close()
    if as_json:
        emit_json(
            {
                "added": [i.to_dict() for i in added],
                "skipped": [{"id": k, "reason": why} for k, why in skipped],
            }
        )
        return
    for info in added:
        click.echo(f"imported {_key_line(info)}")
    for key_id, why in skipped:
        click.echo(f"skipped {key_id}: {why}")
    click.echo(f"{len(added)} key(s) imported into {target.where}, {len(skipped)} skipped")
