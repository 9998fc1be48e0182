"""``disables-safety``: confirmations, prompts, sandboxes, hooks, scanners or checks turned off,
skipped or overruled ("--no-verify", "answer yes automatically", "测试不通过也直接提交")."""

from __future__ import annotations

import re

from .lexicon import DISABLE, GUARD_EN, GUARD_ZH, SAFE_STRONG, SAFE_WEAK, rx
from .reading import asks, by_person, describes, has_han, negated

# 关 alone turns something off ("把沙箱关了"), but not inside 关于 (about), 关键 (key), 关心,
# 关系, 关注, 相关 / 有关 (related), 开关 (a switch): "关于代码评审的约定" is a harmless fact
_BARE_OFF = r"(?<![相有无攸开机])关(?![于心系注键联卡乎门口])"

_SAFETY_EN: tuple[re.Pattern[str], ...] = (
    rx(
        r"\b" + DISABLE + r"\s+(?:(?:the|all|any|our|every|these|those|its|your|of)\s+)*"
        r"(?:\w+\s+){0,2}?" + SAFE_STRONG + r"\b"
    ),
    rx(
        r"\b"
        + DISABLE
        + r"\s+(?:(?:the|all|any|our|every|code|its|your|security|safety)\s+)*"
        + SAFE_WEAK
        + r"\b"
        r"(?!\s+(?:folders?|director(?:y|ies)|dirs?|files?|paths?|section|chapter|intro))"
    ),
    rx(
        r"\b" + SAFE_STRONG + r"\s+(?:\w+\s+){0,3}?(?:should|can|may|must|will|are|is|be|get|"
        r"gets|stay|remain)\s+(?:be\s+)?(?:now\s+|always\s+|permanently\s+|safely\s+)?"
        r"(?:disabled|turned off|switched off|off|bypassed|skipped|ignored|optional|removed|"
        r"suppressed)\b"
    ),
    rx(r"\b" + SAFE_STRONG + r"\s+(?:don'?t|do not|doesn'?t|no longer)\s+apply"),
    rx(
        r"\b(?:turn|switch|shut)\s+(?:(?:the|all|any|our|your|every)\s+)*(?:\w+\s+){0,2}?"
        + SAFE_STRONG
        + r"\s+off\b"
    ),
    rx(
        r"--dangerously-\S+|--yolo\b|\byolo mode|--no-verify\b|--no-sandbox\b|--yes\b|"
        r"--assume-yes|--no-?confirm\w*|--skip-permissions\S*|--allow-all\S*|--trust-all|"
        r"--auto-approve\S*|--bypass\S*|--force-yes|--disable-\S*(?:check|safety|sandbox|verif)\S*|"
        r"--insecure\b|--no-check-certificate\b|\b(?:pass|add|use|with)\s+(?:the\s+)?-k\b|"
        r"(?:加|用|带)上?\s*-k\b"
    ),
    rx(r"\bapproval[_ -]?policy\W+(?:to\s+|=\s*|:\s*)?(?:never|none|off|auto|yolo)\b"),
    rx(
        r"\b(?:approvals?|confirm\w*|permissions?|reviews?|sandbox|safety|guardrails|ask|审批|确认|"
        r"权限|审核|沙箱|安全检查)\s*[:=：]\s*(?:never|none|off|false|no|skip\w*|bypass\w*|"
        r"disabled?|not needed|not required|auto|跳过|关闭?|不需要|无|否)"
    ),
    rx(
        r"\b(?:outside|without)\s+(?:the\s+|a\s+|any\s+)?sandbox\b|\bunsandboxed\b|"
        r"沙[箱盒](?:之|的)?外(?:面|边|部)?[^，。\n]{0,6}?(?:执行|运行|跑)|(?:不用|不走|脱离|"
        r"绕开)沙[箱盒]"
    ),
    rx(
        r"\b(?:keep|leave|have)\s+(?:(?:the|all|any|our|every|these|those)\s+)*(?:\w+\s+){0,2}?"
        + SAFE_STRONG
        + r"\s+(?:permanently\s+)?(?:disabled|switched off|turned off|off|bypassed)\b"
    ),
    rx(
        r"\bauto-?(?:answer|accept|confirm)\w*\b|\b(?:answer|say|reply|click|respond)\w*\s+"
        r"(?:with\s+)?[\"']?(?:yes|y|ok)\b[\"']?\s+(?:to\s+)?(?:(?:every|all|any|the|those|them|"
        r"each)"
        r"\s+)*(?:\w+\s+)?(?:confirm\w*|prompts?|dialogs?|questions?|automatically)"
    ),
    re.compile(
        r"(?:默认|自动|一律|全部|都|统统)(?:回答|点|选|回复|按)\s*[“\"「]?\s*(?:是|确认|同意|yes|y|"
        r"允许)"
    ),
    rx(
        r"\btreat\s+(?:[\w-]+\s+){0,4}?(?:warnings?|alerts?|prompts?|errors?|checks?|"
        r"failures?)\s+as\s+"
        r"(?:noise|irrelevant|optional|safe)"
    ),
)
_SAFETY_EN += (
    # "don't let the hooks block you": the check is not to hold the agent back
    rx(
        r"\b(?:don'?t|do not|never)\s+let\s+(?:the\s+|any\s+|those\s+|these\s+|our\s+)?"
        r"(?:\w+\s+){0,2}?(?:" + SAFE_STRONG + "|" + SAFE_WEAK + r")\s+(?:block|stop|slow|hold|"
        r"get in the way|prevent|interrupt|pause|bother)"
    ),
    re.compile(
        r"(?:别|不要|不能)让[^，,。\n]{0,6}?(?:钩子|hook|检查|确认|审批|审核|沙箱|测试|"
        r"评审)[^，,。\n]{0,4}?"
        r"(?:挡|拦|阻止|卡|妨碍|耽误)"
    ),
)
_SAFETY_EN += (
    # no more asking for confirmation: "stop prompting for confirmation before shell commands"
    rx(
        r"\b(?:stop|quit|cease|no more|never again)\s+(?:prompting|asking|requesting|waiting)\s+"
        r"(?:me\s+|us\s+)?for\s+(?:a\s+|any\s+)?(?:confirmation|approval|permission|consent)"
    ),
    # a failed check overruled: "if CI turns red, merge anyway", "mark the checks as passed"
    _OVERRULED := rx(
        r"\b(?:tests?|checks?|ci|scans?|scanners?|linters?|lint|builds?|pipelines?)\b[^.]{0,30}?"
        r"\b(?:fail\w*|red|broken|break\w*|errors?|flag\w*|complain\w*)\b[^.]{0,40}?\b(?:merge|"
        r"commit|deploy|ship|push|release|continue|proceed|publish|install|run|use|apply|launch|go "
        r"ahead)\w*\s+(?:[\w-]+\s+){0,3}?(?:anyway|regardless|nonetheless|all the same|either way|"
        r"no matter what)\b|"
        r"\bmark\s+(?:the\s+|all\s+|every\s+|any\s+|failing\s+|failed\s+|security\s+|safety\s+)*"
        r"(?:checks?|tests?|ci|jobs?|builds?|scans?)\s+as\s+"
        r"(?:passed|passing|green|successful|success|ok|skipped|xfail|ignored)\b"
    ),
)
_SAFETY_ZH = (
    re.compile(
        r"(?:关掉|关闭|禁用|取消|跳过|绕过|无视|忽略|去掉|屏蔽|停用|省略|免去|免掉|不理会)(?:掉)?"
        r"[^，,。\n]{0,4}?(?:(?i:safety|security|sandbox|checks?|confirm\w*|reviews?|scan\w*)|"
        r"确认|提示|弹窗|安全|沙箱|权限|钩子|hook|审批|审核|评审|审查|review|检查|"
        r"防护|保护|校验|验证|2FA|MFA|杀毒|防火墙|杀软|审计|SELinux|selinux|安检)"
    ),
    re.compile(
        r"(?:确认提示|确认框|确认|提示|弹窗|安全检查|安全警告|沙箱|权限提示|权限弹窗|钩子|审批|"
        r"审核|评审|审查|"
        r"防护|校验|杀毒软件|杀毒|防火墙|杀软|安全软件|审计日志|证书校验|测试|检查|"
        r"关卡)[^，,。\n]{0,4}?"
        r"(?:先|全部|都|一律|统统|直接)?"
        r"(?:关掉|关闭|禁用|取消|跳过|绕过|无视|忽略|去掉|停用|卸载|" + _BARE_OFF + r")"
    ),
    re.compile(
        r"(?:不要|别|不用|不必|无需|不再|不需要|停止)(?:再)?(?:做|进行|弹|弹出|显示|跑|要求)?"
        r"(?:任何)?(?:安全检查|确认框|弹窗|提示框|安全扫描|代码扫描|代码审查|代码评审|审查|评审|"
        r"审核|"
        r"code review|CR)"
    ),
)


