"""The Chinese rules of kind ``feedback``: how the person wants the work done, preferences
and standing rules.

``lexicon_zh.ZH`` gives the order they are tried in (specific → general, the first match
wins; a single rule named here sits between the tuples of other kinds). A family added in
rules-vN carries a ``vN:`` comment. Changing any pattern changes what the extractor does: bump
``rules.RULES_VERSION`` with it.
"""

from __future__ import annotations

import re

from .lexicon_types import Rule
from .lexicon_zh_words import _ZH_COMPLAINT, _ZH_EVERY, _ZH_IF_RULE, _ZH_WHEN, _ZH_WISH

__all__ = ["DONT_OF_WORK", "FEEDBACK"]

FEEDBACK: tuple[Rule, ...] = (
    # v9: a wish about the work (see _ZH_WISH) and what is made for the person — "给我的示例代码
    # 要能直接跑", "写给我的脚本别依赖 bash"
    Rule("zh.preference.wish", "feedback", re.compile(r"^" + _ZH_WISH)),
    # v10: a condition on the work and what to do first (see _ZH_IF_RULE)
    Rule("zh.preference.if-then", "feedback", re.compile(r"^" + _ZH_IF_RULE)),
    # v10: how a kind of work is done, more or less of something — "解释的时候多打比方",
    # "写文档时尽量少用被动句" (never a moment: "今天开会的时候多说点")
    Rule(
        "zh.preference.when-more",
        "feedback",
        re.compile(
            r"^(?!我|他|她|这|那)(?![^，。]*(?:" + _ZH_WHEN + r"))[^，。,]{1,12}?(?:的时候|时)"
            r"(?:请|都|也)?(?:多|少|尽量|记得|一定|最好)(?!了|说|点)[^，。,]{2,}"
        ),
    ),
    Rule(
        "zh.preference.for-me",
        "feedback",
        re.compile(
            r"^(?:你)?(?:写|发|做)?给我的[^，。,]{1,10}?(?:都)?(?:要|得|必须|最好|别|不要|尽量)\S|"
            # v10: "给我的 SQL 都加上注释": what is made for the person, and what it always has
            r"^(?:你)?(?:写|发|做)?给我的[^，。,]{1,10}?(?:都|一律|统一)(?:加|写|带|附|用|标|配|给)\S"
        ),
    ),
    Rule(
        "zh.preference.like",
        "feedback",
        re.compile(
            r"^我(?:比较|更|很|特别|还是)?(?:喜欢|偏好|倾向于?|讨厌|不喜欢|希望你|想要你|需要你)"
        ),
    ),
    # v6: a preference phrased as ease — "步骤标上序号的话我跟起来容易很多",
    # "举例子比讲定义对我更管用"; a "我" or "对我" is required ("这次直接重启更省事" is not)
    Rule(
        "zh.preference.ease",
        "feedback",
        re.compile(
            r"(?:的话|这样)?我[^，。,]{0,10}?(?:起来)?(?:容易|轻松|省事|舒服|方便)(?:很多|多了|得多)|"
            # v7: "先给命令再解释，这样我看得快" — the ease of the reader, as its reason
            r"(?:这样|的话)我[^，。,]{0,4}?(?:看|读|理解|跟|找|查)(?:着|得|起来)?\s*"
            r"(?:顺|快|方便|清楚|明白|舒服|轻松)|"
            r"对我(?:来说)?(?:更|比较|会)?(?:有用|管用|友好)(?:多了|很多|得多)?"
        ),
    ),
    # v8: a standing instruction said as what is best — "步骤最好编上号", "最好把参考的文档链接
    # 也附上", "代码评审最好当天给反馈", "…能列一下改了哪些文件就好了", "…先问我一声会比较
    # 好"; never "最好先…" (a step for now) nor a 最好 about this or that
    Rule(
        "zh.preference.best",
        "feedback",
        re.compile(
            r"^(?!我(?!们)|你|他|她|这|那)(?![^。]*(?:" + _ZH_WHEN + r"))[^，。,]{0,12}?最好"
            # v9: 最好先…再… is a sequence, a standing rule ("最好先跑一遍单测再提交"); 再说 is not
            r"(?!的|是|还是|别管|先(?![^。]*再(?!说)))[^，。,]{2,}|"
            # …就好了 / …会比较好 with a cue that it is every time, not this once
            r"^(?!我(?!们)|你|他|她|这|那)(?![^。]*(?:" + _ZH_WHEN + r"))"
            r"(?=[^。]*(?:每次|每个|每段|每一|以后|今后|之前|的时候|都|(?<![这那哪])里|回答|回复))"
            r"[^，。]{2,30}?(?:(?:就|会)(?:更|比较|很)?好(?:了|很多|多了|一些)?|"
            r"会(?:比较|更)?好一些)[。！!～~]*$"
        ),
    ),
    Rule(
        "zh.preference.from-now-on",
        "feedback",
        re.compile(
            r"^(?:以后|今后|往后|从今以后|默认|一般情况下)(?!再)(?:都|一律|统一|全部|全都|也|请|你)?\S"
        ),
    ),
    Rule(
        "zh.preference.always",
        "feedback",
        # v9: never a complaint ("每次开会都拖堂，受不了")
        re.compile(
            r"^(?![^。]*(?:"
            + _ZH_COMPLAINT
            + r"))(?:请)?(?:每次|每回|每当|总是|一律|始终|永远|一定要|"
            r"务必|必须)\S"
        ),
    ),
    Rule(
        "zh.preference.dont",
        "feedback",
        re.compile(
            # v11: "不用考虑兼容 IE 了": no need to bother with something, for good
            r"^(?:请|你)?(?:不要|别再?|千万别|千万不要|绝对不要|永远别|禁止|不许|不准|不能|"
            r"不用再|少用|避免|(?:不用|不必|无需|不需要)(?:再)?(?:考虑|照顾|兼顾|支持)"
            r"(?!那么|这么|太多|那些|这些|别的|其他))(?!忘|担心|客气|管|急|紧)"
            # Something to avoid, not a bare reply: "不要动", "别删", "不要加了" are about
            # the moment; at least three characters other than a closing particle.
            r"\s*(?:[^\s了吧啊呀哦。！，]\s*){3,}"
        ),
    ),
    # v2: a step tied to a recurring action — "改代码之前先给我看一下 diff"
    Rule(
        "zh.preference.before",
        "feedback",
        re.compile(
            r"^(?!.*(?:"
            + _ZH_WHEN
            + r"))(?:每次)?(?:在)?[^，。,]{1,15}?(?:之前|以前|前|之后|后|的时候|时)"
            # v9: "改配置之前最好先备份一下"
            r"(?:都|请|一定|务必|最好)?(?:要|得)?先\s*\S|"
            # v10: a step tied to an action without 先 — "改固件之后一定写清楚在哪块板子上测的"
            r"^(?!.*(?:"
            + _ZH_WHEN
            + r"))(?!我|你|他|她|这|那)(?:每次)?[^，。,]{1,15}?(?:之前|以前|之后|以后)"
            r"(?:都|请)?(?:一定|务必|记得)(?:要|得)?[^，。,]{2,}|"
            # v3: "改完代码先跑一下 make lint 再给我看" — done with X, first Y
            r"^(?!.*(?:" + _ZH_WHEN + r"))(?:每次)?\S{1,4}?完\S{0,8}?(?:都|请|一定|务必)?"
            r"(?:要|得)?先\s*\S.*再"
        ),
    ),
    # v9: an order of parts for a kind of work — "回答问题先说结论，细节放后面"
    Rule(
        "zh.preference.order",
        "feedback",
        re.compile(
            r"^(?!我(?!们)|你|他|她|这|那)(?!.*(?:"
            + _ZH_WHEN
            + r"))[^，。,]{2,10}?先[^，。,]{1,10}[，,]\s*"
            r"[^，。,]{1,8}?(?:放|写|留|讲|说)(?:在)?(?:后面|后边|最后|下面)"
        ),
    ),
    # v9: what to report after a kind of work — "改完之后告诉我动了哪些配置项", "每次部署完跟我说
    # 一下改了什么"; something is told ("告诉我一声" alone is a one-off)
    Rule(
        "zh.preference.after-tell",
        "feedback",
        re.compile(
            r"^(?!.*(?:"
            + _ZH_WHEN
            + r"))(?:每次)?[^，。,]{1,10}?(?:完|之后|以后|后)(?:都|请|记得)?"
            r"(?:要)?(?:告诉我|跟我说(?:一下)?|列一下|说一下|说明|汇报|通知我)(?!一声|一下)[^，。,]{3,}"
        ),
    ),
    # v7: a limit or a default for a kind of work — "PR 控制在三百行以内", "解释控制在一段话
    # 以内", "新脚本默认用 Python 3.12"
    Rule(
        "zh.preference.limit",
        "feedback",
        re.compile(
            r"^(?!我|你|这|那)[^，。,]{1,20}?(?:控制在|不超过|别超过|不要超过)[^，。,]{1,10}?"
            r"(?:以内|之内|以下|行|字|个)|^(?!我|你|这|那)[^，。,]{1,12}?默认(?:都)?(?:用|使用)\s*\S"
        ),
    ),
    # v2: "don't" after a topic — "提交信息里别再加表情了", "写测试时不要用 sleep"
    Rule(
        "zh.preference.topic-dont",
        "feedback",
        re.compile(
            r"^\S{1,12}?(?:里|中|上|的时候|时)(?:请|都|也)?(?:不要|别再?|千万别|千万不要|禁止|"
            r"不许|不准|避免)(?!忘|担心|客气|管|急|紧)\s*(?:[^\s了吧啊呀哦。！，]\s*){2,}"
        ),
    ),
    Rule(
        "zh.preference.must",
        "feedback",
        re.compile(
            # v3: "咱们的日志统一收到 ELK 里" is how things are, not an instruction
            # v5: and "我们系统里金额一律用分" (a "we" before 统一/一律) is a convention too
            # v9: nor a schedule ("依赖升级每个月初统一做" is when the team does it)
            r"^(?![^。]*" + _ZH_EVERY + r")"
            r"(?!\S{0,8}?(?:我们|咱们|团队|公司|项目)\S{0,8}?(?:统一|一律))\S{1,12}?(?:都要|都得|都必须|一律|统一|务必|必须|请用|请使用|要用|都用|一定要)\S"
        ),
    ),
)

