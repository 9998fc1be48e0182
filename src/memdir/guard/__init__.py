"""The safety guard: what may never become a memory, checked before every write (SPEC G4).

Three checks, in this order, each pure (no I/O, no model):

1. **Secrets are redacted.** Provider keys (OpenAI, Anthropic, AWS — the secret key beside its
   access key too —, GitHub, Slack, Google, Stripe, SendGrid, npm, PyPI, GitLab, Hugging Face),
   PEM private keys, JWTs, bearer tokens, passwords (``password: …``, ``密码是…``, a passcode or
   PIN, ``login: user / pass``, ``user:pass@`` in a URL), a UUID after "API key", Luhn-valid
   card numbers and high-entropy values after a
   ``token``/``secret``/``key`` word become ``[REDACTED:<kind>]``. When what is left says nothing
   but "the key/password is …" the memory's point was the secret, and it is refused instead.
   Patterns are specific on purpose: commit hashes, UUIDs, versions, phone numbers, paths and
   URLs without credentials are ordinary text (tests hold both sides).
2. **Permission grants are refused, whoever says them.** "You may deploy without approval",
   "skip the review", "不用问我直接部署": memdir stores how the agent should work, never what it
   is allowed to do — a stored grant would outlive the moment it was given and could be planted
   by anyone who gets text into a memory. Restrictions ("always ask before deleting files",
   "never deploy without approval") are not grants and stay allowed.
3. **External content cannot instruct.** ``source="external"`` (tool output, a web page, an
   imported file) can never become a ``user`` or ``feedback`` memory, and an external
   ``project``/``reference`` fact is refused when it carries an instruction aimed at the agent
   ("ignore previous instructions", "you must", "from now on", role markers, "忽略之前的指令").
   The unmistakable injection phrases are refused from every source: nobody needs "ignore
   previous instructions" as a memory.

``check`` returns a ``Verdict`` (it raises only for a type or source memdir does not know);
``Verdict.raise_for_refusal()`` turns a refusal into ``RefusedError`` for callers that want the
exception. ``GUARD_VERSION`` changes whenever a pattern's behaviour does, and is recorded with
every refusal (STYLE habit 6).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..errors import RefusedError, ValidationError
from ..records import SOURCES, TYPES
from .intent import KINDS, Finding, judge

__all__ = [
    "GUARD_VERSION",
    "KINDS",
    "Finding",
    "Verdict",
    "body_of",
    "check",
    "find_grant",
    "find_injection",
    "judge",
    "redact",
]

GUARD_VERSION = "guard-v9"


@dataclass(frozen=True)
class Verdict:
    """What the guard decided about one memory text.

    ``text`` is what may be stored (secrets redacted; the input itself when untouched);
    ``quote`` is the redacted quote when one was given; ``reasons`` say why it was refused or
    what was redacted, in words a person can act on."""

    allowed: bool
    text: str
    reasons: tuple[str, ...]
    redactions: int = 0
    quote: str | None = None

    def raise_for_refusal(self) -> Verdict:
        """``self`` when allowed; otherwise raise ``RefusedError`` carrying the reasons."""
        if self.allowed:
            return self
        raise RefusedError("not stored: " + "; ".join(self.reasons), self.reasons)


def check(
    text: str,
    *,
    type: str,
    source: str,
    quote: str | None = None,
    statement: str | None = None,
    allow: Iterable[str] = (),
) -> Verdict:
    """Decide whether ``text`` may be stored as a memory of ``type`` from ``source``.

    ``quote`` (the words it came from) is redacted like the text and judged too: a clean summary
    of a poisoned quote is still poisoned. ``statement`` is the memory's own text when ``text``
    joins several fields (description, why, …): a memory whose statement is only a secret is
    refused whatever its other fields say. ``allow`` names kinds (``KINDS``) the person chose to
    store anyway — only the person's own door passes it; secrets and external rules never pass."""
    if type not in TYPES:
        raise ValidationError(f"unknown memory type {type!r}: use one of {', '.join(TYPES)}")
    if source not in SOURCES:
        raise ValidationError(f"unknown source {source!r}: use one of {', '.join(SOURCES)}")
    unknown = sorted(set(allow) - set(KINDS))
    if unknown:
        raise ValidationError(f"cannot allow {unknown}: the kinds are {', '.join(KINDS)}")
    clean, count, kinds = _redact(text)
    clean_quote = _redact(quote)[0] if quote is not None else None
    own, own_count, _ = _redact(statement) if statement is not None else (clean, count, kinds)
    reasons: list[str] = []
    if count:
        reasons.append(
            f"redacted {count} secret{'s' if count > 1 else ''} ({', '.join(sorted(kinds))})"
        )
    # Findings are looked for in the redacted words, so a reason that quotes them can never
    # carry the secret into the change log.
    secret_only = bool(own_count) and _only_secret(own)
    refusals = _refusals(
        clean,
        clean_quote,
        secret_only,
        type=type,
        source=source,
        allow=frozenset(allow) if source != "external" else frozenset(),
    )
    return Verdict(
        allowed=not refusals,
        text=clean,
        reasons=tuple(refusals + reasons),
        redactions=count,
        quote=clean_quote,
    )