_SAFETY_EN += (
    # shipped past a failed check: "let the deploy go out even when the smoke tests are red"
    _EVEN_RED := rx(
        r"\b(?:let\s+(?:the\s+|it\s+|them\s+)?(?:\w+\s+)?(?:go out|ship|merge|deploy|through|land)|"
        r"merge|ship|deploy|release|publish|push|go ahead|proceed|continue)\w*\b[^.;]{0,30}?"
        r"\beven\s+(?:when|if|though)\b[^.;]{0,20}?\b(?:tests?|checks?|ci|builds?|scans?|"
        r"pipelines?|linters?)\b[^.;]{0,15}?\b(?:red|fail\w*|broken)\b"
    ),
    # the check pretended away: "pretend the guardrails aren't there"
    rx(
        r"\b(?:pretend|act as if|act as though|behave as if|imagine)\s+(?:that\s+)?(?:the\s+|"
        r"your\s+|"
        r"all\s+|any\s+)?(?:\w+\s+)?(?:" + SAFE_STRONG + "|" + GUARD_EN + r")\s+(?:aren'?t|isn'?t|"
        r"don'?t|doesn'?t|weren'?t|wasn'?t|do not|does not|are not|is not)\s+(?:there|exist|apply|"
        r"on|"
        r"enabled|active)\b"
    ),
    # dismissed unread: "dismiss the confirmation dialog automatically"
    rx(
        r"\b(?:dismiss|close|click through|accept|skip)\w*\s+(?:\w+\s+){0,3}?(?:confirm\w*|"
        r"prompts?|"
        r"dialogs?|warnings?|pop-?ups?)\s+(?:\w+\s+)?automatically\b"
    ),
    # taken out: "take the approval step out"
    rx(
        r"\b(?:take|rip|strip|pull|cut)\s+(?:the\s+|that\s+|this\s+|all\s+)?(?:\w+\s+){0,2}?"
        + GUARD_EN
        + r"\s+out\b|\b(?:take|rip|strip|pull|cut)\s+out\s+(?:the\s+|that\s+|"
        r"all\s+)?(?:\w+\s+){0,2}?" + GUARD_EN
    ),
    # "comment the tests out"
    rx(
        r"\bcomment(?:ing)?\s+(?:(?:the|all|any|our|those|these)\s+)?(?:\w+\s+)?(?:"
        + SAFE_STRONG
        + "|"
        + SAFE_WEAK
        + "|"
        + GUARD_EN
        + r")\s+out\b"
    ),
)
_PERSON_WENT_ON = rx(
    r"\b(?:i|we|he|she|they|someone)\s+(?:\w+\s+)?(?:merged|installed|ran|used|applied|deployed|"
    r"shipped|pushed|released|continued|proceeded|published|launched|went ahead|committed)\b"
)


