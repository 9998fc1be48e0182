"""The Chinese rule table of the offline extractor (``ZH``), beside ``lexicon.EN``: the same
``Lexicon`` shape, the same ``v2:``/``v3:`` comments. Changing any pattern changes what the
extractor does: bump ``rules.RULES_VERSION`` with it.
"""

from __future__ import annotations

import re

from .lexicon import (
    _TOOLS,
    _ZH_PARTS,
    URL,
    Lexicon,
    Rule,
)

__all__ = ["ZH"]


_ZH_DEICTIC = (
    r"这里|这儿|这个(?!项目|仓库|团队|组|公司|服务|系统|应用|产品|代码库)|这段|这次|这行|这一行|这份|这两|"
    # v7: "登录这块", "新账号这边", "我是这边唯一的运维": after a noun, 这块/这边 name a topic or
    # the team; alone, or after 在/到/把/从, they point at the task at hand
    r"(?:(?<![\u4e00-\u9fffA-Za-z0-9])|(?<=[在到把从改]))(?:这边|这块)|这几|那个|那段|那行|上面|下面|"
    r"刚才|刚刚|现在|当前|第\s*\d+\s*行|它|这么|这样|那样"
)
# v8: "共享盘那个表格里", "群里那个置顶": 那个 before a kind of place names the place, it does
# not point at the task (see _ZH_PLACES below)
_ZH_DEICTIC = _ZH_DEICTIC.replace(
    "那个", "那个(?![^，。,]{0,4}?(?:表格|文件夹|目录|群|频道|页面|知识库|空间|看板|文档))"
)
_ZH_ROLE = (
    r"工程师|开发|程序员|设计师|经理|负责人|架构师|学生|研究员|分析师|创始人|实习生|运维|测试|"
    r"产品|前端|后端|全栈|组长|主管|老师|科学家|顾问|站长|维护者|leader|CTO|CEO|PM|SRE|DBA"
)
_ZH_DOCS = (
    r"文档|接口文档|手册|说明|wiki|Wiki|知识库|设计稿|原型|需求|缺陷|bug|Bug|问题|工单|任务|"
    r"看板|监控|告警|日志|变更记录|发布记录|周报|会议纪要|runbook|值班手册|"
    # v2: more kinds of information that live somewhere
    r"事故|故障|通知|公告|讨论|决策|密钥|功能开关|开关|排期|值班表|纪要|资料|素材|需求单|"
    # v5: credentials, conventions and definitions live somewhere too
    r"账号|密码|凭证|规范|模板|口径|定义|手顺|应急手册|设计规范"
)
# v2: generic kinds of place (never product names): "「支付事故」群", "Platform 空间"
_ZH_PLACES = r"群|频道|空间|文件夹|目录|看板|表格|知识库|页面|云盘|网盘|仓库|共享盘"
# v7: a lasting trait of the person (a condition, a diet) — in any clause of the sentence, so
# "团建别订火锅，我不吃辣" and "我是红绿色盲，图表里别…" are about who the person is
_ZH_TRAIT = (
    r"(?:^|[，,]\s*)我(?!们)(?:是|有|对)?[^，。,]{0,4}?(?:色盲|色弱|阅读障碍|障碍|过敏|左撇子|"
    r"不吃辣|不吃|不喝酒|不喝|不能吃)|(?:^|[，,]\s*)我(?!们)[^，。,]{0,2}?(?:听力|视力|眼睛)"
    r"[^，。,]{0,3}(?:不好|不太好|差|不行|有问题)"
)
# v7: a time that makes a life fact durable or dated (never today/tomorrow: those are moments)
_ZH_LIFE_TIME = (
    r"每(?:周|天|个?月|年|个?星期)|[一二三四五六七八九十\d]+月|下个?月|下半年|明年|年底|年初|"
    r"月底|月初"
)
_ZH_LIFE_EVENT = (
    r"结婚|休假|休产假|产假|陪产假|请假|搬(?:去|到|家)|调(?:去|到)|转岗|离职|入职|出差|去医院|"
    r"复查|体检|送孩子|接孩子|带娃|不在线|找不到我|回老家|退休|毕业"
)
# v2: a moment, not a standing rule: "明天之前先…" is a task for tomorrow
_ZH_WHEN = r"今天|明天|昨天|后天|下午|晚上|待会|一会儿|马上|周[一二三四五六日末]|这周|下周"