def body_of(file: str | None) -> str | None:
    """The body of a whole memory file (its frontmatter cut), for judging its statement."""
    if file is None:
        return None
    m = re.match(r"\ufeff?---\n.*?\n---\n?(.*)", file, re.DOTALL)
    return m.group(1) if m else file


def redact(text: str) -> tuple[str, int]:
    """``text`` with every secret replaced by ``[REDACTED:<kind>]``, and how many there were."""
    clean, count, _ = _redact(text)
    return clean, count


_GRANTING = ("permission", "disables-safety", "remote-code", "exfiltration", "destructive")


def find_grant(text: str) -> str | None:
    """The words of ``text`` that would authorise the agent to do something (a permission, a
    safety check off, remote code, sending secrets, destroying data), or ``None``."""
    for finding in judge(text):
        if finding.kind in _GRANTING:
            return finding.words
    return None


def find_injection(text: str, *, external: bool) -> str | None:
    """The words of ``text`` that instruct the agent, or ``None``. From any source a role switch
    or an instruction override counts; from external content any instruction does."""
    for finding in judge(text):
        if finding.kind in ("role-switch", "override"):
            return finding.words
    for pattern in _INSTRUCTIONS if external else ():
        m = pattern.search(text)
        if m:
            return m.group().strip()
    return None


_WHAT = {
    "permission": "grants a permission",
    "disables-safety": "disables a confirmation or safety check",
    "remote-code": "runs code fetched from the network",
    "exfiltration": "sends files or secrets out",
    "destructive": "allows destroying data",
    "role-switch": "switches the agent's role or mode (possible prompt injection)",
    "override": "overrides the agent's instructions (possible prompt injection)",
}


# how to store the legitimate fact behind a refused text, per kind
_INSTEAD = {
    "permission": 'a rule that restricts is kept ("ask before deploying")',
    "disables-safety": 'a rule that keeps the check is kept ("never skip the hooks")',
    "remote-code": "store which script the project uses and where it lives, not that it is "
    "fetched and run",
    "exfiltration": "store where the file or secret lives, not where to send it",
    "destructive": 'store what may be deleted after asking ("ask before dropping tables")',
    "role-switch": "describe yourself or the project, not a mode for the agent",
    "override": "state the fact itself, in your own words",
}


# the same, in Chinese, for a refusal by the learned reading of a Chinese memory
_WHAT_ZH = {
    "permission": "授予权限",
    "disables-safety": "关闭确认或安全检查",
    "remote-code": "运行从网络获取的代码",
    "exfiltration": "把文件或机密发送出去",
    "destructive": "允许销毁数据",
    "role-switch": "切换代理的角色或模式（可能是提示注入）",
    "override": "推翻代理的指令（可能是提示注入）",
}


def refusal_reason(finding: Finding) -> str:
    """What the guard judged, in words a person can act on, how to store the legitimate fact
    instead and how to keep the text anyway. A refusal by the learned reading says so (it
    judged the meaning, not a rule's words), and says it in Chinese too for a Chinese memory."""
    if finding.by != "rules":
        return _learned_reason(finding)
    return (
        f"{_WHAT[finding.kind]} ({finding.kind}: {finding.words!r}); a memory is read by every "
        f"later session, so memdir never stores what the agent may do — the agent asks each "
        f"time. To store the fact instead: {_INSTEAD[finding.kind]}, and what you or others did "
        f'("I …", "CI …") is kept as a fact. To keep this text anyway, store it yourself '
        f"from a terminal: `memdir remember --allow {finding.kind} TEXT --type ...` (the agent, "
        f"extraction and imports cannot)"
    )