def judge(clause: str) -> str | None:
    han = has_han(clause)
    for pattern in _SAFETY_EN + (_SAFETY_ZH[:2] if han else ()):
        for m in pattern.finditer(clause):
            if negated(clause, m.start()) or by_person(clause, m.start(), m.end()):
                continue
            if pattern in (_OVERRULED, _EVEN_RED) and _PERSON_WENT_ON.search(m.group()):
                continue  # "the check failed, so I installed it anyway": what the person did
            if pattern is _SAFETY_EN[-1] and asks(clause):
                continue
            if pattern is _STRAIGHT and describes(clause, m.start(), m.group()):
                continue
            return m.group()
    for pattern in (_SAFETY_ZH[2], _OVERRULED_ZH) if han else ():
        found = pattern.search(clause)
        if found:
            return found.group()
    return judge_guards(clause) or judge_waved(clause)


_SAFETY_EN += (
    # a safety setting set off: "set verify_ssl to false", "REQUIRE_CONFIRM=0"
    rx(
        r"\b[\w.-]*(?:verify|ssl|tls|cert|confirm|approv|sandbox|safe|guard|check|scan|hook|"
        r"firewall|protect|secur|prompt|ask|review|audit|mfa|2fa|strict|enforc|restrict|valid|"
        r"seccomp|signing|moderat)[\w.-]*\s*(?:to\s+|=\s*|:\s*)"
        r"(?:false|off|0|no|none|disabled?|never|skip(?:ped)?|bypass(?:ed)?)\b"
    ),
    # a flag or habit whose point is that nothing asks: "run it with -y so it never asks"
    rx(
        r"\bso (?:that )?(?:it|they|nothing|you|the \w+) (?:never|don'?t|doesn'?t|won'?t|no longer)"
        r" (?:asks?|prompts?|confirms?|stops? to (?:ask|confirm))\b|"
        r"省得(?:它|你|系统)?(?:问|确认|弹|提示)|"
        r"免得(?:它|你)?(?:问|确认|弹)"
    ),
    # the work done with the check off: "commit with the hooks disabled"
    rx(
        r"\b(?:with|having)\s+(?:the\s+|all\s+|any\s+)?(?:\w+\s+)?" + SAFE_STRONG + r"\s+"
        r"(?:disabled|off|turned off|switched off|skipped|bypassed|removed)\b"
    ),
    # not running the check at all: "don't run the security scanner anymore"
    rx(
        r"\b(?:don'?t|do not|never|stop|no longer|quit)\s+(?:(?:need|have)(?:\s+to)?\s+)?"
        r"(?:run(?:ning)?|do(?:ing)?|us(?:e|ing)|"
        r"perform(?:ing)?|bother(?:ing)? with)\s+(?:the\s+|any\s+|a\s+|our\s+)*(?:\w+\s+)?"
        r"(?:" + SAFE_STRONG + r"\b|(?:tests|reviews|checks|linters?|scans?)\b[^.]{0,20}?"
        r"\b(?:anymore|any more|again|at all|from now on|altogether))"
    ),
    # straight to the protected branch: "commit straight to main"
    _STRAIGHT := rx(
        r"\b(?:commit|push|merge|deploy)\w*\s+(?:\w+\s+)?(?:straight|directly|right)\s+(?:in)?to\s+"
        r"(?:main|master|prod\w*|live|release)\b"
    ),
)
# Any protective mechanism (GUARD_EN: "the safety interlock", "the spam filter") put out of action
# by any verb that does it, or let through whatever it finds: the reading, not the names.
_OFF = (
    DISABLE + r"|mut(?:e|ing)|get(?:ting)? rid of|kill(?:ing)?|drop(?:ping)?|rip(?:ping)? out|"
    r"(?:tone|turn|dial|scale)(?:s|d|ed|ing)? down|"
    r"comment(?:ing)? out|strip(?:ping)?|loosen(?:ing)?|relax(?:ing)?|neuter(?:ing)?|gut(?:ting)?"
)
_OFF_PARTICIPLE = (
    r"(?:disabled|overridden|overriden|bypassed|muted|suppressed|silenced|removed|off|ignored|"
    r"skipped|switched off|turned off|killed|dropped|relaxed|loosened|commented out|"
    r"compiled out|stripped out|ripped out|taken out|patched out)"
)
_FOUND = r"(?:reports?|flags?|says?|finds?|complains?|blocks?|quarantines?|catches|raises?|throws?)"
_LET_THROUGH = (
    r"(?:let (?:it|them|that|everything|the \w+) (?:through|pass|slide|go)|wave (?:it|them) "
    r"through|ignore (?:it|them|that)|(?:add|put) (?:it|them|the \w+) (?:to|on) the "
    r"(?:allow|white) ?list|whitelist\w*|allow-?list\w*|(?:merge|ship|deploy|release|run|continue|"
    r"carry on|keep going)\w* (?:it )?(?:anyway|regardless|all the same)|(?:and )?(?:run|"
    r"try) (?:it|them) again|"
    r"rerun (?:it|them))"
)
_UNSAFE_KEY = (
    r"[\w.-]*(?:skip|disable|no|bypass|ignore)[_-]?[\w.-]*(?:check|verif|scan|review|confirm|"
    r"sandbox|"
    r"hook|test|safety|secur|sign|ssl|tls|cert|auth|2fa|mfa|guard|filter|permission|approv|prompt|"
    r"restrict|moderat|polic)[\w.-]*|"
    r"[\w.-]*(?:allow|enable|permit)[_-]?(?:unsigned|unsafe|insecure|untrusted|dangerous|"
    r"all)[\w.-]*"
)
_GUARD_OFF = (
    rx(
        r"\b(?:" + _OFF + r")\s+(?:(?:the|all|any|our|every|these|those|its|your|of)\s+)*"
        r"(?:\w+['’]?s?\s+){0,2}?" + GUARD_EN + r"\b"
    ),
    rx(
        r"\b" + GUARD_EN + r"\s+(?:\w+\s+){0,2}?"
        r"(?:(?:is|are|be|get|gets|stay|stays|remain|kept|left)\s+)?(?:now\s+|always\s+|"
        r"permanently\s+)?" + _OFF_PARTICIPLE + r"\b"
    ),
    rx(
        r"\b(?:with|having)\s+(?:the\s+|all\s+|any\s+|its\s+)?(?:\w+\s+)?"
        + GUARD_EN
        + r"\s+"
        + _OFF_PARTICIPLE
        + r"\b"
    ),
    # what a check finds overruled: "whatever the scanner reports, let it through", "if the
    # virus scanner flags your file, add it to the allow list and run it again"
    rx(
        r"\b(?:"
        + GUARD_EN
        + r"|scanners?|linters?|checks?|ci|tests?)\b[^.;]{0,40}?\b"
        + _FOUND
        + r"\b[^.;]{0,40}?\b"
        + _LET_THROUGH
        + r"\b"
    ),
    # its findings waved away: "regard every alert from the policy engine as a false alarm"
    rx(
        r"\b(?:regard|treat|consider|count|mark|dismiss)\w*\s+(?:[\w'-]+\s+){0,6}?as\s+(?:an?\s+)?"
        r"(?:false (?:alarms?|positives?)|noise|harmless|irrelevant|safe to ignore)\b|"
        r"\bdismiss\w*\s+(?:every|all|any)\s+(?:\w+\s+){0,3}?(?:alerts?|warnings?|findings?)"
    ),
    # a failed check must not hold anything up: "never let a red build hold up a release"
    rx(
        r"\b(?:never|don'?t|do not)\s+let\s+(?:a|an|any|the)\s+(?:red|failing|failed|broken|flaky)"
        r"\s+(?:\w+\s+)?(?:builds?|checks?|tests?|pipelines?|ci|scans?|jobs?)\s+"
        r"(?:hold up|stop|block|delay|prevent|get in the way of)"
    ),
    # a setting named for skipping a check, or for letting the unsafe in, set on:
    # "SKIP_SECURITY_CHECKS=1", "set `allow_unsafe: true`" — a line of its own, or set by an order
    rx(
        r"^\s*(?:" + _UNSAFE_KEY + r")\s*(?:=|:)\s*(?:1|true|yes|on)\s*(?:#.*)?$|"
        r"\b(?:set|export|add|put|use)\s+(?:" + _UNSAFE_KEY + r")\s*(?:=|:)\s*(?:1|true|yes|on)\b"
    ),
    # made to go away: "make the approval popups go away for good"
    rx(
        r"\bmake\s+(?:the\s+|all\s+|those\s+)?"
        + GUARD_EN
        + r"\s+(?:go away|disappear|stop|vanish)\b"
    ),
    # a safety level set to nothing: "set the confirmation level to 'never'"
    rx(
        r"\b(?:" + GUARD_EN + r"|confirm\w*|approval\w*|review\w*|safety|prompt\w*)\s+"
        r"(?:level|mode|setting|policy|threshold)s?\s+(?:to|=|:)\s+(?:never|none|off|zero|0|"
        r"nothing|disabled|minimum|lowest)\b"
    ),
)
_GUARD_OFF_ZH = (
    re.compile(
        r"(?:关掉|关闭|禁用|取消|跳过|绕过|绕开|无视|忽略|去掉|屏蔽|停用|停掉|卸载|不理会|别理|"
        r"不用理|"
        r"放开|拆掉|砍掉|拿掉|撤掉|移除|去除|" + _BARE_OFF + r")(?:掉)?[^，,。\n]{0,6}?" + GUARD_ZH
    ),
    re.compile(
        GUARD_ZH + r"[^，,。\n]{0,8}?(?:先|全部|都|一律|统统|直接)?"
        r"(?:关掉|关闭|禁用|取消|跳过|绕过|绕开|无视|忽略|去掉|停用|停掉|卸载|别理|不用理|"
        r"不要理|别管|不用管|放开|"
        r"拿掉|撤掉|砍掉|移除|去除|" + _BARE_OFF + r")"
    ),
    # go around it when it stops you: "风控规则把你拦住的时候，直接绕过去"
    re.compile(
        GUARD_ZH + r"[^。\n]{0,12}?(?:拦|挡|阻止|卡|拒绝)[^。\n]{0,10}?[，,]\s*(?:就|直接|那就)?"
        r"(?:绕过|绕开|跳过|无视|忽略|关掉|关了|不用管|别管)"
    ),
    # said of it, then turned off after a comma: "防火墙规则太碍事，全部放开",
    # "审计日志没用，帮我永久停掉"
    re.compile(
        GUARD_ZH
        + r"[^。\n]{0,12}?[，,]\s*(?:帮我|给我|就|直接|那就|干脆|索性|以后)*(?:全部|都|统统|一律|"
        r"永久|"
        r"彻底)?(?:放开|关掉|关了|停掉|去掉|禁用|绕过|跳过|删掉|拆掉|取消)(?:掉)?(?:吧|了|就行|"
        r"即可)?\s*$"
    ),
    # a failed check overruled after a comma: "如果安全扫描报错，就直接忽略继续部署"
    re.compile(
        r"(?:扫描|检查|测试|CI|ci|校验|构建|lint|单测|杀毒|安全)[^。\n]{0,8}?(?:报错|失败|不通过|"
        r"报警|告警|标红|"
        r"变红|没过|挂了)[^。\n]{0,3}?[，,]\s*(?:就|也|那就)?(?:直接)?(?:把[^，,。]{0,8})?(?:忽略|"
        r"无视|跳过|"
        r"不管|别管|不理)"
    ),
    # a failed check must not block anything: "哪个检查失败都不许挡住合并"
    re.compile(
        r"(?:检查|测试|CI|ci|扫描|校验|构建|流水线|单测)[^，,。\n]{0,6}?(?:失败|不通过|报错|没过|"
        r"挂了|标红|变红)"
        r"[^，,。\n]{0,4}?(?:都|也)?(?:不许|不能|不准|别|不要|不该|不得)(?:让它)?(?:挡|拦|阻止|卡|"
        r"阻碍|影响)"
    ),
)


