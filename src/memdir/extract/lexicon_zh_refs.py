"""The Chinese rules of kind ``reference``: where information lives, a URL, a label and a
link, a place, a tool.

``lexicon_zh.ZH`` gives the order they are tried in (specific → general, the first match
wins; a single rule named here sits between the tuples of other kinds). A family added in
rules-vN carries a ``vN:`` comment. Changing any pattern changes what the extractor does: bump
``rules.RULES_VERSION`` with it.
"""

from __future__ import annotations

import re

from .lexicon_types import URL, Rule
from .lexicon_words import _TOOLS
from .lexicon_zh_words import _ZH_DOCS, _ZH_PLACES

__all__ = ["REFERENCE"]

REFERENCE: tuple[Rule, ...] = (
    Rule("zh.reference.url", "reference", re.compile(r"(?:在|见|看|放在|位于)\s*" + URL)),
    # v7: a label and a link, nothing else — "代码规范：https://…"
    Rule(
        "zh.reference.label-url",
        "reference",
        re.compile(r"^(?!我|你|请|看|见|参考)[^，。,：:]{1,15}?\s*[：:]\s*" + URL + r"\s*$"),
    ),
    Rule(
        "zh.reference.location",
        "reference",
        re.compile(
            r"^(?:我们的|所有的?|项目的)?\S{0,10}?(?:" + _ZH_DOCS + r")\S{0,4}?"
            r"(?:都|统一|一般)?(?:记在|放在|存在|写在|提在|提到|在|挂在|维护在|归档在|"
            # v7: where information is sent — "崩溃日志都上报到 Sentry"
            r"上报到|报到|发到|推到|推送到|打到|同步到|写到|记录在|整理在|汇总在|沉淀在|归档到|"
            r"上传到|(?<=[都一律统])走)\s*"
            # v5: "在内网 wiki 上", "在公司的 Confluence 里"
            r"(?:(?:内网|公司|团队|我们)的?\s*)?"
            r"(?:" + _TOOLS + r"|[^，。,]{0,15}?(?:" + _ZH_PLACES + r")"
            # v3: a named tool we do not list, and where in it: "放在 Apifox 上"
            r"|[A-Za-z][\w.+-]*\s*(?:上|里|中)"
            r"(?!\s*(?:统一|集中|进行)?(?:管理|维护|记录|同步|跟踪|登记|归档|配置))"
            # v8: "客户需求统一走 Productboard": a named tool after 走
            r"|(?<=走)\s*[A-Za-z][\w.+-]*\s*$)"
        ),
    ),
    # v8: a report or a dashboard made in a tool with a Chinese name — "报表是用观远做的",
    # "大屏是在某某上做的": what is made is a view, so the tool is where it lives (a
    # Latin name after 用 is what code is written in: zh.project.built-with)
    Rule(
        "zh.reference.built-in",
        "reference",
        re.compile(
            r"^(?!我|你|他|她|这|那)[^，。,]{0,6}?(?:报表|看板|大屏|表单|仪表盘|问卷|流程)"
            r"(?:都|全部)?(?:是)?(?:用|在)\s*[\u4e00-\u9fff]{2,4}?\s*(?:上|里)?(?:做|建|配)"
        ),
    ),
    # v8: any thing kept in a plain place — "压测数据在共享盘那个表格里", "账号清单放在运维群
    # 里": no docs noun needed when the place is a kind of place; a bug or an error is
    # never a pointer, nor a person ("他在群里")
    Rule(
        "zh.reference.place",
        "reference",
        re.compile(
            r"^(?!我|你|他|她|这|那|大家|有人|bug|Bug|问题|错误|报错|异常|结果|输出|文件)[^，。,我你]{2,10}?"
            r"(?:都|统一|一般|全)?(?:在|放在|存在|记在|写在|存放在|置顶在)\s*[^，。,]{0,10}?"
            r"(?:共享盘|网盘|云盘|群|频道|文件夹|目录|表格|知识库|[Ww]iki)"
            r"(?:的[^，。,]{0,8})?(?:里|上|中)?(?:了)?$"
        ),
    ),
    # v2: information managed somewhere by name — "功能开关统一在 <Name> 里管理"
    Rule(
        "zh.reference.managed",
        "reference",
        re.compile(
            r"^(?!我|你|他|她|这|那)\S{1,12}?(?:都|统一|一般|全部|一律)?(?:在|放在|记在)\s*"
            r"(?:[A-Za-z][A-Za-z0-9.+-]*(?:\s+[A-Za-z][A-Za-z0-9.+-]*)?|" + _TOOLS + r")"
            r"\s*(?:的\S{0,10}?)?"
            r"(?:里|上|中)?\s*(?:统一|集中|进行)?(?:管理|维护|记录|同步|跟踪|登记|归档|配置)"
        ),
    ),
)
