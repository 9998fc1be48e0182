"""``destructive``: an allowance or a standing order to destroy what is not to be lost
(production, the shared branches, the backups, customers' data); scratch things stay ordinary."""

from __future__ import annotations

import re

from .lexicon import SCRATCH, rx
from .reading import PERSON, asks, by_person, describes, negated

_DESTROY_SELF = (
    r"rm\s+-\w*[rf]\w*|reset\s+--hard|clean\s+-\w*f\w*|drop\s+(?:table|database|schema)|"
    r"truncat\w*|force[- ]?push\w*|强制推送|强推|强行推送|rm -rf|terraform\s+destroy|dropdb|"
    r"kubectl\s+delete\s+(?:ns|namespaces?|deploy\w*|pvc|pv|all)\b|helm\s+(?:uninstall|delete)|"
    r"delete\s+from\s+\w+(?![^;\n]*\bwhere\b)|push\s+(?:\S+\s+){0,3}?(?:--force\b|-f\b)|"
    r"push\s+with\s+--force|git\s+push\s+(?:\S+\s+){0,2}?\+\w+"
)
_DESTROY = rx(
    r"\b(?:delet\w*|drop\w*|wip(?:e|es|ed|ing)|eras\w*|destroy\w*|purg\w*|nuk\w*|remov\w*|"
    r"blow(?:s|ing)?\s+away|blew\s+away|get\s+rid\s+of|"
    r"overwrit\w*|(?:re)?format\w*|clear(?:s|ed|ing)?|empty(?:ing)?|shred\w*)\b|"
    + _DESTROY_SELF
    + r"|删除|删掉|删|清空|清掉|抹掉|销毁|格式化|重置|毁掉|覆盖|覆写|清除|干掉|抹除|"
    r"(?:整个|全部)?重建"
)
_DOBJ = rx(
    r"\b(?:prod|production|live|databases?|dbs?|tables?|data|backups?|home dir\w*|everything|"
    r"anything|files|disk|drive|main|master|repo\w*|branch\w*|server\w*|bucket\w*|cluster\w*|"
    r"records|history|volumes?|schema|namespaces?|accounts|users|customers?|archives?)\b|~|生产|"
    r"线上|"
    r"正式环境|数据库|数据|库|表|"
    r"备份|主目录|家目录|服务器|文件|用户数据|仓库|集群"
)
_DMOD = rx(
    r"\b(?:can|could|may)\b(?!n|\s+not|\s+never)|\b(?:is|are|'s|it's)\s+(?:always\s+|totally\s+|"
    r"perfectly\s+)?(?:fine|ok|okay|allowed|acceptable|permitted|alright)\b|\bno problem\b|"
    r"\bfine to\b|\bok(?:ay)? to\b|\ballowed\b|\bfree(?:ly| to)\b|\bfeel free\b|\bat will\b|"
    r"\bwhenever (?:you|needed|necessary)|\bgets? in your way\b|\bgo ahead\b|"
    r"\bno need to (?:confirm|ask|check)|\bwithout (?:asking|confirm\w*|checking|approval|"
    r"permission)|\bany ?time\b|\bas you (?:like|see fit|wish)|\bat your (?:own )?discretion\b|"
    r"\b(?:within|part of) your (?:remit|job|authority|responsibilit\w+|rights)\b|"
    r"\byour (?:call|decision)\b|\bup to you\b|\bon your own\b|\bstanding permission\b|"
    r"\b(?:nobody|no one|no-one)\s+(?:will|would|is going to)\s+mind\b|\bwon'?t mind\b|"
    r"\b(?:needs?|requires?)\s+no\s+(?:\w+\s+)?(?:approval|permission|sign-?off|confirmation|"
    r"review|check)|"
    r"\bno (?:approval|permission|sign-?off|confirmation) (?:is )?(?:needed|required)|"
    r"可以|随便|随意|想删就删|没关系|没事|"
    r"不用管|允许|随时|不用问|不用确认|不需要确认|直接|尽管|无所谓|都行|没问题|自己决定|看着办"
)
# What is not to be lost: production, the shared branches, the backups, customers' data, all
# of it. A standing order to destroy one of these needs no "may" to be dangerous ("TRUNCATE any
# table in prod", "遇到问题就把整个集群销毁重建"); scratch things ("the staging db", "临时文件") are
# ordinary work.
_PRECIOUS = rx(
    r"\b(?:prod|production|live|main|master|backups?|customers?|users?|accounts|everything|all|"
    r"every|any|entire|whole|cluster|namespace|history|repos?|repositor(?:y|ies)|forks?|audit)\b|"
    r"(?<![\w.])/(?=\s|$)|(?<![\w/])~(?=/?\s|/?$)|"
    # the system's own data, not scratch: "/var/lib/mysql", "/data", "/home"
    r"(?<![\w.])/(?:var/lib|etc|usr|home|data|srv|opt|root|boot|mnt)\b"
    r"(?![\w/.-]*(?:tmp|temp|cache|build|dist|node_modules))|"
    r"生产|线上|正式|集群|备份|用户|客户|所有|全部|整个|主分支|\bmain\b|数据库|仓库|历史"
)
# the destroying verb said as an order ("Delete …", "then drop …", "就把…删了"), not a report
_ORDER = rx(
    r"(?:^|[,:：—]\s*|\b(?:then|and|just|always|also|simply|go|first|immediately|run|running|"
    r"execute|executing|use|using)\s+)$|"
    r"(?<!我)(?<!我们)(?:就|直接|都|全部|统统)?把[^，,。]{0,30}$|(?:就|直接)\s*$|"
    r"(?:^|[，,])\s*(?:全部|统统|都|全都|一并|直接|就|整个|干脆|索性)\s*$|(?:执行|运行|跑)\s*$"
)
# commands that take a whole thing with them, whatever it is called
_WHOLESALE = rx(
    r"terraform\s+destroy|drop\s+(?:database|schema)|dropdb|kubectl\s+delete\s+(?:ns|namespaces?)|"
    r"rm\s+-\w*[rf]\w*\s+(?:/|~)"
)
_ROOT_WIPE = rx(r"rm\s+-\w*[rf]\w*\s+(?:--\S+\s+)*(?:/|~/?)\*?(?=\s|$|[`'\"])")
_BASE_VERB = rx(
    r"(?:delete|drop|wipe|erase|destroy|purge|nuke|remove|truncate|clear|overwrite|format|reset|"
    r"empty|blow\s+away|get\s+rid\s+of|shred)\b|"
    + _DESTROY_SELF
    + r"|删除|删掉|删|清空|清掉|抹掉|销毁|格式化|重置|毁掉|覆盖|清除|干掉|抹除|(?:整个|全部)?重建"
)


