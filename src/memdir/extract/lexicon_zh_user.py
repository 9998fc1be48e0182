"""The Chinese rules of kind ``user``: who the person is, a name, a role, a setup, a trait,
a background, a habit, a state.

``lexicon_zh.ZH`` gives the order they are tried in (specific → general, the first match
wins; a single rule named here sits between the tuples of other kinds). A family added in
rules-vN carries a ``vN:`` comment. Changing any pattern changes what the extractor does: bump
``rules.RULES_VERSION`` with it.
"""

from __future__ import annotations

import re

from .lexicon_types import Rule
from .lexicon_zh_words import _ZH_LIFE_EVENT, _ZH_LIFE_TIME, _ZH_ROLE, _ZH_TRAIT

__all__ = ["HABIT", "STATE", "USER"]

USER: tuple[Rule, ...] = (
    Rule("zh.identity.name", "user", re.compile(r"^我(?:叫|的名字是|名字叫)\s*\S")),
    Rule(
        "zh.identity.role",
        "user",
        re.compile(
            r"^我(?:是|现在是|目前是|在公司是)(?!说|不是|想|在|不|否|要)\S{0,12}?(?:"
            + _ZH_ROLE
            + r")|^我是(?:做|搞|写)\S{1,10}的|"
            # v2: "我主要做前端", "我是搞后端开发的"
            r"^我(?:主要|平时|一般|日常|目前|现在|专门)(?:做|搞|负责|写)\s*(?:前端|后端|全栈|运维|"
            r"测试|移动端|客户端|服务端|数据|算法|安卓|嵌入式|基础设施|基建|infra|iOS|Android|"
            r"DevOps|SRE)"
        ),
    ),
    # v2: the person's setup and time zone — "我用的是 M2 的 Mac", "我的系统是 macOS",
    # "我在东八区"
    Rule(
        "zh.identity.setup",
        "user",
        re.compile(
            r"^我(?:平时|一般|主要|日常|现在|目前)?(?:用的是|在用|使用的是)\s*\S*[A-Za-z0-9]|"
            r"^我(?:平时|一般|主要|日常)?用\s*[A-Za-z][A-Za-z0-9.+ -]*?\s*(?:[，,]|$)|"
            r"^我的(?:时区|电脑|系统|操作系统|编辑器|IDE|机器|笔记本|终端|shell|母语|角色|职位|"
            r"工作时间|常用语言)(?:是|用的是)\s*\S|"
            r"^我(?:在|是|住在|人在|位于)\s*(?:(?:东|西)[一二三四五六七八九十]+区|UTC\s*[+-]?\s*\d*|"
            r"GMT\s*[+-]?\s*\d*|\S{1,6}时区)|"
            # v7: "我在成都，跟北京一个时区" — a place, then its time zone
            r"^我(?!们)(?:在|人在|住在)[\u4e00-\u9fff]{2,4}[，,][^。]{0,8}时区|"
            # v7: the person's own tool changed — "我最近换成 Fish shell 了"
            r"^我(?!们)(?:最近|已经|前段时间|去年)?(?:换成|改用|切到|换到|转到)了?\s*[A-Za-z]"
        ),
    ),
    Rule(
        "zh.identity.work",
        "user",
        re.compile(
            r"^我(?:在|目前在|现在在)\S{1,12}?(?:工作|上班|组|团队|部门|公司|实习|负责)|"
            r"^我负责\S{2,}|^我(?:刚开始|刚|正在|在)学\s*\S|^我(?:对|不太?熟悉|很熟悉)\S*"
            r"(?:不熟|熟悉|是新手|是小白)|"
            # v10: the person's part in a later clause — "我们组一共三个人，我负责后端和运维"
            # (v11: after up to three clauses — "我们是一家奶茶连锁，四十多家门店，我负责…")
            r"^(?![^，,]*(?:这|那))(?:[^，。,]{2,16}[，,]\s*){1,3}我(?:主要|一个人)?负责[^，。,]{2,}"
        ),
    ),
    # v7: who the person is, beyond a role — a trait in any clause, a dated life plan
    # ("我六月结婚", "每周五下午我要送孩子去游泳"), what they did before ("我原来是学物理的",
    # "我去年才开始写代码"), a family ("家里两个娃")
    Rule("zh.identity.trait", "user", re.compile(_ZH_TRAIT)),
    Rule(
        "zh.identity.plans",
        "user",
        re.compile(
            r"^(?=[^。]*(?:" + _ZH_LIFE_TIME + r"))[^，。,我]{0,8}?我(?!们)[^，。,]{0,12}?"
            r"(?:" + _ZH_LIFE_EVENT + r")"
        ),
    ),
    Rule(
        "zh.identity.background",
        "user",
        re.compile(
            # v10: how the person came to the work — "我是自学转行的", "我是半路出家"
            r"^我(?!们)(?:是|算是|属于)?(?:自学|半路出家|转行|科班|野路子)|"
            r"^我(?!们)(?:以前|之前|原来|原先|曾经|本科|大学|研究生|硕士|博士|去年|前年)"
            r"[^，。,]{0,4}?(?:是|做|干|当|学|读|开始|才开始)(?:了|过)?[^，。,]{0,8}?(?:"
            + _ZH_ROLE
            + r"|[一二三四五六七八九十两几\d]+年|的|代码|编程)"
        ),
    ),
    Rule(
        "zh.identity.family",
        "user",
        # v9: "我家是双胞胎", "我家是二胎"
        re.compile(
            r"^(?:家里|我家)(?:刚)?(?:是|有|添了)?[^，。,]{0,6}?(?:娃|孩子|宝宝|小孩|老人|双胞胎|"
            r"二胎|三胎|龙凤胎)|"
            # v10: a pet, named or kept — "我家猫叫团子", "家里养了两只狗" (never an event: "…了")
            r"^(?:家里|我家)(?![^，。,]*了[，,。]?$)(?:养了|有|的)?[^，。,]{0,4}?(?:猫|狗|猫咪|狗狗|宠物)"
            r"(?:叫|是|[^，。,]{0,3}(?:只|条))"
        ),
    ),
)

HABIT = Rule(
    "zh.habit.always",
    "user",
    re.compile(
        r"^我(?:比较|更|还是|很)?(?:一般|平时|通常|总是|从来|从不|一直|习惯|基本上?|向来|只)"
        r"(?!问|想要)\S"
    ),
)

# v5: a state of the person with no name in it — "我住在苏州", "我人在成都", "我不吃辣",
# "我周末基本不看消息", "我带数据平台组" — never an event just told ("…了")
STATE = Rule(
    "zh.identity.state",
    "user",
    re.compile(
        r"^我(?!们)(?![^，。,]*了[，,。]?$)(?![^，。,]*(?:吧|啊|呢|再|一下|待会|等下))(?:人在|住在|老家在?|家在|现在在|目前在|"
        r"在[^，。,]{1,6}(?:工作|上班|办公|远程)|是[^，。,]{1,4}人(?=[，,。]|$)|"
        r"(?:现在|目前)?主要(?:写|用|做)|平时|周末|每天|"
        r"不吃|不喝|不能吃|[^，。,]{0,6}过敏|有点?[^，。,]{0,3}(?:色弱|色盲|近视|远视|听力)|"
        r"带[^，。,]{1,10}(?:组|团队)|的\s*(?:电脑|mac|Mac|笔记本|机器|显示器)\s*是)"
    ),
)
