"""One HTTP endpoint of a model server: JSON POSTs with timeouts and retries, over ``httpx``.

Every provider sends its requests through an ``Endpoint``; the provider only builds bodies and
reads answers. The policy, in one place:

* **Timeouts.** ``timeout`` seconds to read an answer (a local model on a CPU is slow: the
  default is 60), at most 10 of them to connect.
* **Retries.** A 429, a 408, a 5xx, a timeout or a refused/broken connection is retried up to
  ``max_retries`` times, waiting ``backoff * 2**attempt`` seconds (capped at ``max_backoff``)
  times a random factor in [0.5, 1] so that many clients do not retry in step. A server's
  ``Retry-After`` (seconds or an HTTP date) is honoured when it asks for longer; when it asks for
  more than ``max_backoff`` the request fails at once instead of blocking the caller for minutes.
  Any other 4xx is the caller's mistake (a bad key, a wrong URL, a rejected field) and is not
  retried.
* **Errors.** Every failure is a ``ProviderError`` naming the URL, the status and what to do;
  a rejected request is a ``RejectedRequest`` (a ``ProviderError``) carrying the status and the
  server's body, so a provider can react to it (OpenAIChat's ``response_format`` fallback).

**The seam for tests** is httpx's: pass a ``transport`` (``httpx.MockTransport`` or any
``httpx.BaseTransport``) or point ``base_url`` at a loopback server; ``sleep`` can be replaced to
record the waits instead of sleeping them. Nothing is patched.

**Streaming.** ``stream`` sends the same request through the same client, headers and error
mapping, and yields the ``data`` field of each server-sent event (``text/event-stream``: ``event:``
and ``data:`` lines, a blank line ends an event, ``:`` starts a comment). The retry rule applies
until the answer's status line arrives; after that nothing is retried.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

from ..errors import ProviderError

__all__ = ["Endpoint", "RejectedRequest"]


class RejectedRequest(ProviderError):
    """The server answered a 4xx that retrying cannot fix; ``status`` and ``body`` say why."""

    def __init__(self, message: str, status: int, body: str) -> None:
        self.status = status
        self.body = body
        super().__init__(message)


def _retryable(status: int) -> bool:
    """429 (rate limit), 408 (request timeout) and every 5xx (529: Anthropic overloaded)."""
    return status in (408, 429) or status >= 500


def _retry_after(response: httpx.Response) -> float | None:
    """The server's ``Retry-After`` in seconds (delta-seconds or an HTTP date), if any."""
    value = response.headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        moment = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, moment.timestamp() - time.time())


def _server_message(body: str) -> str:
    """The error text a server put in its JSON body (OpenAI / Anthropic shapes), or the body."""
    try:
        data = json.loads(body)
    except ValueError:
        return body.strip()[:300]
    if isinstance(data, dict):
        error = data.get("error", data)
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return str(error["message"])[:300]
        if isinstance(error, str):
            return error[:300]
    return body.strip()[:300]


_SSE_FIELDS = ("event:", "id:", "retry:", ":")
_OTHER_LIMIT = 4 * 1024 * 1024  # what is kept of a body that is not an event stream


def _sse_data(lines: Iterable[str], other: list[str] | None = None) -> Iterator[str]:
    """The ``data`` of each server-sent event in ``lines`` (several ``data:`` lines of one event
    are joined with newlines; ``event:``, ``id:``, ``retry:`` and comments are skipped — every
    provider repeats the event name inside its JSON). Lines that are no event field at all go
    to ``other`` (a server that ignored ``stream: true`` sends its JSON answer that way)."""
    data: list[str] = []
    kept = 0
    for line in lines:
        if not line:
            if data:
                yield "\n".join(data)
                data = []
        elif line.startswith("data:"):
            value = line[5:]
            data.append(value[1:] if value.startswith(" ") else value)
        elif other is not None and not line.startswith(_SSE_FIELDS) and kept < _OTHER_LIMIT:
            other.append(line)
            kept += len(line)
    if data:  # a server that ends without the final blank line
        yield "\n".join(data)


def _advice(status: int, what: str) -> str:
    if status in (401, 403):
        return (
            f"check the API key for {what}: memdir config set llm.api_key KEY "
            "(or set MEMDIR_LLM_API_KEY)"
        )
    if status == 404:
        return (
            "check llm.base_url (OpenAI-compatible servers usually end in /v1) and llm.model "
            "(the server must know that model): memdir config list"
        )
    return "check the request settings (llm.model, llm.base_url) with memdir config list"


