"""Scripted models for the extraction tests: real subclasses of ``memdir.providers.llm.LLM``.

They stand in for a hosted model we cannot reach from the tests; everything else (the prompt,
the parsing, the retry, the guard, the store) is memdir's real code.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from memdir.providers.llm import LLM, LLMResponse

Answer = str | Mapping[str, Any] | Callable[[str], "str | Mapping[str, Any]"]


class ScriptedLLM(LLM):
    """Answers with ``answers`` in order (a dict is sent as JSON, a callable is called with the
    prompt text first); records every request."""

    model_id = "scripted-test-model"

    def __init__(self, *answers: Answer) -> None:
        self.answers = list(answers)
        self.requests: list[list[dict[str, Any]]] = []
        self.release = threading.Event()
        self.release.set()

    def complete(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        system: str | None = None,
        json_schema: Mapping[str, Any] | None = None,
        schema_name: str = "output",
        tools: Sequence[Mapping[str, Any]] | None = None,
        max_tokens: int = 1024,
        temperature: float = 0.0,
    ) -> LLMResponse:
        self.requests.append([dict(m) for m in messages])
        self.release.wait()
        answer = self.answers.pop(0) if self.answers else {"operations": [{"op": "NONE"}]}
        if callable(answer):
            answer = answer(str(messages[-1].get("content", "")))
        text = answer if isinstance(answer, str) else json.dumps(answer, ensure_ascii=False)
        return LLMResponse(text=text)


def ops(*operations: Mapping[str, Any]) -> dict[str, Any]:
    return {"operations": list(operations)}


def id_of(name: str, prompt: str) -> int:
    """The short id the prompt gave the memory called ``name``."""
    found = re.search(rf"^(\d+)\. {re.escape(name)} \(", prompt, re.M)
    assert found, f"{name} is not listed in the prompt"
    return int(found.group(1))
