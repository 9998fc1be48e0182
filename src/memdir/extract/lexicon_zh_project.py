"""The Chinese rules of kind ``project``: facts about the team's work, conventions, what is
used, moved, counted, dated.

``lexicon_zh.ZH`` gives the order they are tried in (specific → general, the first match
wins; a single rule named here sits between the tuples of other kinds). A family added in
rules-vN carries a ``vN:`` comment. Changing any pattern changes what the extractor does: bump
``rules.RULES_VERSION`` with it.
"""

from __future__ import annotations

import re

from .lexicon_types import Rule
from .lexicon_words import _ZH_PARTS
from .lexicon_zh_words import _ZH_COMPLAINT, _ZH_EVERY, _ZH_WHEN

__all__ = ["CONVENTION", "PROJECT"]


# v7: how data is represented across the project, said as a fact — "数据库里的时间一律存
# UTC", "整个代码库里金额都用整数分存", "用户 ID 全部是雪花算法生成的": a convention of
# the code (project), not an instruction to the agent (feedback)
CONVENTION = Rule(
    "zh.project.convention",
    "project",
    re.compile(
        r"^(?!我(?!们)|你|请|先|别|不要|千万|以后|每次)(?:[^，。,]{0,14}?(?:一律|统一|全部|全都)|"
        # a bare 都 only after a scope: "整个代码库里金额都用…", never "数据都是假的"
        r"(?=[^，。,]*(?:里|中|所有|整个))[^，。,]{0,14}?都)"
        # v8: how it travels too — "接口里的金额统一用字符串传"
        r"\s*(?:是|存|存成|存为|按[^，。,]{1,8}?存|用[^，。,]{1,8}?(?:存|表示|保存|记录|生成|传|"
        r"传输|返回|下发)|"
        r"[^，。,]{0,8}?生成)"
    ),
)

