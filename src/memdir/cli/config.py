"""``memdir config set|get|list|unset|test``: the user's settings in ``$MEMDIR_HOME/config.yaml``.

A thin adapter over ``memdir.settings`` and ``memdir.providers.get_llm``: the library checks every
key and value (a bad one is a ``ConfigError`` naming what is allowed, and nothing is written);
this module only parses arguments and prints. API keys are never printed whole unless asked
for with ``--reveal``, and ``list`` says where each value comes from, because an environment
variable silently beating the file is the usual "why is it still using the old model?".
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import click

from ..errors import MemdirError
from .app import cli, emit_json, json_option

if TYPE_CHECKING:  # settings load yaml: imported by the commands, not for every memdir call
    from ..settings import Setting

SECRET_KEYS = frozenset({"llm.api_key"})
BACKEND = "backend"  # top-level, not an llm.* key: a name or a DSN, shown with its password masked


def _check_backend(value: str) -> None:
    """Refuse a backend no registered one answers to (a typo in the scheme), or a bad DSN."""
    from ..backends import backend_names
    from ..errors import ConfigError
    from ..settings import check_backend

    text = check_backend(value)
    scheme = text.split("://", 1)[0] if "://" in text else text
    if scheme not in backend_names():
        raise ConfigError(
            f"no storage backend named {scheme!r}: the backends are {', '.join(backend_names())}"
            " (a DSN starts with postgresql://)"
        )


def _backend() -> tuple[str, str]:
    """The effective backend, masked, and where it comes from (env, file, default)."""
    import os

    from ..settings import configured_backend, mask_dsn, read_file, settings_file

    read_file()  # a broken file is reported with its fix, as for every other key
    value = mask_dsn(configured_backend())
    if (os.environ.get("MEMDIR_BACKEND") or "").strip():
        return value, "env"
    text = settings_file().read_text(encoding="utf-8") if settings_file().is_file() else ""
    return value, "file" if "backend:" in text else "default"


def _shown(setting: Setting, reveal: bool = False) -> Any:
    from ..settings import mask_secret

    if setting.key in SECRET_KEYS and setting.value is not None and not reveal:
        return mask_secret(str(setting.value))
    return setting.value


def _text(value: Any) -> str:
    return (
        "(not set)" if value is None else f"{value:g}" if isinstance(value, float) else str(value)
    )


@cli.group()
def config() -> None:
    """User settings: which LLM endpoint memdir uses, and where memories are kept (in
    $MEMDIR_HOME/config.yaml, mode 0600).

    Keys: llm.provider, llm.base_url, llm.model, llm.api_key, llm.timeout, llm.max_retries,
    otel.endpoint, otel.service_name, and backend (file, or a DSN such as
    postgresql://USER:PASSWORD@HOST/DB; its password is never printed). MEMDIR_LLM_*,
    OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_SERVICE_NAME and MEMDIR_BACKEND override the file. See
    docs/llm.md, docs/observability.md and docs/postgres.md.
    """


# ``ignore_unknown_options`` lets a value start with "-" (``llm.timeout -1`` is then refused by
# the value check, with its message, instead of click's "no such option")
@config.command(name="set", context_settings={"ignore_unknown_options": True})
@click.argument("pairs", nargs=-1, required=True, metavar="KEY VALUE [KEY VALUE ...]")
def set_(pairs: tuple[str, ...]) -> None:
    """Set one or more keys; every value is checked first, and nothing is written if one is bad."""
    from ..settings import (
        env_var,
        load_settings,
        mask_dsn,
        mask_secret,
        set_backend,
        set_values,
        settings_file,
    )

    if len(pairs) % 2:
        raise click.UsageError(
            "give KEY VALUE pairs, e.g. memdir config set llm.base_url "
            "http://localhost:11434/v1 llm.model qwen2.5:3b"
        )
    wanted = dict(zip(pairs[::2], pairs[1::2], strict=True))
    backend = wanted.pop(BACKEND, None)
    if backend is not None:  # checked before anything is written, like every other value
        _check_backend(backend)
    checked = set_values(wanted) if wanted else {}
    if backend is not None:
        click.echo(f"backend = {mask_dsn(set_backend(backend))}")
    for key, value in checked.items():
        shown = mask_secret(str(value)) if key in SECRET_KEYS else _text(value)
        click.echo(f"{key} = {shown}")
    effective = load_settings()
    for key in checked:
        if effective.sources[key] == "env":
            click.echo(f"note: {env_var(key)} is set and overrides {key} from the file", err=True)
    click.echo(f"saved in {settings_file()}")


@config.command()
@click.argument("key")
@click.option(
    "--reveal", is_flag=True, help="Print the API key (or the DSN's password) instead of masked."
)
@json_option
def get(key: str, reveal: bool, as_json: bool) -> None:
    """Print one key's effective value (environment over file over default)."""
    from ..settings import KEYS, configured_backend, load_settings

    if key == BACKEND:
        value, source = _backend()
        value = configured_backend() if reveal else value
        if as_json:
            emit_json({"key": key, "value": value, "source": source})
        else:
            click.echo(value)
        return
    if key not in KEYS:
        raise click.BadParameter(
            f"unknown key; the keys are {', '.join(KEYS)}, {BACKEND}", param_hint="KEY"
        )
    setting = next(s for s in load_settings().items() if s.key == key)
    if as_json:
        emit_json({"key": key, "value": _shown(setting, reveal), "source": setting.source})
        return
    click.echo(_text(_shown(setting, reveal)))


@config.command(name="list")
@json_option
def list_(as_json: bool) -> None:
    """Every key with its effective value and where it comes from (env, file, default)."""
    from ..settings import env_var, load_settings, settings_file

    settings = load_settings()
    backend, backend_source = _backend()
    if as_json:
        shown = {s.key: {"value": _shown(s), "source": s.source} for s in settings.items()}
        shown[BACKEND] = {"value": backend, "source": backend_source}
        emit_json(
            {"file": str(settings_file()), "configured": settings.configured, "settings": shown}
        )
        return
    for setting in settings.items():
        source = env_var(setting.key) if setting.source == "env" else setting.source
        click.echo(f"{setting.key:<16} {_text(_shown(setting)):<40} ({source})")
    source = "MEMDIR_BACKEND" if backend_source == "env" else backend_source
    click.echo(f"{BACKEND:<16} {backend:<40} ({source})")
    if not settings.configured:
        click.echo(f"\nno LLM configured yet: set {', '.join(settings.missing)} (see docs/llm.md)")


@config.command()
@click.argument("keys", nargs=-1, required=True, metavar="KEY [KEY ...]")
def unset(keys: tuple[str, ...]) -> None:
    """Remove keys from the file (their defaults, or environment variables, apply again)."""
    from ..settings import unset_backend, unset_values

    removed = unset_values([k for k in keys if k != BACKEND])
    if BACKEND in keys and unset_backend():
        removed.append(BACKEND)
    for key in keys:
        click.echo(f"{key} unset" if key in removed else f"{key} was not set in the file")


@config.command()
@click.option("--prompt", default="Reply with the single word: ok", help="What to send.")
@json_option
def test(prompt: str, as_json: bool) -> None:
    """Send one tiny request to the configured endpoint; report the model and the latency."""
    from ..settings import load_settings

    settings = load_settings()
    where = {"provider": settings.provider, "base_url": settings.base_url, "model": settings.model}
    start = time.perf_counter()
    try:
        from ..providers.factory import get_llm

        llm = get_llm(settings)
        answer = llm.complete([{"role": "user", "content": prompt}], max_tokens=16)
    except MemdirError as exc:
        if not as_json:
            raise
        emit_json({"ok": False, **where, "error": str(exc)})
        raise click.exceptions.Exit(1) from exc
    latency = time.perf_counter() - start
    if as_json:
        emit_json(
            {
                "ok": True,
                **where,
                "latency_s": round(latency, 3),
                "reply": answer.text,
                "stop_reason": answer.stop_reason,
            }
        )
        return
    click.echo(f"ok: {llm.model_id} at {settings.base_url} answered in {latency:.2f} s")
    click.echo(f"reply: {answer.text.strip()[:200]!r}")