# v5: how a kind of work should (not) be done, said of the work — "变量命名别用拼音",
# "回复尽量短一点", "升级依赖和写功能别放在同一个 PR 里"; never "先别…" (a one-off) nor a
# change already made ("早就不用 X 了")
DONT_OF_WORK = Rule(
    "zh.preference.dont",
    "feedback",
    re.compile(
        r"^(?!我|你|他|她|这|那|先|就|暂时|今天|明天)(?![^，。]*(?:早就|已经|现在|目前|先别))"
        # v8: the 别 of 特别 is no ban ("小林特别喜欢加注释")
        r"[^，。,]{2,16}?(?:(?<!特)别|不要|不用|尽量|千万别|千万不要|少用|多用)"
        r"(?!管|急|担心|客气)[^，。,]{2,}|"
        # v10: an instruction, then the ban that goes with it — "拿不准的地方直接标出来，别自己瞎
        # 猜" (never a reply of the moment: "写得不错，别改了")
        r"^(?!我|你|他|她|这|那|先|就|暂时|今天|明天)(?![^，。]*(?:早就|已经|现在|目前|先别))"
        r"[^，。,]{4,20}[，,]\s*(?:别(?!的|人|处)|不要|千万别|千万不要)(?!管|急|担心|客气)"
        r"(?![^，。,]*了[。！!]*$)[^，。,]{2,}"
    ),
)

# v11: a ban said with a modal, of the agent's work — "客户的身份证号不能出现在你给的示例里",
# "生产库不许直接改": 不能/不许/不准/不得 with what the agent makes or touches in the sentence
# (an example, code, a command, a config, production); never the person's own limits ("我不能
# 喝酒") nor a fact of a moment ("现在不能登录")
MODAL_BAN = Rule(
    "zh.preference.modal-ban",
    "feedback",
    re.compile(
        r"^(?!我|你|他|她|这|那|先|就|暂时|今天|明天)(?![^，。]*(?:早就|已经|(?<![出实体发])现在|目前|暂时))"
        r"(?=[^。]*(?:你|给我|示例|例子|样例|回答|回复|代码|脚本|文案|标题|配置|命令|提交|PR|"
        r"commit|仓库|线上|生产))"
        r"[^，。,]{2,16}?(?:绝对|一律|坚决|千万|都|也)?(?:不能|不许|不准|不得|不可以)"
        r"(?!说|讲|吃|喝|去|来|睡|登录|访问|打开|连)[^，。,]{2,}"
    ),
)
