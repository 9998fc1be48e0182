"""``memdir ui``: the web page on this store (both scopes of the current project), for one person
on their own machine.

It listens on 127.0.0.1 only, on a free port, and prints a URL with a one-time token (and opens
it in the default browser unless ``--no-browser``); the token becomes an HttpOnly cookie on
first use and is then spent (see ``web.auth``). ``--check`` starts the page, opens it once over
loopback the way a browser would, prints what it answered and stops: what the README's tour and
a terminal without a browser can run.
"""

from __future__ import annotations

import secrets
import socket
import threading

import click

from ..errors import MemdirError
from .app import cli, emit_json, json_option, memory

__all__: list[str] = []


def _check(url: str) -> tuple[int, str]:
    """Open ``url`` (the token, then the list it redirects to) as a browser would."""
    import httpx

    with httpx.Client(follow_redirects=True, timeout=60) as client:
        page = client.get(url)
    title = page.text.split("<title>", 1)[-1].split("</title>", 1)[0] if page.text else ""
    return page.status_code, title.strip()


@cli.command()
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=0,
    show_default=True,
    help="Port on 127.0.0.1 (0: a free one).",
)
@click.option("--no-browser", is_flag=True, help="Print the URL only; do not open a browser.")
@click.option(
    "--check", is_flag=True, help="Start, load the page once over loopback, print the answer, stop."
)
@json_option
@click.pass_context
def ui(ctx: click.Context, port: int, no_browser: bool, check: bool, as_json: bool) -> None:
    """Open the web page on this store: browse, search (with explain), edit, forget, undo,
    review sleep and read sessions. Loopback only, with a one-time token in the URL."""
    import uvicorn

    from ..web import local_app

    token = secrets.token_urlsafe(24)
    app, backend = local_app(memory(ctx), token)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind(("127.0.0.1", port))
    except OSError as exc:
        raise click.UsageError(f"cannot listen on 127.0.0.1:{port} ({exc}): pick another "
                               "--port, or 0 for a free one") from exc  # fmt: skip
    bound = sock.getsockname()[1]
    backend.hosts = {f"127.0.0.1:{bound}", f"localhost:{bound}"}
    url = f"http://127.0.0.1:{bound}/ui/login?token={token}"
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    if check:
        _serve_check(server, sock, url, as_json)
        return
    if as_json:
        emit_json({"url": url, "port": bound})
    else:
        click.echo(f"memdir's page: {url}")
        click.echo("(the link works once; Ctrl-C stops the page)", err=True)
    if not no_browser:
        import webbrowser  # (imported here: `memdir --help` loads this module)

        webbrowser.open(url)
    try:
        server.run(sockets=[sock])
    finally:
        backend.close()


def _serve_check(server: object, sock: socket.socket, url: str, as_json: bool) -> None:
    import uvicorn

    assert isinstance(server, uvicorn.Server)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        while not server.started:
            if not thread.is_alive():
                raise MemdirError("the page did not start: see the messages above")
            thread.join(0.05)
        status, title = _check(url)
    finally:
        server.should_exit = True
        thread.join()
    if as_json:
        emit_json({"url": url.split("?", 1)[0], "status": status, "title": title})
    else:
        click.echo(f"the page answered {status}: {title} (memdir ui opens it in your browser)")
    if status != 200:
        raise MemdirError(f"the page answered {status}, not 200: run `memdir ui` to see it")
