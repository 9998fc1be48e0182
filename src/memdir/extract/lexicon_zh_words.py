"""The Chinese word lists the rule tables share: what points at the task at hand, roles, kinds
of document and of place, lasting traits of a person, the times and events of a life, the
words of a moment. Never a sentence shape: those are the rules (``lexicon_zh_*.py``).
Changing a list changes what the extractor does: bump ``rules.RULES_VERSION`` with it.
"""

from __future__ import annotations

_ZH_DEICTIC = (
    r"这里|这儿|这个(?!项目|仓库|团队|组|公司|服务|系统|应用|产品|代码库|"
    # v10: more kinds of a whole project — "这个模组是给 1.20.1 做的", "这个插件只支持 Chrome"
    r"模组|插件|工具|库|网站|小程序|app|App|游戏|平台)|这段|这次|这行|这一行|这份|这两|"
    # v7: "登录这块", "新账号这边", "我是这边唯一的运维": after a noun, 这块/这边 name a topic or
    # the team; alone, or after 在/到/把/从, they point at the task at hand
    r"(?:(?<![\u4e00-\u9fffA-Za-z0-9])|(?<=[在到把从改]))(?:这边|这块)|这几|那个|那段|那行|上面|下面|"
    # v11: never the 现在 inside 出现在 / 实现在 / 体现在 / 发现在 ("不能出现在示例里")
    r"刚才|刚刚|(?<![出实体发])现在|当前|第\s*\d+\s*行|它|这么|这样|那样"
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
# (v10: 群 is a chat group, never the 群 of 集群, a cluster; a storage bucket, 桶, is a place)
_ZH_PLACES = (
    r"(?<!集)群|频道|空间|文件夹|收藏夹|目录|看板|表格|知识库|页面|云盘|网盘|仓库|共享盘|存储桶|桶"
)
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
# v9: a wish about how the work is done — "你要是能顺手把命令也写出来就太好了", "要是能每次…就
# 好了": an action on the work (把, 每次, 顺手, 帮我 …) and no moment ("要是明天能放假就好了")
_ZH_WISH = (
    r"(?:你)?(?:要是|如果)(?:你)?(?:能|可以)(?=[^。]*(?:你|把|每次|顺手|帮我|给我|都|也|先|一起))"
    # a regret ("…就好了，可惜没权限") wishes for what cannot be
    r"(?![^。]*(?:" + _ZH_WHEN + r"|可惜))[^。]{2,40}?就(?:太|更|最|很)?好了"
)
# v10: a condition on the work, then what to do first — "要是改动可能影响到线上，先跟我说一声",
# "如果要删数据，一定先问我": a standing rule with its condition, not a hypothetical (never a
# moment: "要是明天下雨，先…")
_ZH_IF_RULE = (
    r"(?:要是|如果|万一)(?![^，。]*(?:"
    + _ZH_WHEN
    + r"))[^，。]{2,24}?(?:的话)?[，,]\s*(?:请|麻烦)?你?"
    r"(?:都|就)?(?:一定|务必|记得|提前|最好)?(?:要|得)?先?"
    r"(?:跟我说|和我说|告诉我|问我|通知我|提醒我|跟我确认|和我确认|找我|说一声|跟我讲)"
)
# v9: a cadence — 每周, 每两周, 隔周, 每个月初, 每季度末, 双周
_ZH_EVERY = (
    r"(?:(?:每|隔)(?:[一二两三四五六七八九十\d]+|半)?个?(?:天|周|星期|月|小时|分钟|季度|年|周[一二三四五六日]|"
    r"工作日)|双周)"
)
# v9: a complaint or a joke — "每两天就要加一次班，烦死了", "每次开会都拖堂，受不了", "…哈哈":
# a mood about how things go, never a fact of the team nor a rule for the agent
_ZH_COMPLAINT = r"烦|累死|好累|受不了|崩溃|头疼|郁闷|哈哈|笑死"