def _learned_reason(finding: Finding) -> str:
    kind = finding.kind
    text = (
        f"reads as a memory that {_WHAT[kind]} ({kind}, judged by its meaning by the guard's "
        f"learned reading {finding.by}, not by a rule: {finding.words!r}); a memory is read by "
        f"every later session, so memdir never stores what the agent may do. To store the fact "
        f'instead: {_INSTEAD[kind]}, and what you or others did ("I …", "CI …") is kept as a '
        f"fact. If it is only a fact and you want it kept as written, store it yourself from a "
        f"terminal: `memdir remember --allow {kind} TEXT --type ...` (the agent, extraction and "
        f"imports cannot)"
    )
    if re.search(r"[\u4e00-\u9fff]", finding.words):
        text += (
            f"。按含义判断（学习模型 {finding.by}，不是规则），这条记忆会{_WHAT_ZH[kind]}："
            f"“{finding.words}”。记忆会被之后的每次会话读取，所以 memdir 不保存代理可以做什么。"
            f"只想记下事实，请写明你或别人做了什么；若确实要照原文保存，请本人在终端运行 "
            f"`memdir remember --allow {kind} 文本 --type ...`（代理、提取和导入都不能这样做）"
        )
    return text


def _refusals(
    clean: str,
    quote: str | None,
    secret_only: bool,
    *,
    type: str,
    source: str,
    allow: frozenset[str],
) -> list[str]:
    out: list[str] = []
    external = source == "external"
    if external and type in ("user", "feedback"):
        out.append(
            f"external content (tool output, a web page, an imported file) cannot become a "
            f"{type} memory: store it as project or reference, or have the person say it"
        )
    if secret_only:
        out.append(
            "what is left after redacting the secret says only that there is one: store where "
            "the secret lives (a vault path, an environment variable name), never its value"
        )
    seen: set[str] = set()
    ruled = False
    for words in (clean, quote or ""):
        for finding in judge(words):
            if finding.kind not in seen and finding.kind not in allow:
                seen.add(finding.kind)
                ruled = ruled or finding.by == "rules"
                out.append(refusal_reason(finding))
    # external content's instruction is named too when only the learned reading spoke: what it
    # judged by meaning is a guess at the kind, the instruction is what the text plainly carries
    if external and not ruled:
        for words in (clean, quote or ""):
            injection = find_injection(words, external=True)
            if injection:
                out.append(
                    f"carries an instruction to the agent ({injection!r}): possible prompt "
                    f"injection; store only the fact, in your own words"
                )
                break
    return out


# --------------------------------------------------------------------------- secrets


@dataclass(frozen=True)
class _Secret:
    kind: str
    pattern: re.Pattern[str]
    # The group that holds the secret; the rest of the match (a "password:" label, the
    # "Bearer " scheme, a URL's user and host) stays, so the memory still reads.
    group: int | str = 0
    # Decides on the whole match, so a pattern can look at the words around the value.
    accept: Callable[[re.Match[str]], bool] | None = None


def _entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    counts = {c: value.count(c) for c in set(value)}
    return -sum(n / len(value) * math.log2(n / len(value)) for n in counts.values())


def _luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _card(value: str) -> bool:
    digits = re.sub(r"[ -]", "", value)
    return 13 <= len(digits) <= 19 and len(set(digits)) > 1 and _luhn(digits)


_UUID = re.compile(r"[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}")


def _tokenish(value: str) -> bool:
    """A value that looks generated: mixed letters and digits, high entropy, not a UUID (ids,
    not secrets), not a path or a version."""
    if _UUID.fullmatch(value) or value.startswith(("/", "./", "~", "http")):
        return False
    has_alpha = any(c.isalpha() for c in value)
    has_digit = any(c.isdigit() for c in value)
    return has_alpha and has_digit and _entropy(value) >= 3.0


def _password(value: str) -> bool:
    """After "password is" a plain word is usually prose ("is stored in Vault"); after
    "password:" or "=" anything is the value. The caller passes the label's separator."""
    return not value.startswith("[REDACTED") and len(value) >= 3


