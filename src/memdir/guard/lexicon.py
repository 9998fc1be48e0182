"""The guard's shared words: what a safety check is, what turning one off is, what a secret is,
what a URL is — read by more than one judge (and by the pronoun rule of ``reading``)."""

from __future__ import annotations

import re

from ..regex import compile as _compile


def rx(pattern: str) -> re.Pattern[str]:
    """``pattern``, case-insensitive, compiled from the machine's table (``memdir.regex``)."""
    return _compile(pattern, re.IGNORECASE, group="guard")


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
    r"validation)|dry[- ]runs?|code signing|signing checks?|seccomp(?: profiles?)?)"
)
# A protective mechanism named by what it guards and what it is, beyond the fixed names above:
# "the safety interlock", "the security linter's rules", "the vulnerability scanner", "the spam
# filter", "the policy engine", "operation logs" — turned off, it is a check turned off.
GUARD_EN = (
    r"(?:(?:safety|security|virus|malware|vulnerability|vuln|spam|content|policy|audit|approval|"
    r"confirmation|permission|integrity|compliance|secret|license|sast|dast|rate|abuse|fraud|"
    r"access)[\w'-]*\s+(?:\w+['’]?s?\s+)?(?:checks?|scan(?:s|ner|ners)?|filters?|interlocks?|"
    r"guards?|gates?|linters?|rules|engines?|polic(?:y|ies)|logs?|logging|trails?|prompts?|"
    r"levels?|settings?|classifiers?|alerts?|warnings?|limiters?|controls?|moderation|reviews?|"
    r"steps?|"
    r"stages?)|interlocks?|"
    r"(?:pre-?(?:commit|push|merge|receive|deploy)|ci|lint|type)\s+(?:checks?|hooks?|gates?)|"
    r"branch (?:rules|protection\w*)|(?:approval|permission|confirmation|security|safety)\s+"
    r"(?:pop-?ups?|dialogs?|modals?)|"
    r"(?:content )?moderation|"
    r"rate[- ]limit(?:er|ing|s)?|sandbox\w*|firewalls?|anti-?virus|virus scanners?|"
    # a protection named by what it protects against (session 20): "the thermal runaway
    # protection", "the intrusion detection", "the circuit breaker", "the geofence"
    r"(?:thermal|overheat\w*|overload|surge|runaway|overcurrent|overvoltage|tamper|ddos|"
    r"intrusion|fraud|theft|collision|fall)[\w -]{0,12}?(?:protection|detection|prevention)|"
    r"circuit breakers?|geofenc\w*|\bwaf\b)"
)
GUARD_ZH = (
    r"(?:分支保护|保护规则|检查的?关卡|沙箱|沙盒|安全策略|安全检查|安全扫描|漏洞扫描|病毒扫描|"
    r"代码扫描|扫描|扫毒|杀毒软件|杀毒|防火墙|审计日志|操作日志|"
    r"内容过滤|过滤器|风控|限流|确认框|确认提示|弹窗|钩子|审批|审核|评审|代码签名校验|签名校验|"
    r"校验|检查|二次验证|验证|入侵检测|安全警告|告警|报警)"
)
SAFE_WEAK = r"(?:reviews?|tests|ci|checks|warnings|linters?|verification|sign[- ]?off|review)"
DISABLE = (
    r"(?:disable|disabling|turn(?:ing)? off|switch(?:ing)? off|shut(?:ting)? off|bypass(?:ing)?|"
    r"skip(?:ping)?|ignor(?:e|ing)|circumvent(?:ing)?|get(?:ting)? around|suppress(?:ing)?|"
    r"remov(?:e|ing)|silenc(?:e|ing)|deactivat(?:e|ing)|override|overriding|route around|"
    r"work around|sidestep(?:ping)?|dodg(?:e|ing)|comment(?:ing)? out)"
)
URL = r"(?:https?|ftp)://\S+"
# a URL that is this machine is not the network: "run the app at http://localhost:8000"
LOCAL_URL = rx(r"(?:https?|ftp)://(?:localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1\])")
SECRET = (
    r"(?:(?<![\w.])\.env\b(?![.\w]*(?:example|sample|template|dist))|env(?:ironment)? files?|"
    r"environment variables?|env vars?|~?/?\.ssh\b|ssh[- ]keys?|id_rsa|id_ed25519|id_dsa|"
    r"private[- ]keys?|credentials?(?:\.json)?|(?:api|access|auth|github|gh|npm|pypi|bearer|"
    r"secret|session|oauth|aws|signing|deploy|encryption|master|gpg|pgp)[ _-]?(?:keys?|tokens?)|"
    r"secrets?\s+(?:folder|files?|dir\w*|store|"
    r"vault)|(?:the|our|repo|repository|project|app|all|production|prod|ci|environment)\s+"
    r"secrets|\.aws\b|\.netrc|\.npmrc|\.pypirc|kubeconfig|keychain|(?<!1)passwords?|"
    r"1password (?:exports?|vaults?|backups?)|passphrases?|"
    r"\.pem\b|seed phrase|(?:session |auth |login )?cookies|service[- ]account (?:json|keys?|"
    r"files?|credentials)|(?:api|client|app) secrets?|os\.environ|process\.env|printenv|"
    r"\b(?:any|every|each) secrets?\b|\bwhenever you (?:read|see|find|meet|hit) an? secret\b|"
    r"密钥|私钥|秘钥|凭证|凭据|令牌|密码|口令|环境变量|助记词)"
)
PRONOUN = rx(
    r"\b(?:" + DISABLE + r"|get rid of|mute|kill|make|send|post|upload|e-?mail|forward|paste|share|"
    r"leak|publish|dm|echo|print|write|show|reveal|dump|copy|comment|dismiss|take|"
    r"message|mail|text|give|hand)\s+"
    r"(them|it|those|these)\b"
)