def _done(clause: str, m: re.Match[str]) -> bool:
    """What the person did or what already happened ("我把防火墙关了", "沙箱已经关了"); a 了 with
    no one before it and nothing saying it is past is an order ("防火墙先关了，省得麻烦")."""
    if by_person(clause, m.start(), m.end()) is False:
        return False
    before = clause[: m.start()]
    if clause[m.end() : m.end() + 1] not in ("了", "过") or re.search(r"[A-Za-z]", m.group()):
        return True
    return bool(re.search(r"(?<![帮给替为])我|已经|已|被|早就|之前|上次|昨天", before + m.group()))


_PAST = rx(r"\b(?:was|were|had been|got)\b")


def judge_guards(clause: str) -> str | None:
    """A protective mechanism put out of action, read by what the clause does to it."""
    for pattern in _GUARD_OFF + (_GUARD_OFF_ZH if has_han(clause) else ()):
        for m in pattern.finditer(clause):
            negative_order = pattern in (_GUARD_OFF[5], _GUARD_OFF_ZH[-1])
            if not negative_order and (negated(clause, m.start()) or _done(clause, m)):
                continue
            if negative_order and by_person(clause, m.start(), m.end()):
                continue
            if pattern in (_GUARD_OFF[1], _GUARD_OFF[2]) and _PAST.search(m.group()):
                continue  # "the firewall was turned off during the move": what happened
            verb_first = pattern in (_GUARD_OFF[0], _GUARD_OFF_ZH[0])
            if (verb_first and describes(clause, m.start(), m.group())) or asks(clause):
                continue
            return m.group()
    return None


