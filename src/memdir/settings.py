"""User settings: which LLM endpoint memdir talks to, in ``$MEMDIR_HOME/config.yaml``.

The file belongs to the person, not to a project: it may hold an API key, so it is written with
mode 0600, atomically (temp file beside it, fsync, rename, fsync the directory), and never
committed anywhere. Its shape::

    llm:
      provider: openai          # openai | anthropic (default: inferred from base_url)
      base_url: http://localhost:11434/v1
      model: qwen2.5:3b
      api_key: sk-...
      timeout: 60               # seconds to wait for an answer
      max_retries: 2            # extra attempts after a 429, a 5xx or a timeout
    otel:                       # optional OpenTelemetry export (docs/observability.md)
      endpoint: http://localhost:4318
      service_name: memdir

**Precedence.** An environment variable beats the file, the file beats the built-in default:
``MEMDIR_LLM_PROVIDER``, ``MEMDIR_LLM_BASE_URL``, ``MEMDIR_LLM_MODEL``, ``MEMDIR_LLM_API_KEY``,
``MEMDIR_LLM_TIMEOUT``, ``MEMDIR_LLM_MAX_RETRIES``; for ``otel.*`` the standard
``OTEL_EXPORTER_OTLP_ENDPOINT`` and ``OTEL_SERVICE_NAME``. Each value remembers where it came from
(``Setting.source``) so ``memdir config list`` can say why a value is what it is.

**Strict.** As with ``memory-policy.yaml`` a key memdir does not know is an error (a typo would
otherwise silently keep the default), and so is a bad value; the ``ConfigError`` names the key
(or the variable) and what is allowed. Values are checked when written *and* when read, because
the file can be edited by hand.

**Defaults.** The provider follows from ``base_url`` when unset (a host ending in
``anthropic.com`` → ``anthropic``, anything else → ``openai``, the wire format nearly every
server speaks); ``base_url`` follows from the provider when unset (the vendor's public API). An
endpoint counts as configured once it has a model and either a base URL or an API key — a local
server needs no key, a vendor API needs no URL.

This module only reads and writes settings; ``memdir.providers.get_llm`` turns them into a model.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

import yaml

from .errors import ConfigError
from .fs import atomic_write
from .paths import home_dir

__all__ = [
    "DEFAULT_BASE_URLS",
    "KEYS",
    "LLMSettings",
    "Setting",
    "Source",
    "add_provider",
    "check_backend",
    "configured_backend",
    "configured_user",
    "env_var",
    "infer_provider",
    "load_settings",
    "mask_dsn",
    "mask_secret",
    "read_file",
    "set_backend",
    "set_values",
    "settings_file",
    "unset_backend",
    "unset_values",
]

Source = Literal["env", "file", "default"]
PROVIDERS = ["openai", "anthropic"]  # and any a plugin adds (add_provider)
DEFAULT_BASE_URLS = {
    "openai": "https://api.openai.com/v1",
    "anthropic": "https://api.anthropic.com",
}
DEFAULT_TIMEOUT = 60.0
DEFAULT_MAX_RETRIES = 2


def add_provider(name: str, default_base_url: str) -> None:
    """Accept ``llm.provider: name`` (``providers.register_llm_provider`` calls this), sending to
    ``default_base_url`` unless ``llm.base_url`` says otherwise."""
    if name not in PROVIDERS:
        PROVIDERS.append(name)
    DEFAULT_BASE_URLS.setdefault(name, default_base_url)


def _provider(key: str, value: Any) -> str:
    if value not in PROVIDERS:
        raise ConfigError(f"{key} must be one of {', '.join(PROVIDERS)} (got {value!r})")
    return str(value)


def _url(key: str, value: Any) -> str:
    text = str(value).strip() if isinstance(value, str) else ""
    parts = urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigError(
            f"{key} must be an http:// or https:// URL such as http://localhost:11434/v1 "
            f"(got {value!r})"
        )
    return text.rstrip("/")


def _text(key: str, value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int | float) or not str(value):
        raise ConfigError(f"{key} must be a non-empty string (got {value!r})")
    return str(value).strip()


def _seconds(key: str, value: Any) -> float:
    try:
        seconds = float(value) if not isinstance(value, bool) else -1.0
    except (TypeError, ValueError):
        seconds = -1.0
    if not 0 < seconds <= 3600:
        raise ConfigError(
            f"{key} must be a number of seconds above 0 and at most 3600 (got {value!r})"
        )
    return seconds


def _retries(key: str, value: Any) -> int:
    try:
        count = int(str(value)) if not isinstance(value, bool | float) else -1
    except ValueError:
        count = -1
    if not 0 <= count <= 10:
        raise ConfigError(f"{key} must be a whole number from 0 to 10 (got {value!r})")
    return count


# dotted key -> its check; the order is the order ``memdir config list`` shows
KEYS: dict[str, Callable[[str, Any], Any]] = {
    "llm.provider": _provider,
    "llm.base_url": _url,
    "llm.model": _text,
    "llm.api_key": _text,
    "llm.timeout": _seconds,
    "llm.max_retries": _retries,
    "otel.endpoint": _url,
    "otel.service_name": _text,
}
# the keys whose variable is a standard one rather than MEMDIR_<KEY>
STANDARD_VARS = {
    "otel.endpoint": "OTEL_EXPORTER_OTLP_ENDPOINT",
    "otel.service_name": "OTEL_SERVICE_NAME",
}


def env_var(key: str) -> str:
    """The environment variable that overrides ``key``: ``llm.base_url`` → MEMDIR_LLM_BASE_URL
    (``otel.endpoint`` → OTEL_EXPORTER_OTLP_ENDPOINT, the variable OpenTelemetry reads)."""
    return STANDARD_VARS.get(key) or "MEMDIR_" + key.replace(".", "_").upper()


def _known(key: str, where: str = "") -> str:
    if key not in KEYS:
        raise ConfigError(f"unknown setting {key!r}{where}: the settings are {', '.join(KEYS)}")
    return key


def settings_file(home: Path | None = None) -> Path:
    """``<home>/config.yaml`` (home: ``$MEMDIR_HOME`` or ``~/.agent``)."""
    return (home or home_dir()) / "config.yaml"


def read_file(home: Path | None = None) -> dict[str, Any]:
    """The checked values the settings file holds, by dotted key (``{}`` when there is none)."""
    path = settings_file(home)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise ConfigError(
            f"{path}: cannot be read ({exc.strerror}); check its permissions"
        ) from exc
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path} is not valid YAML ({exc}); fix or delete the file") from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path} must be a mapping such as 'llm: {{model: qwen2.5:3b}}'")
    values: dict[str, Any] = {}
    for section, body in data.items():
        if section == "backend":
            continue  # a top-level name, not a section: ``configured_backend`` reads it
        if not isinstance(body, dict):
            raise ConfigError(
                f"{path}: {section!r} must be a section of keys; the settings are {', '.join(KEYS)}"
            )
        for name, value in body.items():
            key = _known(f"{section}.{name}", f" in {path}")
            if value is not None:
                values[key] = KEYS[key](f"{key} in {path}", value)
    return values


def _write(path: Path, values: Mapping[str, Any], backend: str | bool | None = True) -> None:
    """Write ``values`` as nested YAML, mode 0600, atomically (crash: old file or new file).
    ``backend``: the top-level ``backend:`` to write (``True``: keep the file's, ``None``: none)."""
    if backend is True:
        backend = _file_backend(path)
    nested: dict[str, Any] = {}
    for key in KEYS:  # a stable order, whatever order the keys were set in
        if key in values:
            section, name = key.split(".", 1)
            nested.setdefault(section, {})[name] = values[key]
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "# memdir user settings (memdir config set KEY VALUE)\n"
    if isinstance(backend, str):  # the DSN may hold a password: this file is 0600 for it too
        text += yaml.safe_dump({"backend": backend}, sort_keys=False, allow_unicode=True)
    if nested:
        text += yaml.safe_dump(nested, sort_keys=False, allow_unicode=True)
    # 0600 from creation, before any byte is written: the key is never world-readable
    atomic_write(path, text.encode("utf-8"), mode=0o600)


def set_values(pairs: Mapping[str, Any], home: Path | None = None) -> dict[str, Any]:
    """Check every pair, then write them all at once; returns the checked values.

    Nothing is written when any key or value is bad.
    """
    checked = {key: KEYS[_known(key)](key, value) for key, value in pairs.items()}
    path = settings_file(home)
    _write(path, {**read_file(home), **checked})
    return checked


def unset_values(keys: Iterable[str], home: Path | None = None) -> list[str]:
    """Remove ``keys`` from the file; returns those that were set there."""
    wanted = [_known(key) for key in keys]
    values = read_file(home)
    removed = [key for key in wanted if key in values]
    if removed:
        _write(settings_file(home), {k: v for k, v in values.items() if k not in removed})
    return removed


def infer_provider(base_url: str | None) -> str:
    """``anthropic`` for a host under anthropic.com, else ``openai`` (the common wire format)."""
    host = (urlsplit(base_url).hostname or "") if base_url else ""
    return "anthropic" if host == "anthropic.com" or host.endswith(".anthropic.com") else "openai"


def mask_secret(value: str) -> str:
    """``sk-proj-abcd…wxyz`` → ``sk-…wxyz``: enough to tell two keys apart, not to use one."""
    if len(value) < 12:
        return "…" if value else ""
    return f"{value[:3]}…{value[-4:]}"


@dataclass(frozen=True)
class Setting:
    """One effective value and where it came from."""

    key: str
    value: Any
    source: Source


@dataclass(frozen=True)
class LLMSettings:
    """The effective LLM endpoint settings. ``sources`` says where each value came from."""

    provider: str
    base_url: str
    model: str | None
    api_key: str | None
    timeout: float
    max_retries: int
    sources: Mapping[str, Source]
    otel_endpoint: str | None = None  # OTLP/HTTP base URL; None: telemetry off
    otel_service_name: str = "memdir"

    @property
    def configured(self) -> bool:
        """A model, and a place to send it: a base URL (local server) or an API key (vendor)."""
        return bool(self.model) and (
            self.sources["llm.base_url"] != "default" or self.api_key is not None
        )

    @property
    def missing(self) -> list[str]:
        """What must still be set before ``configured`` holds (dotted keys)."""
        wanted = [] if self.model else ["llm.model"]
        if self.sources["llm.base_url"] == "default" and self.api_key is None:
            wanted.append(
                "llm.base_url" if self.sources["llm.provider"] == "default" else "llm.api_key"
            )
        return wanted

    def items(self) -> list[Setting]:
        """Every key with its effective value, in ``KEYS`` order."""
        return [Setting(key, getattr(self, _attribute(key)), self.sources[key]) for key in KEYS]


def _attribute(key: str) -> str:
    """``llm.model`` → ``model``, ``otel.endpoint`` → ``otel_endpoint``."""
    section, name = key.split(".", 1)
    return name if section == "llm" else f"{section}_{name}"


def load_settings(
    home: Path | None = None, environ: Mapping[str, str] | None = None
) -> LLMSettings:
    """The effective settings: environment over ``config.yaml`` over defaults."""
    env = os.environ if environ is None else environ
    values: dict[str, Any] = {}
    sources: dict[str, Source] = {}
    for key, value in read_file(home).items():
        values[key], sources[key] = value, "file"
    for key, check in KEYS.items():
        raw = env.get(env_var(key))
        if raw is not None and raw.strip():
            values[key], sources[key] = check(env_var(key), raw), "env"
    base_url = values.get("llm.base_url")
    provider = values.get("llm.provider") or infer_provider(base_url)
    defaults = {
        "llm.provider": provider,
        "llm.base_url": DEFAULT_BASE_URLS[provider],
        "llm.model": None,
        "llm.api_key": None,
        "llm.timeout": DEFAULT_TIMEOUT,
        "llm.max_retries": DEFAULT_MAX_RETRIES,
        "otel.endpoint": None,
        "otel.service_name": "memdir",
    }
    for key, default in defaults.items():
        if key not in values:
            values[key], sources[key] = default, "default"
    return LLMSettings(
        provider=values["llm.provider"],
        base_url=values["llm.base_url"],
        model=values["llm.model"],
        api_key=values["llm.api_key"],
        timeout=values["llm.timeout"],
        max_retries=values["llm.max_retries"],
        sources=sources,
        otel_endpoint=values["otel.endpoint"],
        otel_service_name=values["otel.service_name"],
    )


def _file_backend(path: Path) -> str | None:
    """The ``backend:`` the settings file at ``path`` holds (``None``: none, or no file)."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        return None
    value = data.get("backend") if isinstance(data, dict) else None
    return value.strip() if isinstance(value, str) and value.strip() else None


def check_backend(value: Any) -> str:
    """``value`` as a backend choice: a name (``file``) or a URL DSN without spaces."""
    text = value.strip() if isinstance(value, str) else ""
    if not (text.isidentifier() or ("://" in text and not any(c.isspace() for c in text))):
        raise ConfigError(
            "backend must be a name such as 'file' or a DSN such as "
            "postgresql://USER:PASSWORD@HOST:PORT/DATABASE"
        )
    return text


def set_backend(value: str, home: Path | None = None) -> str:
    """Make ``value`` (``file`` or a DSN such as ``postgresql://user:pw@host/db``) the
    configured backend, in config.yaml (0600: a DSN's password is as secret as an API key)."""
    text = check_backend(value)
    _write(settings_file(home), read_file(home), text)
    return text


def unset_backend(home: Path | None = None) -> bool:
    """Remove ``backend:`` from config.yaml (the file backend applies again); whether it was set."""
    path = settings_file(home)
    if _file_backend(path) is None:
        return False
    _write(path, read_file(home), None)
    return True


def mask_dsn(value: str) -> str:
    """A DSN as it may be printed: its password replaced by ``***`` (URL or key=value form)."""
    parts = urlsplit(value)
    if "://" in value and parts.password is not None:
        user = parts.username or ""
        host = parts.netloc.rsplit("@", 1)[1]
        return parts._replace(netloc=f"{user}:***@{host}").geturl()
    return re.sub(r"(password\s*=\s*)('[^']*'|\S+)", r"\1***", value)


def configured_user(environ: Mapping[str, str] | None = None) -> str:
    """Whose memories a database backend opens for the CLI and the library: ``$MEMDIR_USER``,
    else the OS user name (REST passes its API key's user instead)."""
    env = os.environ if environ is None else environ
    chosen = (env.get("MEMDIR_USER") or "").strip()
    if chosen:
        return chosen
    import getpass

    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no user name for this uid (a bare container)
        raise ConfigError("no user name is known here: set MEMDIR_USER") from None


def configured_backend(home: Path | None = None, environ: Mapping[str, str] | None = None) -> str:
    """The storage backend to open (``memdir.backends``): ``$MEMDIR_BACKEND``, else the
    top-level ``backend:`` of ``config.yaml``, else ``file``."""
    env = os.environ if environ is None else environ
    chosen = (env.get("MEMDIR_BACKEND") or "").strip()
    if chosen:
        return chosen
    path = settings_file(home)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        return "file"  # read_file reports a bad file with its fix when the settings are read
    value = data.get("backend") if isinstance(data, dict) else None
    if value is not None and not isinstance(value, str):
        raise ConfigError(f"{path}: backend must be a name such as 'file' (got {value!r})")
    return value.strip() if value and value.strip() else "file"