ZH = Lexicon(
    lang="zh",
    # v3: also 记得 / 下次记得, 务必 / 一定要 / 再 / 也 before the verb; never 记住了 / 记不住 /
    # 记得吗 (the person remembering, or asking)
    explicit=re.compile(
        r"^\s*(?:(?:好的|好|对了|另外|还有|嗯|那|然后|最后|再就是|顺便)[，,\s]*)*(?:请|麻烦)?(?:你)?"
        r"(?:也|再|要|一定要?|务必|千万)?(?:帮我|给我|帮忙)?(?:也|再)?"
        r"(?:记住|记一下|记下来|记下|记着|记好|记牢|记录一下|备注一下|别忘了|别忘记|不要忘了|"
        r"不要忘记|千万别忘了|备忘一下|(?:下次|以后|今后)?记得(?!吗|不|住|清|起|那|上次|当时))"
        # "记好了，…" tells; "记住了吗" asks and "记住了。" reports
        r"(?:了(?=[，,：:]\s*\S))?(?!了|吗|得|不住|不了)[：:，,、\s]*"
    ),
    standing=re.compile(
        r"^(?:以后|今后|往后|从今以后|从现在开始|从现在起|下次|下回)(?!再|的事|有空|有机会|见)"
        r"[，,\s]*\S"
    ),
    correction=re.compile(
        r"^\s*(?:(?:不是说了(?:嘛|吗|么)?|我(?:都|早就?|之前)?(?:说过|讲过|告诉过你)了?|跟你说过了?|"
        r"都说了|早说了|不对|错了|不是的|不是|你搞错了|搞错了|说错了|弄错了|其实|实际上|准确地说|"
        r"更正一下|纠正一下|不，|不,|"
        # v7: "这个过时了，…", "那是老的了，…": what the assistant used is out of date
        # v8: "那个信息过时了，…"
        r"(?:这个|那个|这|那)(?:信息|说法|版本|资料|数据|文档)?(?:已经|早就)?(?:过时|是老的|是旧的)了)"
        r"[，,。！!：:\s]*)+"
    ),
    filler=re.compile(
        r"^\s*(?:(?:顺便说一下|顺便说下|顺便提一下|顺便说|顺便|对了|另外|还有|补充一下|说明一下|嗯|哦|好的|"
        # v2: asides that carry no content of their own
        r"提醒一下|提个醒|友情提示|说实话|老实说|坦白说|说真的|讲真|顺带一提|唉|哎|"
        # v5: an announcement of what follows — "先交代一下", "跟你说一声", "简单说下", "话说"
        r"(?:先|简单|跟你|和你|我先|顺便|自我|先自我)?(?:说|讲|交代|介绍|提)(?:一)?(?:下|声)(?:背景)?|话说|"
        r"早[～~]*|嗨|哈喽|你好|"
        # v7: "其实…" opening a later sentence ("哈哈是的。其实我去年才开始写代码")
        r"其实(?=我(?!们)))[，,：:～~\s]*)+"
    ),
    question=re.compile(
        r"[?？]\s*$|(?:什么|怎么|怎样|哪个|哪些|哪里|哪儿|哪种|多少|为什么|为啥|是否|要不要|"
        r"能不能|可不可以|会不会|是不是|有没有|用不用|对不对|行不行|吗|呢)[。.!！\s]*$|"
        r"^(?:什么|怎么|为什么|哪|谁|几)|(?:什么时候|什么样|为什么|为啥|怎么办|怎么样|多少|哪里|哪个|"
        r"哪些)"
    ),
    hypothetical=re.compile(
        r"^\s*(?:如果|假设|假如|要是|万一|倘若|设想|比如|假定|即使|就算)|的话[，,]"
    ),
    reported=re.compile(
        r"(?:他|她|他们|她们|同事|老板|领导|经理|朋友|别人|有人|客户|老师|大家)"
        r"(?:都|也|还|就)?(?:说|讲|告诉|提到|觉得|认为|表示|反馈)|写着|说[“\"「『]|"
        r"^\s*(?:他|她|他们|她们|别人)|"
        # v5: someone else's taste — "小王喜欢用 tab", "老李特别喜欢…", "客户喜欢…"
        r"^\s*(?:(?:小|老|阿)[\u4e00-\u9fff]|[\u4e00-\u9fff]{1,2}(?:总|经理|老师|哥|姐)|同事|老板|"
        r"领导|经理|朋友|客户|组长|产品经理|设计师|老婆|老公)"
        # v8: what they do may come first ("小林写代码特别喜欢…"), and 爱 is a taste ("特别爱写")
        r"[^，。,]{0,8}?(?:喜欢|讨厌|偏好|习惯|想要|希望|坚持|受不了|爱用|(?<=[特很超最])爱|非要|非得|"
        r"只认|(?<=[啥么])[^，。,]{0,6}都要)|"
        # v7: anyone named by a role noun — "发行商特别喜欢…", "甲方坚持要…"
        r"^\s*(?!我|咱|团队|项目|公司)[\u4e00-\u9fff]{1,3}(?:商|方|员|户|者|师|长)"
        r"(?:特别|很|超|都|也|比较|一直|最)?(?:喜欢|讨厌|偏好|爱用|想要|坚持|受不了)"
    ),
    deictic=re.compile(_ZH_DEICTIC),
    hedge=re.compile(
        r"可能|也许|或许|大概|估计|打算|考虑|计划|准备|还没定|没定|未定|不确定|说不定|想试试|"
        r"试试|有可能|没准|待定|看情况|评估|调研|在看|"
        # v7: "倾向用 X", "大概率会…", "还没拍板", "看压测结果再说"
        r"倾向|大概率|多半|拍板|还在讨论|看[^，。]{1,8}再(?:定|说)|"
        # v8
        r"迟早|早晚"
    ),
    lead_hedge=re.compile(r"(?!)"),  # the zh hedged-change rule reads the hedge itself
    standing_request=re.compile(
        r"^(?:请你|你)?(?:能不能|可不可以|能否|可以|能)(?=以后|今后|往后|每次|从现在开始|始终|一直)"
        r"(?P<rule>.+?)[吗嘛呢]?[?？]?$"
    ),
    trouble=re.compile(
        r"报错(?!日志|信息)|崩溃(?!日志|报告|信息|数据|率|上报)|挂了|卡住|卡死|超时了|出错|跑不起来|起不来|失败了|不工作|不好使|有问题|坏了"
    ),
    rules=(
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
                r"(?:不熟|熟悉|是新手|是小白)"
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
                r"^我(?!们)(?:以前|之前|原来|原先|曾经|本科|大学|研究生|硕士|博士|去年|前年)"
                r"[^，。,]{0,4}?(?:是|做|干|当|学|读|开始|才开始)(?:了|过)?[^，。,]{0,8}?(?:"
                + _ZH_ROLE
                + r"|[一二三四五六七八九十两几\d]+年|的|代码|编程)"
            ),
        ),
        Rule(
            "zh.identity.family",
            "user",
            re.compile(r"^家里(?:刚)?(?:有|添了)?[^，。,]{0,6}?(?:娃|孩子|宝宝|小孩|老人)"),
        ),
        # v7: how data is represented across the project, said as a fact — "数据库里的时间一律存
        # UTC", "整个代码库里金额都用整数分存", "用户 ID 全部是雪花算法生成的": a convention of
        # the code (project), not an instruction to the agent (feedback)
        Rule(
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
        ),
        Rule(
            "zh.habit.always",
            "user",
            re.compile(
                r"^我(?:比较|更|还是|很)?(?:一般|平时|通常|总是|从来|从不|一直|习惯|基本上?|向来|只)"
                r"(?!问|想要)\S"
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
                r"(?!的|是|还是|别管|先)[^，。,]{2,}|"
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
            re.compile(r"^(?:请)?(?:每次|每回|每当|总是|一律|始终|永远|一定要|务必|必须)\S"),
        ),
        Rule(
            "zh.preference.dont",
            "feedback",
            re.compile(
                r"^(?:请|你)?(?:不要|别再?|千万别|千万不要|绝对不要|永远别|禁止|不许|不准|不能|"
                r"不用再|少用|避免)(?!忘|担心|客气|管|急|紧)"
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
                r"(?:都|请|一定|务必)?(?:要|得)?先\s*\S|"
                # v3: "改完代码先跑一下 make lint 再给我看" — done with X, first Y
                r"^(?!.*(?:" + _ZH_WHEN + r"))(?:每次)?\S{1,4}?完\S{0,8}?(?:都|请|一定|务必)?"
                r"(?:要|得)?先\s*\S.*再"
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
                r"^(?!\S{0,8}?(?:我们|咱们|团队|公司|项目)\S{0,8}?(?:统一|一律))\S{1,12}?(?:都要|都得|都必须|一律|统一|务必|必须|请用|请使用|要用|都用|一定要)\S"
            ),
        ),
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
                r"^(?!我(?!们)|你|他|她)[^，。,]{0,12}?(?:每|隔)(?:[一二两三四五六七八九十\d]+)?个?"
                r"(?:天|周|星期|月|小时|季度|年|周[一二三四五六日]|工作日)[^，。,]{0,10}?(?:发(?:一次)?版|"
                r"发布|上线|部署|跑|迭代|备份|同步|执行|更新|复盘|值班|对账|结算)|"
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
                r"^(?!我(?!们)|你|他|她)\S{1,12}?(?:大概|大约|差不多|将近|接近|一共|总共|峰值)(?:有|是)?"
                r"\s*(?:每(?:秒|天|月|周))?\s*(?:[0-9][0-9.,]*|[一二三四五六七八九十两百千万亿]{2,}|"
                r"[一二三四五六七八九十两](?=[个台人条张次]))\s*"
                # v7: any noun after the number, or none ("峰值大概两万"); never a time of day
                r"(?:[A-Za-z%]+|[个万千亿条次台人行]|(?![点号分秒])[\u4e00-\u9fff]|$)"
            ),
        ),
        Rule(
            "zh.project.built-with",
            "project",
            re.compile(
                r"^(?!我|你|他|她|这|那)\S{1,15}?(?:是|都是|全是|全部|都|统一)?(?:用|基于|拿)\s*"
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
        # v5: how a kind of work should (not) be done, said of the work — "变量命名别用拼音",
        # "回复尽量短一点", "升级依赖和写功能别放在同一个 PR 里"; never "先别…" (a one-off) nor a
        # change already made ("早就不用 X 了")
        Rule(
            "zh.preference.dont",
            "feedback",
            re.compile(
                r"^(?!我|你|他|她|这|那|先|就|暂时|今天|明天)(?![^，。]*(?:早就|已经|现在|目前|先别))"
                # v8: the 别 of 特别 is no ban ("小林特别喜欢加注释")
                r"[^，。,]{2,16}?(?:(?<!特)别|不要|不用|尽量|千万别|千万不要|少用|多用)"
                r"(?!管|急|担心|客气)[^，。,]{2,}"
            ),
        ),
        # v5: a state of the person with no name in it — "我住在苏州", "我人在成都", "我不吃辣",
        # "我周末基本不看消息", "我带数据平台组" — never an event just told ("…了")
        Rule(
            "zh.identity.state",
            "user",
            re.compile(
                r"^我(?!们)(?![^，。,]*了[，,。]?$)(?![^，。,]*(?:吧|啊|呢|再|一下|待会|等下))(?:人在|住在|老家在?|家在|现在在|目前在|"
                r"在[^，。,]{1,6}(?:工作|上班|办公|远程)|是[^，。,]{1,4}人(?=[，,。]|$)|"
                r"(?:现在|目前)?主要(?:写|用|做)|平时|周末|每天|"
                r"不吃|不喝|不能吃|[^，。,]{0,6}过敏|有点?[^，。,]{0,3}(?:色弱|色盲|近视|远视|听力)|"
                r"带[^，。,]{1,10}(?:组|团队)|的\s*(?:电脑|mac|Mac|笔记本|机器|显示器)\s*是)"
            ),
        ),
    ),
    imperative=re.compile(
        r"^(?:请|你)?(?:应该|要|得|需要)?(?:先)?(?:用|改用|换成|使用|别|不要|写|跑|加|调用|检查|问|遵循|"
        r"回复|回答|解释|提交|推送|部署|切换|保持|保留)\s*\S{2,}"
    ),
    personal=re.compile(r"^我(?!们)"),
    substance=re.compile(r"[A-Za-z0-9][\w.+#-]*|\S*[/._]\S+|`[^`]+`|「[^」]+」"),
    because=re.compile(r"(?:因为|由于|毕竟)(?P<why>[^。；！？]{2,})"),
    opinion=re.compile(
        r"^我(?:觉得|感觉|估计|猜|想|看|认为|琢磨着?|寻思)(?:着)?[，,\s]*"
        r"(?=[^，。]*(?:会|要|应该|可能|多半|大概|迟早|早晚|倾向|打算))(?!这|那|它)"
    ),
)
