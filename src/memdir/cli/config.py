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
    """User settings: which LLM endpoint memdir uses (in $MEMDIR_HOME/config.yaml).

    Keys: llm.provider, llm.base_url, llm.model, llm.api_key, llm.timeout, llm.max_retries.
    MEMDIR_LLM_* environment variables override the file. See docs/llm.md.
    """


# ``ignore_unknown_options`` lets a value start with "-" (``llm.timeout -1`` is then refused by
# the value check, with its message, instead of click's "no such option")
@config.command(name="set", context_settings={"ignore_unknown_options": True})
@click.argument("pairs", nargs=-1, required=True, metavar="KEY VALUE [KEY VALUE ...]")
def set_(pairs: tuple[str, ...]) -> None:
    """Set one or more keys; every value is checked first, and nothing is written if one is bad."""
    from ..settings import env_var, load_settings, mask_secret, set_values, settings_file

    if len(pairs) % 2:
        raise click.UsageError(
            "give KEY VALUE pairs, e.g. memdir config set llm.base_url "
            "http://localhost:11434/v1 llm.model qwen2.5:3b"
        )
    wanted = dict(zip(pairs[::2], pairs[1::2], strict=True))
    checked = set_values(wanted)
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
@click.option("--reveal", is_flag=True, help="Print the API key in full instead of masked.")
@json_option
def get(key: str, reveal: bool, as_json: bool) -> None:
    """Print one key's effective value (environment over file over default)."""
    from ..settings import KEYS, load_settings

    if key not in KEYS:
        raise click.BadParameter(f"unknown key; the keys are {', '.join(KEYS)}", param_hint="KEY")
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
    if as_json:
        emit_json(
            {
                "file": str(settings_file()),
                "configured": settings.configured,
                "settings": {
                    s.key: {"value": _shown(s), "source": s.source} for s in settings.items()
                },
            }
        )
        return
    for setting in settings.items():
        source = env_var(setting.key) if setting.source == "env" else setting.source
        click.echo(f"{setting.key:<16} {_text(_shown(setting)):<40} ({source})")
    if not settings.configured:
        click.echo(f"\nno LLM configured yet: set {', '.join(settings.missing)} (see docs/llm.md)")


@config.command()
@click.argument("keys", nargs=-1, required=True, metavar="KEY [KEY ...]")
def unset(keys: tuple[str, ...]) -> None:
    """Remove keys from the file (their defaults, or environment variables, apply again)."""
    from ..settings import unset_values

    removed = unset_values(keys)
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
