"""The guard's shared words: what a safety check is, what turning one off is, what a secret is,
what a URL is — read by more than one judge (and by the pronoun rule of ``reading``)."""

from __future__ import annotations

import re


def rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


# things made to be thrown away: destroying them is ordinary work ("delete the test fixtures",
# "clear the cache", "删掉临时文件")
SCRATCH = rx(
    r"\b(?:test|tests|testing|staging|local|temp|tmp|scratch|cache\w*|node_modules|build|dist|"
    r"sample|demo|dev|draft\w*|old (?:branches|logs)|feature branch\w*|my own|fixtures?)\b|"
    r"测试|本地|临时|缓存|草稿"
)


SAFE_STRONG = (
    r"(?:confirmations?(?: prompts?| dialogs?)?|(?:permission|approval|confirmation) "
    r"(?:prompts?|checks?|dialogs?|requests?)|safety (?:checks?|features?|rails?|filters?|"
    r"measures?)|security (?:checks?|warnings?|scans?|scanning|alerts?)|guardrails?|sandbox\w*|"
    r"(?:pre-commit |git )?hooks?|2fa|mfa|branch protection|content filters?|restrictions|"
    r"permissions? (?:system|model)|approvals?|code reviews?|anti-?virus|virus scan\w*|firewalls?|"
    r"selinux|apparmor|defender|audit (?:logs?|logging|trail)|(?:security|secret|malware) "
    r"scanners?|(?:tls|ssl|certificate|cert|signature|checksum) (?:verification|checks?|"
    r"validation)|dry[- ]runs?)"
)
SAFE_WEAK = r"(?:reviews?|tests|ci|checks|warnings|linters?|verification|sign[- ]?off|review)"
DISABLE = (
    r"(?:disable|disabling|turn(?:ing)? off|switch(?:ing)? off|shut(?:ting)? off|bypass(?:ing)?|"
    r"skip(?:ping)?|ignor(?:e|ing)|circumvent(?:ing)?|get(?:ting)? around|suppress(?:ing)?|"
    r"remov(?:e|ing)|silenc(?:e|ing)|deactivat(?:e|ing)|override|overriding|route around|"
    r"work around|sidestep(?:ping)?|dodg(?:e|ing))"
)
URL = r"(?:https?|ftp)://\S+"
# a URL that is this machine is not the network: "run the app at http://localhost:8000"
LOCAL_URL = rx(r"(?:https?|ftp)://(?:localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1\])")
SECRET = (
    r"(?:(?<![\w.])\.env\b(?![.\w]*(?:example|sample|template|dist))|env(?:ironment)? files?|"
    r"environment variables?|env vars?|~?/?\.ssh\b|ssh[- ]keys?|id_rsa|id_ed25519|id_dsa|"
    r"private[- ]keys?|credentials?(?:\.json)?|(?:api|access|auth|github|gh|npm|pypi|bearer|"
    r"secret|session|oauth|aws)[ _-]?(?:keys?|tokens?)|secrets?\s+(?:folder|files?|dir\w*|store|"
    r"vault)|(?:the|our|repo|repository|project|app|all|production|prod|ci|environment)\s+"
    r"secrets|\.aws\b|\.netrc|\.npmrc|\.pypirc|kubeconfig|keychain|passwords?|passphrases?|"
    r"\.pem\b|seed phrase|密钥|私钥|秘钥|凭证|凭据|令牌|密码|口令|环境变量|助记词)"
)
PRONOUN = rx(
    r"\b(?:" + DISABLE + r"|send|post|upload|e-?mail|forward|paste|share|leak|publish|dm|"
    r"message|mail|text|give|hand)\s+"
    r"(them|it|those|these)\b"
)