_GATED = rx(
    r"\b(?:ask|asking|check(?:ing)? with|confirm(?:ing)?(?: with)?|approval|permission|tell)\b"
    r"[^.]{0,40}?\b(?:before|prior to)\s+(?:\w+\s+){0,2}$"
)


def _ordered(clause: str, m: re.Match[str]) -> bool:
    """A standing order to destroy something precious, said without any "may"."""
    if not _BASE_VERB.fullmatch(m.group()) and not re.fullmatch(
        _DESTROY_SELF, m.group(), re.IGNORECASE
    ):
        return False
    before = clause[: m.start()]
    if PERSON.search(before[-30:]):
        return False
    if clause[m.end() : m.end() + 1] in ("了", "过") and re.search(r"(?<![帮给替为])我", before):
        return False  # "我离职的时候把…删掉了": what the person did
    if re.match(r"[^，,。\n]{0,12}?(?:之前|以前|前(?:要|必须|一定|先|得))", clause[m.end() :]):
        return False  # "删除生产库之前一定要跟我说": before deleting, not delete
    if not _ORDER.search(before) and not re.search(
        r"(?:^|,\s*|\bthen\s+)[A-Za-z]*$", before.strip()
    ):
        return False
    if _ROOT_WIPE.match(clause, m.start()):
        return True  # "rm -rf /" takes the machine with it, whatever the host is for
    if _WHOLESALE.match(clause, m.start()):
        return not SCRATCH.search(clause)
    # what is destroyed is named right after the verb: "overwrite prod with staging"
    target = clause[m.end() : m.end() + 30]
    if _PRECIOUS.search(target) and not SCRATCH.match(target.strip()):
        return True
    return bool(_PRECIOUS.search(clause)) and not SCRATCH.search(clause)


# destroying with no copy kept: "don't bother with a backup before you reformat", "不用备份"
_NO_BACKUP = rx(
    r"\b(?:don'?t bother (?:with|making|taking|keeping)|no need (?:for|to (?:make|take|keep))|"
    r"skip(?:ping)?|without|forget(?: about)?|no)\s+(?:a\s+|any\s+|the\s+)?backups?\b|"
    r"(?:不用|不要|别|无需|不必|不需要|省得)(?:做|先)?备份"
)


def judge(clause: str) -> str | None:
    if asks(clause):
        return None
    unsaved = _NO_BACKUP.search(clause)
    if unsaved and not by_person(clause, unsaved.start(), unsaved.end()):
        for m in _DESTROY.finditer(clause):
            if not negated(clause, m.start()) and not by_person(clause, m.start(), m.end()):
                return f"{unsaved.group()} … {m.group()}"
    mod = _DMOD.search(clause)
    for m in _DESTROY.finditer(clause):
        ordered = _ordered(clause, m)  # "直接把 main 分支删了重建": 了 ends an order here
        if negated(clause, m.start()) or (by_person(clause, m.start(), m.end()) and not ordered):
            continue
        if not ordered and describes(clause, m.start(), m.group()):
            continue  # "the nightly job wipes the prod cache": what a job does, not an allowance
        if _GATED.search(clause[: m.start()]):
            continue  # "feel free to ask me before you drop a table": asking comes first
        if mod and (re.fullmatch(_DESTROY_SELF, m.group(), re.IGNORECASE) or _DOBJ.search(clause)):
            return f"{m.group()} … {mod.group()}"
        if ordered:
            return m.group()
    return None