def _login_password(value: str) -> bool:
    """After "login: user /", a value with a digit and a capital or a symbol is the password;
    "login: SSO / Okta" names two services."""
    if value.startswith("[REDACTED"):
        return False
    return any(c.isdigit() for c in value) and (
        any(not c.isalnum() for c in value) or value.lower() != value
    )


def _spoken_password(value: str) -> bool:
    if value.startswith("[REDACTED") or len(value) < 4:
        return False
    if value.lower() in _PROSE:
        return False
    return any(c.isdigit() or not c.isalnum() for c in value) or value.lower() != value


_PROSE = {
    "stored", "required", "set", "managed", "rotated", "kept", "expired", "wrong", "correct",
    "changed", "empty", "missing", "invalid", "valid", "needed", "optional", "reset",
    "the", "in", "a", "an", "not", "being", "also", "still", "now", "same", "different",
    "saved", "encrypted", "hashed", "generated", "shared", "known", "long", "short", "weak",
    "strong", "secure", "too", "at", "on", "from", "your", "my", "our",
}  # fmt: skip

_VALUE_END = r"(?=[\s,;，。；)\]}'\"]|[.!?](?:\s|$)|$)"


def _spoken(label: str) -> _Secret:
    """A password said in words after ``label`` ("password is …", "密码是…"): the value runs to
    the end of the word, and prose after the label ("is stored in Vault") is not a value."""
    return _Secret(
        "password",
        re.compile(label + r"\s*[\"'“]?(?P<v>[^\s\"'”,;，。；]+?)" + _VALUE_END),
        group="v",
        accept=lambda m: _spoken_password(m.group("v")),
    )


