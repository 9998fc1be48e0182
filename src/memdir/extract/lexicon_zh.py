"""The Chinese rule table of the offline extractor (``ZH``), beside ``lexicon.EN``: the same
``Lexicon`` shape, the same ``v2:``/``v3:`` comments. Changing any pattern changes what the
extractor does: bump ``rules.RULES_VERSION`` with it.
"""

from __future__ import annotations

import re

from .lexicon_types import Lexicon
from .lexicon_zh_feedback import DONT_OF_WORK, FEEDBACK, MODAL_BAN
from .lexicon_zh_project import CONVENTION, PROJECT
from .lexicon_zh_refs import REFERENCE
from .lexicon_zh_user import HABIT, STATE, USER
from .lexicon_zh_words import _ZH_DEICTIC, _ZH_IF_RULE, _ZH_WISH

__all__ = ["ZH"]


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
        # v9: "说起来我家是双胞胎" — a turn of the talk, no content of its own
        r"说起来|"
        # v9: a hesitation, "那个，…" / "那个 …" (never 那个 before its noun)
        r"那个(?=[，,\s])|"
        # v7: "其实…" opening a later sentence ("哈哈是的。其实我去年才开始写代码")
        r"其实(?=我(?!们)))[，,：:～~\s]*)+"
    ),
    question=re.compile(
        r"[?？]\s*$|(?:什么|怎么|怎样|哪个|哪些|哪里|哪儿|哪种|多少|为什么|为啥|是否|要不要|"
        r"能不能|可不可以|会不会|是不是|有没有|用不用|对不对|行不行|吗|呢)[。.!！\s]*$|"
        r"^(?:什么|怎么|为什么|哪|谁|几)|(?:什么时候|什么样|为什么|为啥|怎么办|怎么样|多少|哪里|哪个|"
        r"哪些)|"
        # v10: A-not-A inside a single clause asks too — "fabric 的 mixin 能不能改加载逻辑"
        # (never after a verb of weighing or checking: "我们在评估要不要上 X", "每季度检查有没有
        # 快过期的" state what is weighed or checked)
        r"^(?![^，。,]*(?:评估|考虑|讨论|商量|决定|研究|纠结|想想|检查|确认|看看|查查|看一下|问问|"
        r"看|查|测|说|告诉|写|标|列|问)[^，。,]{0,8}(?:能不能|可不可以|会不会|有没有|要不要|用不用|"
        r"行不行))(?![^。]*就(?:太|更|最|很)?好了)"
        r"[^，。,]{0,24}(?:能不能|可不可以|会不会|有没有|要不要|用不用|行不行)[^，。,]{1,24}$"
    ),
    # v9: a wish about the work ("要是能把完整堆栈一起贴出来就好了") is a preference, not a
    # hypothetical (zh.preference.wish)
    hypothetical=re.compile(
        r"^\s*(?!"
        + _ZH_WISH
        + r"|"
        + _ZH_IF_RULE
        + r")(?:如果|假设|假如|要是|万一|倘若|设想|比如|假定|即使|就算)|的话[，,]"
    ),
    embedded=re.compile(
        r"(?P<wh>"
        # after a verb of telling or listing: "改完告诉我动了哪些配置项", "列一下改了哪些文件"
        r"(?:告诉我|跟我说|说一下|说明|列(?:一下|出来|出|清楚)?|写(?:清楚|明|出来|上|一下)|"
        r"标(?:一下|明|出|清楚)|注明|记下|整理|区分|汇报)[^，。,？?]{0,8}?(?:哪[些个里块台张条家种位]|什么|多少)"
        r"(?![^。]*[吗呢][。！!\s]*$)|"
        # a topic clause, then a statement about it: "哪些接口要限流，我已经在 README 里列了",
        # "什么时候发版由测试说了算，我们不定日子"; never "用哪个库比较好，你推荐一下"
        r"^(?![^，,]*(?:好|合适|行|对)(?:一点|一些|些)?[，,])[^，,。？?]*?(?:哪些|哪个|什么时候|什么)"
        r"[^，,。？?]*(?=[，,]\s*(?!你|帮|请|推荐|告诉我|说说|给我|能不能|可不可以)[^？?]+$)|"
        # the subject of who decides: "什么时候合主干由架构组说了算"
        r"^[^，,。？?]*?(?:哪些|哪个|什么时候|什么)[^，,。？?]*?(?=由[^，。,？?]{1,8}?(?:说了算|决定|拍板))|"
        # inside a wish or an instruction: "每次改完能跑一下哪些测试受影响就好了"
        r"^[^？?]*?(?=就(?:太|更|最|很)?好了[^？?吗呢]*$|就行了?[。！!]*$|就可以了?[。！!]*$))"
    ),
    reported=re.compile(
        r"(?:他|她|他们|她们|同事|老板|领导|经理|朋友|别人|有人|客户|老师|大家)"
        # v9: 写着 quotes what follows; at the end ("飞书里有个文档写着") it only says where
        r"(?:都|也|还|就)?(?:说|讲|告诉|提到|觉得|认为|表示|反馈)|写着(?![。！!\s]*$)|说[“\"「『]|"
        r"^\s*(?:他|她|他们|她们|别人)|"
        # v5: someone else's taste — "小王喜欢用 tab", "老李特别喜欢…", "客户喜欢…"
        r"^\s*(?:(?:小|老|阿)[\u4e00-\u9fff]|[\u4e00-\u9fff]{1,2}(?:总|经理|老师|哥|姐)|"
        # v10: possessed too — "我导师…", "我们主编…", "我搭档…"
        r"(?:我们?的?|咱们?的?)?(?:同事|老板|领导|经理|朋友|客户|组长|产品经理|设计师|老婆|老公|"
        r"导师|主编|搭档|合伙人|室友|对象|老师|师兄|师姐|上司|甲方))"
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
        # v9: "报错都看 Fundebug" names a kind of information, not a failure
        r"报错(?!日志|信息|都|统一|一般)|崩溃(?!日志|报告|信息|数据|率|上报)|挂了|卡住|卡死|超时了|出错|跑不起来|起不来|失败了|不工作|不好使|"
        # v9: "有问题找行政" says whom to ask, it reports no trouble
        r"有问题(?![找就问请随])|坏了"
    ),
    rules=(
        *REFERENCE,
        *USER,
        CONVENTION,
        HABIT,
        *FEEDBACK,
        *PROJECT,
        DONT_OF_WORK,
        MODAL_BAN,
        STATE,
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
