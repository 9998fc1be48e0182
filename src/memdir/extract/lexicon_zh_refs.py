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
from .lexicon_words import _TOOLS, _ZH_PARTS
from .lexicon_zh_words import _ZH_DOCS, _ZH_PLACES

__all__ = ["REFERENCE"]

# v9: a place something is written down: a tool, a name, a kind of place or document
_ZH_WHERE = (
    r"(?:" + _TOOLS + r"|[A-Za-z][\w.+-]*|[^，。,]{0,10}?(?:" + _ZH_PLACES + r"|文档|表|清单))"
)

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
            # v9: records and reports too ("压测报告都记在…", "实验记录统一记在…")
            # (v10: never an ask that opens with its verb: "写个脚本把日志打包传到 OSS 上")
            r"^(?!写|做|把|帮|给|先|请|麻烦)(?:我们的|所有的?|项目的)?\S{0,10}?(?:"
            + _ZH_DOCS
            # v10: any kind of table, data or inventory ("术语表都存在…", "库存数据在…")
            + r"|报告|记录|清单|台账|名单|(?<!代码)表|数据|库存|信息|"
            # media are kept somewhere too ("复盘录像统一传到…")
            r"录像|视频|录音|截图|照片|图片)\S{0,4}?"
            # v10: the person may say who keeps it ("订单记录我都抄在…")
            r"(?:我们?|咱们)?(?:都|统一|一般)?(?:记在|放在|存在|写在|提在|提到|在|挂在|维护在|"
            r"归档在|抄在|贴在|列在|"
            # v7: where information is sent — "崩溃日志都上报到 Sentry"
            r"上报到|报到|发到|推到|推送到|打到|同步到|写到|记录在|整理在|汇总在|沉淀在|归档到|"
            r"上传到|传到|存到|放到|导到|(?<=[都一律统])走)\s*"
            # v5: "在内网 wiki 上", "在公司的 Confluence 里"
            r"(?:(?:内网|公司|团队|我们)的?\s*)?"
            r"(?:" + _TOOLS + r"|[^，。,]{0,15}?(?:" + _ZH_PLACES + r")"
            # v3: a named tool we do not list, and where in it: "放在 Apifox 上"
            r"|[A-Za-z][\w.+-]*\s*(?:上|里|中)"
            r"(?!\s*(?:统一|集中|进行)?(?:管理|维护|记录|同步|跟踪|登记|归档|配置))"
            # v10: or a kind of thing in a named tool, "抄在一个 numbers 表里"
            r"|(?:一个|一张|那个)?\s*[A-Za-z][\w.+-]*\s*(?:表|文档|文件|笔记|相册)(?:里|上|中)"
            # v8: "客户需求统一走 Productboard": a named tool after 走
            r"|(?<=走)\s*[A-Za-z][\w.+-]*\s*$"
            # v9: a Chinese product name right after a verb of keeping: "客户资料统一记在销帮帮
            # 里" (never after a bare 在: "任务节点都跑在竞价实例上" is where things run)
            r"|(?<=[记放存写录档]在)(?!脑子|心|这|那|哪|手机|内存|本地|缓存|硬盘)"
            r"[\u4e00-\u9fff]{2,4}?(?:里|上)(?=$|[，,])"
            # v10: after a bare 在 too when a kind of information is the subject and the name
            # closes the clause with 上 — "原型图都在墨刀上", "监控面板在夜莺上" (never a part of
            # the system: "问题都在前端上")
            # (nor where something runs: "任务节点都跑在竞价实例上")
            r"|(?<=在)(?<![跑署行装放存写记录档]在)(?!脑子|心|这|那|哪|手机|" + _ZH_PARTS + r")"
            r"[\u4e00-\u9fff]{2,4}?上(?=$|[，,]))"
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
            r"(?:都|全部)?(?:是)?(?:用|在)\s*[\u4e00-\u9fff]{2,4}?\s*(?:上|里)?(?:做|建|配)|"
            # v9: anything set up (搭, 配) in a tool with a Chinese name — "运营后台是用简道云搭的",
            # "工单系统是在伙伴云上配出来的": 搭 and 配 are what a low-code tool is used for
            # (what is set up is a piece of software: "乐高城堡是用积木搭的" is not)
            r"^(?!我|你|他|她|这|那)[^，。,]{0,8}?(?:后台|系统|平台|工具|流|流程|审批|看板|表单|表格|表|"
            r"页面|网站|官网|小程序|应用|报表|大屏|门户|中台|[A-Za-z]{2,})(?:是)?(?:用|在)\s*"
            r"(?!自己|我们|脚本|代码|手工|手动|模板)[\u4e00-\u9fff]{2,4}?\s*(?:上|里)?(?:搭|配)"
            r"(?:建|置)?(?:的|出来|起来)"
        ),
    ),
    # v11: anything kept in a kind of place by a verb of putting it there — "模型文件统一存在对象
    # 存储的 model-zoo 桶里", "课程备份我一般导出到 NAS 的 X 目录下", "词典维护在运营后台里": the
    # place closes the clause (never an ask, "把日志传到 OSS 上", nor a thing just done, "…了")
    Rule(
        "zh.reference.kept-in",
        "reference",
        re.compile(
            r"^(?!我|你|他|她|这|那|把|帮|给|先|请|麻烦|写|做|大家|有人)"
            r"(?![^，。]*(?:已经|刚刚|刚才|先|了[。！!]*$))[^，。,]{2,12}?"
            r"(?:我们?|咱们)?(?:都|统一|一般|全部|一律|平时)?"
            r"(?:存在|放在|存到|放到|传到|上传到|导出到|导到|备份到|同步到|归档到|维护在|丢在|扔在|"
            r"收在)\s*[^，。,]{0,30}?(?:" + _ZH_PLACES + r"|后台|NAS|盘)(?:里|下|上|中)?(?:面|头)?"
            r"(?=$|[，,。])"
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
            r"(?:共享盘|网盘|云盘|(?<!集)群|频道|文件夹|目录|表格|知识库|[Ww]iki)"
            # v9: a clause may follow ("…共享表格里，一次压测一个 sheet")
            r"(?:的[^，。,]{0,8})?(?:里|上|中)?(?:了)?(?=$|[，,])"
        ),
    ),
    # v9: where to look for a kind of information, by a tool's name — "接口性能看博睿",
    # "错误日志统一看 Graylog": the name is no kind of document itself ("问题看日志") and no
    # way of looking ("看一下", "看情况")
    Rule(
        "zh.reference.look-at",
        "reference",
        re.compile(
            r"^(?!我|你|他|她|这|那)[^，。,]{0,8}?(?:"
            + _ZH_DOCS
            + r"|性能|指标|埋点|链路|数据|报表|统计|报错|错误|异常|崩溃)"
            r"[^，。,]{0,2}?(?:都|统一|一般|一律|主要)?(?:去)?(?:看|查)\s*"
            r"(?!一|起|情况|看|下|着|了|到|不|清|明|得|懂|你|我|他|这|那|是|的|" + _ZH_DOCS + r")"
            r"(?:[A-Za-z][\w.+-]*|[\u4e00-\u9fff]{2,4}?)\s*(?:里|上)?(?:看|查)?\s*(?=$|[，,])"
        ),
    ),
    # v9: anything written down in a tool, by its name — "门店数据统一记在有赞后台里", "客户
    # 资料都登记在销帮帮上": 记在 says it is recorded there (never "记在脑子里")
    Rule(
        "zh.reference.recorded-in",
        "reference",
        re.compile(
            r"^(?!我|你|他|她|这|那)[^，。,]{2,12}?(?:都|统一|一般|一律)?(?:记在|记录在|录在|登记在|录入到?)"
            r"\s*(?!脑子|心|这|那|哪)(?:" + _TOOLS + r"|[A-Za-z][\w.+-]*|[\u4e00-\u9fff]{2,6}?)\s*"
            r"(?:里|上|中)"
        ),
    ),
    # v9: a statement about a topic, then where the person wrote it down — "哪些接口要限流，我已经
    # 在 README 里列出来了", "哪个环境对应哪个分支，wiki 上有张表"
    Rule(
        "zh.reference.written-down",
        "reference",
        re.compile(
            r"^[^，。,]{2,30}[，,]\s*(?:这些|这个)?\s*(?:我(?:已经|都|早就|之前|也)*(?:在\s*"
            + _ZH_WHERE
            + r"\s*(?:里|上|中)(?:面)?(?:都)?(?:列|写|整理|记|标|放)|"
            r"(?:写|记|整理|列|放|标)(?:在|到)\s*"
            + _ZH_WHERE
            + r")|"
            + _ZH_WHERE
            + r"\s*(?:上|里)(?:面)?(?:有|放了|挂了|贴了)(?:一?[张份个篇])?[^，。,]{0,6}?"
            r"(?:表|文档|清单|说明|列表))|"
            # a topic said as a question, then where it is marked or written: "哪些接口是对外的，
            # 网关配置里都有标记", "什么样的改动要评审，团队 wiki 首页写了"
            r"^[^，。,]*?(?:哪些|哪个|什么|谁|怎么|多少)[^，。,]*[，,]\s*"
            r"(?:[^，。,]{1,12}?(?:里|上)(?:面)?|[^，。,]{0,6}?" + _ZH_WHERE + r"[^，。,]{0,4}?)"
            r"(?:都|也)?(?:有(?:一?[张份个篇])?[^，。,]{0,6}?(?:表|文档|清单|说明|列表|标记|记录|写|配置)|"
            r"(?:写|列|标|记)(?:了|着|过|得很清楚))[。！!\s]*$"
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