_SECRETS: tuple[_Secret, ...] = (
    _Secret(
        "private-key",
        re.compile(
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?"
            r"(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)"
        ),
    ),
    _Secret("anthropic-key", re.compile(r"\bsk-ant-[A-Za-z0-9_-]{20,}")),
    _Secret(
        "openai-key",
        re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"),
        accept=lambda m: _tokenish(m.group().removeprefix("sk-")),
    ),
    _Secret("stripe-key", re.compile(r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}")),
    _Secret("aws-access-key", re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b")),
    _Secret(
        "aws-secret-key",
        re.compile(
            r"(?i:aws_?secret_?access_?key|aws[ _-]?secret(?:[ _-]?access)?[ _-]?key|"
            r"secret[ _-]?access[ _-]?key)[\"']?\s*(?:[:=]|is|：)?\s*[\"']?"
            r"(?P<v>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"
        ),
        group="v",
    ),
    # the secret key written beside its access key ("AKIA… / 9fK2…"): the pair is the credential
    _Secret(
        "aws-secret-key",
        re.compile(
            r"\[REDACTED:aws-access-key\][\"']?\s*(?:[/:,;|]|and)?\s*[\"']?"
            r"(?P<v>[A-Za-z0-9/+=]{30,44})(?![A-Za-z0-9/+=])"
        ),
        group="v",
        accept=lambda m: _tokenish(m.group("v")),
    ),
    _Secret(
        "github-token",
        re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})"),
    ),
    _Secret("slack-token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    _Secret("sendgrid-key", re.compile(r"\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}")),
    _Secret(
        "package-token",
        re.compile(r"\b(?:npm_[A-Za-z0-9]{30,}|pypi-[A-Za-z0-9_-]{40,}|glpat-[A-Za-z0-9_-]{20,})"),
    ),
    _Secret("huggingface-token", re.compile(r"\bhf_[A-Za-z0-9]{30,}")),
    _Secret("google-api-key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}")),
    _Secret("jwt", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")),
    _Secret(
        "bearer-token",
        re.compile(r"(?i:\bbearer)\s+(?P<v>[A-Za-z0-9._~+/-]{16,}=*)"),
        group="v",
        accept=lambda m: not m.group("v").startswith("[REDACTED"),
    ),
    _Secret(
        "password",
        re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s:/@]*:(?P<v>[^\s@/]+)@[^\s@]", re.IGNORECASE),
        group="v",
        accept=lambda m: not m.group("v").startswith("[REDACTED"),
    ),
    _Secret(
        "password",
        re.compile(
            r"(?i:\b(?:password|passwd|pwd|passphrase|passcode|pass|pin|db_pass(?:word)?|"
            r"[A-Z_]*PASSWORD)|密码|口令)"
            r"(?:\s+for\s+(?:the\s+|my\s+|our\s+)?[\w-]+(?:\s+[\w-]+)?(?=\s*[:=：]))?"
            r"[\"']?\s*(?:[:=：]|为)\s*[\"']?(?P<v>[^\s\"',;，。；]+)"
        ),
        group="v",
        accept=lambda m: _password(m.group("v")),
    ),
    _spoken(r"(?i:\b(?:password|passwd|passphrase|passcode|pin(?: code)?)\s+(?:is|was|will be))"),
    # a login written as "user / password": "admin login: admin / Tz8#wQ4!vN1m"
    _Secret(
        "password",
        re.compile(
            r"(?i:\b(?:login|log-in|credentials?|creds|sign-?in|username and password|user/pass))"
            r"(?:\s+(?:is|are))?\s*[:：=]?\s*[\"']?[\w.@+-]{2,40}\s*/\s*(?P<v>[^\s\"',;，。；]{6,})"
        ),
        group="v",
        accept=lambda m: _login_password(m.group("v")),
    ),
    _spoken(r"(?:密码|口令)(?:是|就是|改成了?|设成了?)"),
    # a UUID is an id, except after "API key" or "token", where it is the key ("Heroku API key
    # is 3b9f…")
    _Secret(
        "token",
        re.compile(
            r"(?i:\b(?:api[_ -]?keys?|apikeys?|tokens?|secrets?|access[_ -]?keys?))"
            r"[\"']?\s*(?:[:=：]|is|was|是|为)?\s*[\"'`]?(?P<v>" + _UUID.pattern + r")"
        ),
        group="v",
    ),
    _Secret(
        "card-number",
        # After an id word ("order id", "订单号") a Luhn-valid run is an id: order, invoice and
        # tracking numbers pass the check one time in ten.
        re.compile(
            r"(?P<ctx>(?i:\b(?:id|order|invoice|tracking|ticket|ref)\b)"
            r"[:#]?\s*|(?:订单号?|编号|单号|工单)[:：]?\s*)?"
            r"(?<![\w.-])(?P<v>\d(?:[ -]?\d){12,18})(?![\w.-])"
        ),
        group="v",
        accept=lambda m: m.group("ctx") is None and _card(m.group("v")),
    ),
    _Secret(
        "token",
        re.compile(
            r"(?i:\b[A-Z0-9_]*(?:token|secret|api[_ -]?key|apikey|access[_ -]?key|private[_ -]?key|"
            r"client[_ -]?secret|auth[_ -]?key|signing[_ -]?key|key)s?\b|令牌|密钥|秘钥|口令)"
            # what the key is for may stand before its colon: "key for the lab account: …"
            r"(?:\s+for\s+(?:the\s+|my\s+|our\s+)?[\w-]+(?:\s+[\w-]+)?(?=\s*[:=：]))?"
            r"[\"']?\s*(?:[:=：]|is|was|是|为)?\s*[\"'“`]?(?P<v>[A-Za-z0-9_\-./+=]{16,})"
        ),
        group="v",
        accept=lambda m: _tokenish(m.group("v")),
    ),
)


def _redact(text: str) -> tuple[str, int, set[str]]:
    count = 0
    kinds: set[str] = set()
    for secret in _SECRETS:

        def replace(m: re.Match[str], secret: _Secret = secret) -> str:
            nonlocal count
            if secret.accept is not None and not secret.accept(m):
                return m.group()
            count += 1
            kinds.add(secret.kind)
            start, end = m.span(secret.group)
            whole = m.group()
            a, b = start - m.start(), end - m.start()
            return whole[:a] + f"[REDACTED:{secret.kind}]" + whole[b:]

        text = secret.pattern.sub(replace, text)
    return text, count, kinds


_MARKER = re.compile(r"\[REDACTED:[a-z-]+\]")
_SECRET_WORDS = re.compile(
    r"(?i:\b(?:the|a|an|my|our|your|is|are|was|it|its|it's|this|that|here|here's|for|of|to|"
    r"use|and|account|login|credentials?|api|keys?|passwords?|passwd|pwd|tokens?|secrets?|root|"
    r"admin|sudo|"
    r"access|personal|bearer|auth|value|string|new|current|old|one)\b)|"
    r"密码|密钥|秘钥|令牌|口令|我的|我们的|你的|的|是|为|用|这个|账号|新|当前|登录|登陆|"
    # "…，记一下" / "remember this": asking to keep it adds nothing but the secret
    r"(?i:\b(?:remember|note|save|keep|store)(?: (?:this|that|it))?\b)|帮我记|记一下|记下来?|记住|"
    r"记着|[\s\W_]"
)