PROJECT: tuple[Rule, ...] = (
    Rule(
        "zh.project.we-use",
        "project",
        re.compile(
            r"^(?:我们|咱们|我们团队|我们组|团队|项目|这个项目|本项目|我们项目|公司|我们公司|"
            r"这个仓库|仓库)(?:的\s*\S{1,12}?)?\s*(?:现在|目前|一直|主要|都|全部|统一|已经|正在|"
            r"还是|打算|准备|计划|可能|会|要|基本上?|大多|大部分|早就|早已|一般|通常|也|还|全)*\s*"
            # v2: a place or route before the verb: "我们从 main 分支部署到 …"
            r"(?:(?:从|在|通过|经由)[^，。,；;]{1,20}?)?"
            r"(?:用|使用|采用|基于|跑在|部署在|部署到|放在|托管在|"
            # v3: where things are collected: "咱们的日志统一收到 ELK 里"
            r"收到|收集到|存到|存在|汇总到|推到|同步到|"
            r"是用|迁到|迁移到|换成|改用|切到|上了|依赖|只支持|支持|写的|"
            # v2: what is no longer used, with a name after it
            r"(?:不再用|不再使用|不用|弃用了|停用了|淘汰了)(?=\s*[A-Za-z0-9])|"
            # Bare "是"/"在" only with a name in the clause: "我们的主库是 MySQL 8" is a
            # fact, "我们是朋友" and "我们在开会" are not.
            r"(?:是|在)(?=[^，。,；;]*?[A-Za-z0-9]))"
        ),
    ),
    # v3: a move from one thing to another — "前端已经从 Webpack 迁到 Vite 了"
    Rule(
        "zh.project.moved",
        "project",
        re.compile(
            r"^(?!我(?!们)|你|他|她|这|那)\S{0,12}?(?:已经|都|全部|正在|去年|上个月)?从\s*[^，。,\s]+?\s*"
            r"(?:迁到|迁移到|换成|换到|切到|改成|转到|升级到|迁到了|换成了)\s*[^，。,\s]"
        ),
    ),
    # v7: a cadence of the team's work — "我们隔周三发版", "对账任务每小时整点跑一次",
    # "我们两周一个迭代"; never the person's own ("我每周五下午…" is about them)
    Rule(
        "zh.project.cadence",
        "project",
        re.compile(
            # v9: never a complaint ("每两天就要加一次班，烦死了"); more kinds of work, and
            # with a subject named first any verb of doing ("技术分享隔周周四下午搞一次")
            r"^(?![^。]*(?:" + _ZH_COMPLAINT + r"))(?:"
            r"(?!我(?!们)|你|他|她)[^，。,]{0,12}?"
            + _ZH_EVERY
            + r"[^，。,]{0,10}?(?:发(?:一次)?版|"
            r"发布|上线|部署|跑|迭代|备份|同步|执行|更新|复盘|值班|对账|结算|"
            r"轮换|轮值|提测|评审|巡检|扫描|例会|汇报|清理|归档|发(?:一个|个|一次|一版|一份)|"
            # v10: what a device or a job reports or collects on a schedule
            r"上报|采集|推送|拉取|刷新|导出|导入|生成)|"
            r"(?!我(?!们)|你|他|她|每|隔)[^，。,]{2,12}?" + _ZH_EVERY + r"[^，。,]{0,10}?"
            r"(?:开|搞|做|发|出|交|检查|盘点|过一遍|一次|一回|重置|清空)|"
            # a meeting the team has — "我们每周一早上有个站会", "每周三下午我们组有个读书会"
            r"(?:(?:我们|咱们|团队|[^，。,]{0,6}组)"
            + _ZH_EVERY
            + r"|"
            + _ZH_EVERY
            + r"[^，。,]{0,4}?(?:我们|咱们|团队)?[^，。,]{0,2}?组?)"
            + r"[^，。,]{0,6}?有(?:一)?个?[^，。,]{0,4}?"
            r"(?:会|分享|评审|复盘))|"
            r"^(?:我们|咱们|团队)?[一二两三四五六七八九十\d]+(?:周|个月|天)一(?:个|次)?"
            r"(?:迭代|版|sprint|冲刺)"
        ),
    ),
    # v8: an event of the team on a date — "公测 8 月 1 号开放", "渗透测试排在 11 月第二周",
    # "年会定在 1 月 18 号"; never the person's own day ("我 3 月 5 号请假" is them) nor a
    # moment without a month ("周五开会")
    Rule(
        "zh.project.event-date",
        "project",
        re.compile(
            r"^(?!我(?!们)|你|他|她|这|那)[^，。,]{2,12}?\s*(?:(?:定在|排在|安排在|放在|改到|推迟到|"
            r"提前到|是|在|于|从)\s*)?(?:\d{1,2}|[一二三四五六七八九十]{1,3})\s*月\s*(?:份)?\s*"
            r"(?:\d{1,2}\s*[号日]|[一二三四五六七八九十\d]{1,3}\s*[号日]|第?[一二三四五]\s*周|"
            r"[上中下]旬|初|底|中|最后一(?:周|天))"
        ),
    ),
    # v9: who decides or owns a kind of work — "什么时候发版由测试那边说了算", "线上变更归 SRE 审批"
    Rule(
        "zh.project.owned-by",
        "project",
        re.compile(
            r"^(?!我(?!们)|你|他|她|这|那)[^，。,]{2,14}?(?:由|归)[^，。,]{1,8}?(?:说了算|决定|负责|"
            r"拍板|审批|来定)"
        ),
    ),
    # v2: what kind of team or codebase this is — "我们是单仓库", "我们是 Python 技术栈"
    Rule(
        "zh.project.we-are-a",
        "project",
        re.compile(
            r"^我们(?:基本上?|算是|就是|都是)?是(?:一个|个)?\S{0,8}?(?:单仓库|单体仓库|多仓库|"
            r"monorepo|技术栈|shop|"
            # v7: "我们是个三个人的创业公司"
            r"公司|创业公司|团队|小组|工作室)"
        ),
    ),
    Rule(
        "zh.project.part-is",
        "project",
        re.compile(
            r"^(?:" + _ZH_PARTS + r")\S{0,6}?"
            r"(?:用的是|用|是|跑在|部署在|放在|基于|在(?=\s*[A-Za-z0-9]))\s*\S"
        ),
    ),
    # v2: a part and what it is built with — "支付服务是用 Kotlin 写的", "全部用 Bazel 构建"
    # v6: a fact built on a number — "接口高峰期大概每秒两千个请求", "App 大概有二十万安装"
    Rule(
        "zh.project.amount",
        "project",
        re.compile(
            # v9: a rate said plainly — "官网一天也就两千来个访问"
            # v9: the subject may hold a space ("app 一天大概二十万次启动")
            r"^(?!我(?!们)|你|他|她)[^，。,]{1,12}?(?:大概|大约|差不多|将近|接近|一共|总共|峰值|"
            r"(?<=[天周月年])(?:也就|才|只有|能有))(?:有|是)?"
            r"\s*(?:每(?:秒|天|月|周))?\s*(?:[0-9][0-9.,]*|[几一二三四五六七八九十两百千万亿]{2,}|"
            r"[一二三四五六七八九十两](?=[个台人条张次]))\s*"
            # v7: any noun after the number, or none ("峰值大概两万"); never a time of day
            r"(?:[A-Za-z%]+|[个万千亿条次台人行]|(?![点号分秒])[\u4e00-\u9fff]|$)"
        ),
    ),
    Rule(
        "zh.project.built-with",
        "project",
        re.compile(
            # v11: never how the agent's examples are written ("代码例子用 python 写就行，别给我
            # java 的"): that is a preference (feedback)
            r"^(?!我|你|他|她|这|那)(?![^。]*(?:就行|就好|就可以|别给我|给我))"
            r"\S{1,15}?(?:是|都是|全是|全部|都|统一)?(?:用|基于|拿)\s*"
            r"[A-Za-z][A-Za-z0-9.+#-]*(?:\s+[A-Za-z][A-Za-z0-9.+#-]*)?\s*(?:写|开发|实现|构建|"
            r"搭建|编写|"
            r"打包|部署|编译)"
        ),
    ),
    # v2: something going away or arriving — "v1 接口三月份下线"
    Rule(
        "zh.project.lifecycle",
        "project",
        re.compile(
            r"^(?!我|你|他|她|这|那)(?!.*(?:" + _ZH_WHEN + r"))[^，。,]{0,20}?[A-Za-z0-9]"
            r"[^，。,]{0,20}?(?:下线|上线|废弃|弃用|停用|停止维护|不再维护|退役|关停|停服)"
        ),
    ),
    Rule(
        "zh.project.hedged-change",
        "project",
        re.compile(
            r"^(?!我(?!们)|你|他|她)[^，。,]{0,12}?(?:可能|也许|或许|大概率?|打算|考虑|计划|准备|"
            # v8: 迟早/早晚/应该会 — "仓库迟早要改名"
            r"倾向于?|说不定|多半|迟早|早晚|应该会)[^，。,]{0,10}?(?:用|换成|换到|迁到|迁移到|"
            r"改用|切到|上|引入|接入|支持|不再支持|升级到|试试|拆成|拆分成?|改名|重写|重构|"
            r"下线|合并)\s*\S?"
        ),
    ),
)