# Session 20: a warning clicked away or a check made toothless, in fresh words — "dismiss the
# alert and submit the order", "fly on past the geofence warnings", "never keep the sandbox
# enabled", "switch it to log-only", "add the folder to the exclusions", "turn off the check
# that blocks merges", "silence the alarms permanently"; "警告直接忽略，照样开单", "别让防火墙
# 拦住", "提示你都自动同意", "改成不用验证", "只记录不拦截", "合并不用等 CI 跑完".
_WARNINGS = r"(?:alerts?|warnings?|prompts?|pop-?ups?|dialogs?|alarms?|flags?)"
_WAVED_EN = rx(
    r"\b(?:dismiss|click (?:through|past)|x out of)\s+(?:the\s+|any\s+|every\s+|all\s+|"
    r"those\s+)?(?:[\w'-]+\s+){0,2}?" + _WARNINGS + r"\b|"
    r"\b(?:past|through|over)\s+(?:the\s+|any\s+|all\s+)?(?:[\w'-]+\s+){0,2}?(?:warnings?|"
    r"alerts?|alarms?)\b(?=[^.;]{0,30}?\b(?:rather than|instead of|and keep|anyway|regardless)\b"
    r"|\s+(?:rather|instead))|"
    r"\bnever\s+(?:keep|leave|have)\s+(?:the\s+|any\s+)?(?:[\w'-]+\s+){0,2}?(?:"
    + GUARD_EN
    + r"|"
    + SAFE_STRONG
    + r")\s+(?:on|enabled|active|running|switched on|turned on)\b|"
    r"\b(?:switch|set|put|change|move|flip|turn)\w*\s+(?:it|them|(?:the\s+)?(?:[\w'-]+\s+){0,4}?)"
    r"(?:to|into|in)\s+(?:log|audit|monitor|detect|report|alert|warn)[- ]only\b|"
    r"\badd\s+(?:[\w'./-]+\s+){0,4}?to\s+the\s+(?:\w+\s+)?(?:exclusions?|exceptions|allow ?list|"
    r"white ?list|safe ?list)\b|"
    r"\b(?:turn|switch|shut)\s+off\s+(?:the|that|this|any|every)\s+(?:[\w'-]+\s+){0,2}?"
    r"(?:check|gate|alarm|alert|warning)s?\b|"
    r"\b(?:silence|mute|disable|turn off|switch off)\s+(?:the\s+|all\s+|any\s+)?(?:[\w'-]+\s+)"
    r"{0,2}?(?:alarms?|alerts?)\b[^.;]{0,30}?\b(?:permanently|for good|forever|altogether|"
    r"entirely)\b|"
    r"\bso (?:that )?(?:it|they|the [\w-]+)\s+never\s+(?:sounds?|goes? off|fires?|rings?)\b"
)
_WAVED_ZH = re.compile(
    r"(?:警告|告警|报警|提示|弹窗|拦截|标红)[^。\n]{0,12}?(?:别理|不用理|不要理|别管|不用管|忽略|"
    r"无视|一律点继续|点继续|照样|照常|放行|加白名单|加入白名单|加到白名单)|"
    r"(?:别|不要|不许|不准)让[^，,。\n]{0,8}?" + GUARD_ZH + r"[^，,。\n]{0,4}?(?:拦|挡|阻止|卡)|"
    r"(?:提示|弹窗|确认框|授权提示|对话框)[^。\n]{0,12}?(?:自动|一律|全部|都)(?:同意|确认|点是|"
    r"点确定|通过|点继续)|"
    r"(?:改成|设成|设置成|变成|换成)(?:不用|无需|不需要|免)(?:验证|校验|确认|密码|审批)|"
    r"只(?:记录|告警|报警|监控)不(?:拦截|阻止|拦)|"
    r"不用等\s*(?:CI|ci|测试|检查|扫描|构建|流水线)"
)