# "Deploy bot Slack token: [REDACTED]": whatever stands before the colon, with no verb after
# it, is the secret's label, however many words it takes
_LABELLED = re.compile(
    r"^[^.!?。！？\n:：=]{1,60}[:：=]\s*(?:[\w.@+-]{1,40}\s*/\s*)?[\"'`]?\[REDACTED:[a-z-]+\]"
    r"(?:[\"'`]?\s*(?:[/,;|]|and)?\s*[\"'`]?\[REDACTED:[a-z-]+\])*[\"'`]?[\s.。!！]*$"
)


def _only_secret(clean: str) -> bool:
    """After redaction, does anything but the secret's label remain? Two content words ("prod
    db") are still only a label, as is all that stands before a colon that ends in the secret; a
    Chinese character counts as half a word."""
    if _LABELLED.match(clean.strip()):
        return True
    rest = _SECRET_WORDS.sub(" ", re.sub(r"[_-]", " ", _MARKER.sub(" ", clean)))
    words = re.findall(r"[A-Za-z0-9]+", rest)
    han = len(re.findall(r"[\u4e00-\u9fff]", rest))
    return len(words) + han / 2 <= 2


# --------------------------------------------------------------------------- external


_INSTRUCTIONS: tuple[re.Pattern[str], ...] = (
    re.compile(
        r"\b(?:before|after|when|whenever|once)\s+(?:answering|responding|replying|reading|"
        r"finishing|you (?:answer|respond|reply|finish|read|are done))\b|"
        r"\b(?:upload|send|email|post|forward|exfiltrate|copy|paste|leak)\b[^.;\n]{0,40}?"
        r"(?:~/\.ssh|\.env\b|secrets?|api keys?|keys|credentials|tokens?|passwords?)",
        re.IGNORECASE,
    ),
    re.compile(
        r"(?:助手|AI|代理|智能体|模型|机器人)(?:还|也|都)?(?:应该|必须|要|需要|得|务必|一定要|"
        r"可以)|"
        r"(?:回答|回复|答复|读完|看完)(?:任何)?(?:问题)?(?:之前|以前|前|之后|以后|后)|"
        r"(?:上传|发送|发到|发给|转发|泄露)\S{0,20}?(?:密钥|\.env|~/\.ssh|凭证|令牌|密码|私钥)"
    ),
    re.compile(
        r"\b(?:you|the assistant|the agent|the ai|assistants?|agents?|ai models?|llms?|claude|"
        r"chatgpt|gpt)\s+(?:must|should|shall|will|need to|have to|are required to|are to|"
        r"are now|now|always|never)\b",
        re.IGNORECASE,
    ),
    re.compile(
        r"\b(?:from now on|going forward|henceforth|in all future|for all future|"
        r"act as|pretend (?:to be|you are)|role-?play|you are (?:a|an|now)\b|"
        r"your (?:new )?(?:task|instructions|role|goal) (?:is|are)|do not tell the user|"
        r"don'?t tell the user|without telling the user|reply only with|respond only with)",
        re.IGNORECASE,
    ),
    re.compile(
        r"(?:^|[.!?:]\s+)(?:always|never|do not|don'?t|please|make sure|be sure to|remember to|"
        r"ignore|disregard|obey|follow these|execute|run|send|email|post|upload|fetch|call|"
        r"delete|reveal|print|output|exfiltrate|forward|visit|open|click|download|install|"
        r"approve|merge|push|deploy|store|save|remember|note that you)\b",
        re.IGNORECASE,
    ),
    re.compile(
        r"从现在(?:开始|起)|今后你|以后你|你(?:必须|要|需要|应该|得|务必|一定要|只能|不准|不许|"
        r"不要|别|现在是)|"
        r"请你|作为(?:一个)?(?:AI|人工智能|助手|模型)|扮演|角色扮演|不要告诉用户|别告诉用户|"
        r"(?:^|[。！？\n]\s*)(?:请|务必|一定要|必须|记住|忽略|执行|运行|发送|删除|打开|访问|下载|"
        r"安装|"
        r"批准|合并|部署|推送|总是|永远)"
    ),
)