class Endpoint:
    """JSON POSTs to one base URL with the retry policy above. Thread-safe (one httpx client)."""

    def __init__(
        self,
        base_url: str,
        *,
        headers: Mapping[str, str] | None = None,
        timeout: float = 60.0,
        max_retries: int = 2,
        backoff: float = 0.5,
        max_backoff: float = 30.0,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.max_retries = max_retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self._sleep = sleep
        self._client = httpx.Client(
            headers=dict(headers or {}),
            timeout=httpx.Timeout(timeout, connect=min(timeout, 10.0)),
            transport=transport,
        )

    def url(self, path: str) -> str:
        return f"{self.base_url}/{path.lstrip('/')}"

    def close(self) -> None:
        self._client.close()

    def _delay(self, attempt: int, response: httpx.Response | None) -> float | None:
        """Seconds to wait before the next attempt, or None when the server asks for too long."""
        delay = float(min(self.max_backoff, self.backoff * 2**attempt)) * random.uniform(0.5, 1.0)
        asked = _retry_after(response) if response is not None else None
        if asked is not None:
            if asked > self.max_backoff:
                return None
            delay = max(delay, asked)
        return delay

    def post(self, path: str, body: Mapping[str, Any]) -> dict[str, Any]:
        """POST ``body`` as JSON to ``path``; the decoded JSON object of a 2xx answer."""
        url = self.url(path)
        response = self._send(url, lambda: self._client.post(url, json=body))
        return self._decode(url, response)

    def stream(self, path: str, body: Mapping[str, Any]) -> Iterator[str]:
        """POST ``body`` and yield the ``data`` of each server-sent event as it arrives.

        The retry policy applies until the answer's status line: a 2xx is then read event by
        event (a ``data: [DONE]`` line ends it), and a connection that breaks or times out in
        the middle is a ``ProviderError`` — retrying would repeat text already shown. Closing
        the iterator closes the connection (a person pressed Ctrl-C). A server that ignores
        ``stream: true`` and answers with one JSON object has that object yielded as the only
        event (the provider reads a whole answer too); an answer with neither is an error, never
        an empty reply."""
        url = self.url(path)
        request = self._client.build_request("POST", url, json=body)
        response = self._send(url, lambda: self._client.send(request, stream=True))
        events = 0
        other: list[str] = []
        try:
            for data in _sse_data(response.iter_lines(), other):
                if data == "[DONE]":
                    return
                events += 1
                yield data
            if not events:
                text = "\n".join(other).strip()
                if not text.startswith("{"):
                    raise ProviderError(
                        f"{url}: the answer holds no server-sent events ({text[:120]!r}); is "
                        "llm.base_url the API of a server that supports stream: true?"
                    )
                yield text
        except httpx.TransportError as exc:
            raise ProviderError(
                f"{url}: the stream broke after {events} event(s) "
                f"({exc or type(exc).__name__}); send the message again, or raise llm.timeout "
                "for a slow server"
            ) from exc
        finally:
            response.close()

    def _send(self, url: str, send: Callable[[], httpx.Response]) -> httpx.Response:
        """``send()`` with the retry policy; the first 2xx response (a streamed one unread)."""
        attempts = self.max_retries + 1
        last = ""
        for attempt in range(attempts):
            response: httpx.Response | None = None
            try:
                response = send()
                if not response.is_success:
                    response.read()  # a streamed error body: read it to report it
                    response.close()
            except httpx.UnsupportedProtocol as exc:
                raise ProviderError(
                    f"{url}: not an http(s) URL ({exc}); fix llm.base_url "
                    "(memdir config set llm.base_url http://localhost:11434/v1)"
                ) from exc
            except httpx.TimeoutException as exc:
                last = f"timed out ({type(exc).__name__})"
            except httpx.TransportError as exc:
                last = f"connection failed ({exc or type(exc).__name__})"
            if response is not None:
                if response.is_success:
                    return response
                if not _retryable(response.status_code):
                    self._reject(url, response)
                last = f"HTTP {response.status_code}: {_server_message(response.text)}"
            if attempt + 1 == attempts:
                break
            delay = self._delay(attempt, response)
            if delay is None:
                raise ProviderError(
                    f"{url}: {last}; the server asks to wait "
                    f"{_retry_after(response) if response is not None else '?'} s, longer than "
                    f"memdir waits ({self.max_backoff:g} s) — try again later"
                )
            self._sleep(delay)
        raise ProviderError(
            f"{url}: {last}, after {attempts} attempt(s). Check that the server is running and "
            "that llm.base_url points at it (memdir config list; memdir config test), or raise "
            "llm.timeout / llm.max_retries for a slow or busy server"
        )

    @staticmethod
    def _decode(url: str, response: httpx.Response) -> dict[str, Any]:
        try:
            data = response.json()
        except ValueError as exc:
            raise ProviderError(
                f"{url}: the answer is not JSON ({response.text[:120]!r}); is llm.base_url the "
                "API (often ending in /v1) rather than a web page?"
            ) from exc
        if not isinstance(data, dict):
            raise ProviderError(f"{url}: expected a JSON object, got {type(data).__name__}")
        return data

    @staticmethod
    def _reject(url: str, response: httpx.Response) -> None:
        status, text = response.status_code, response.text
        what = httpx.URL(url).host
        raise RejectedRequest(
            f"{url}: HTTP {status}: {_server_message(text)} — {_advice(status, what)}",
            status,
            text,
        )