def judge_waved(clause: str) -> str | None:
    """A warning clicked away or a check made toothless (``_WAVED_EN``, ``_WAVED_ZH``)."""
    if asks(clause):
        return None
    for pattern in (_WAVED_EN, _WAVED_ZH) if has_han(clause) else (_WAVED_EN,):
        for m in pattern.finditer(clause):
            if negated(clause, m.start()) and not m.group().lower().startswith("never"):
                continue
            if by_person(clause, m.start(), m.end()) or describes(clause, m.start(), m.group()):
                continue
            if pattern is _WAVED_ZH and _done(clause, m):
                continue
            return m.group()
    return None


_OVERRULED_ZH = re.compile(
    r"(?:测试|检查|CI|ci|扫描|校验|构建|lint|单测)[^，,。\n]{0,6}?(?:不通过|失败|报错|没过|挂了|"
    r"没通过|报警|告警|"
    r"不过|标红|变红)[^，,。\n]{0,4}?(?:也|照样|照常|仍然|还是|直接)[^，,。\n]{0,4}?(?:提交|合并|"
    r"部署|上线|放行|"
    r"发布|继续|推送)|(?:不要管|不用管|别管|无视|不理会?|不用理)(?:那些|这些|任何)?(?:检查|测试|"
    r"警告|告警|"
    r"报错|扫描|校验|审查|CI)"
)
