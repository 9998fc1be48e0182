"""The kind of answer a question asks for, and whether a memory holds one.

A question asks for a kind of answer: *when* wants a time, a day or a frequency; *how many*,
*how much*, *多少*, *几* want a number or an amount; *who*, *谁* a person or a role; *where*,
*哪里* a place, a path or an address. A memory that holds no expression of that kind cannot be
the answer, however near its topic: "what is the unit price of the sensor?" is as near the
sensor's memories as "which sensor do we use?", but none of them holds a number. Recall
(``recall.py``) counts a candidate that lacks the kind the question asks for as
``type_missing`` in the calibrated relevance (``relevance.py``).

Both sides are small pattern tables, English and Chinese, written for recall and not for
understanding: a question type is read only where a question word says it plainly (a
question such as "what should I use?" asks for no particular kind and is never penalised),
and the memory side errs towards "holds it" (any digit is a number, a time and a version;
a role word or a name is a person), because a false "lacks it" costs a right answer while a
false "holds it" only leaves the score as it was.

* ``question_types(query)`` — the kinds a question accepts (a *how long* question accepts a
  number, "90 seconds", or a time, "until June"); empty when it asks for none in particular.
* ``holds(text, kinds)`` — whether a memory's text holds an expression of any of ``kinds``.
"""

from __future__ import annotations

import functools
import re
import unicodedata

from .. import regex

__all__ = ["KINDS", "holds", "question_types"]

KINDS = ("amount", "person", "place", "secret", "time")


def _rx(pattern: str, flags: int = 0) -> re.Pattern[str]:
    return regex.compile(pattern, flags, group="index")  # compiled once per machine (memdir.regex)


# the question's own words, after a filler such as "ok," or "quick question:"
_LEAD = _rx(r"^(?:(?:ok|okay|so|and|but|hey|hi|um|also|quick question|btw)[,:]?\s+)+")
_NOUN = r"^(?:what|which)(?:'s| is| are| was)? (?:the |our |my |its )?(?:[\w'-]+ ){0,2}?"
_EN_QUESTION: tuple[tuple[re.Pattern[str], frozenset[str]], ...] = tuple(
    (_rx(p), frozenset(k))
    for p, k in (
        (r"^(?:when|what time|what day|which day|what date|which date|by when|until when)\b",
         ("time",)),
        (r"^how (?:often|soon|late|early)\b", ("time", "amount")),
        (r"^how (?:long|much time)\b", ("amount", "time")),
        (r"^how (?:many|much|big|large|high|far|old|tall|wide|heavy|fast|deep|small|low)\b",
         ("amount",)),
        (_NOUN + r"(?:price|cost|budget|salary|fee|rent|bill|rate|percentage|"
         r"version(?! manager| control)|(?:phone|serial|account|tax|card|model|order|policy|"
         r"registration|vat) number|id|resolution|width|height|length|speed|temperature|"
         r"capacity|quota|limit|weight|distance|score|rating|population)s?\b", ("amount",)),
        (_NOUN + r"(?:deadline|date)s?\b", ("time",)),
        (r"\b(?:password|passcode|passphrase|api key|secret|token|credentials|pin code|"
         r"(?:enrol?ment|enrollment|licen[cs]e|access|signing|ssh|encryption|private) "
         r"key)s?\b", ("secret",)),
        (r"^(?:who|whom|whose)\b", ("person",)),
        (r"^where\b", ("place",)),
    )
)  # fmt: skip
_ZH_QUESTION: tuple[tuple[re.Pattern[str], frozenset[str]], ...] = tuple(
    (_rx(p), frozenset(k))
    for p, k in (
        (r"什么时候|什么时间|何时|哪天|哪一天|几点|几号|星期几|周几|礼拜几|哪个月|几月"
         r"|哪年|哪一年", ("time",)),
        (r"多久|多长时间|多少时间", ("amount", "time")),
        (r"多少|几(?![点号月])|多[大高长远重宽快深]|价格|费用|预算|工资|型号|编号|号码|评分",
         ("amount",)),
        (r"谁|哪位", ("person",)),
        (r"哪里|哪儿|在哪|什么地方|哪个位置|地址", ("place",)),
        (r"密码|密钥|口令", ("secret",)),
    )
)  # fmt: skip
_CJK = _rx(r"[\u3400-\u9fff]")
_CLAUSE = _rx(r"[,;?]")


def question_types(query: str) -> frozenset[str]:
    """The kinds of answer ``query`` accepts (``KINDS``); empty when it asks for none in
    particular (a yes/no question, "what should I use?", a statement)."""
    text = unicodedata.normalize("NFKC", query).strip().lower()
    if _CJK.search(text):
        return frozenset().union(*(k for p, k in _ZH_QUESTION if p.search(text)))
    found: set[str] = set()
    for clause in _CLAUSE.split(text):  # "how many read it, and where do I see that?"
        clause = _LEAD.sub("", clause.strip())
        found |= next((k for p, k in _EN_QUESTION if p.search(clause)), frozenset())
    return frozenset(found)


_EN_NUMBERS = (
    "one two three four five six seven eight nine ten eleven twelve fifteen twenty thirty "
    "forty fifty sixty hundred thousand million billion dozen half once twice single double "
    "triple few several none percent number numbers count counts counted stats statistics "
    "metrics"
)
_EN_TIMES = (
    "monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays "
    "thursdays fridays saturdays sundays weekday weekdays weekend weekends "
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec "
    "today tomorrow yesterday tonight morning mornings evening evenings night nights nightly "
    "noon midnight afternoon afternoons dusk dawn daily weekly monthly yearly annually hourly "
    "quarterly day days week weeks month months year years hour hours minute minutes second "
    "seconds season seasons spring summer autumn fall winter christmas holiday holidays "
    "quarter deadline before after until till during every each always never whenever since "
    "ago later soon earlier first last next am pm utc at upon once when if only within sprint "
    "sprints"
)
_EN_PEOPLE = (
    "owner owners manager managers lead leads leader head chair coordinator curator director "
    "designer designers engineer engineers developer developers dev devs admin admins "
    "administrator maintainer maintainers partner colleague colleagues teammate teammates team "
    "teams person people someone whoever anyone everyone nobody boss supervisor advisor "
    "adviser pi professor prof dr mr ms mrs tutor ta tas assistant assistants reviewer "
    "reviewers editor editors reporter reporters author authors writer agency company "
    "contractor vendor freelancer office department support staff landlord wife husband "
    "mother father friend member members on-call oncall me myself"
)
_EN_PLACES = (
    "room office folder directory dir drive repo repository bucket vault wiki page channel "
    "server servers cluster region site building floor desk drawer shelf street city country "
    "home cloud disk nas ssd volume locally local here there"
)
_EN_SECRETS = (
    "password passwords passcode key keys secret secrets token tokens credential credentials "
    "login logins vault 1password bitwarden lastpass keychain env account accounts"
)
_WORDS = _rx(r"[a-z][a-z'-]*")
_DIGIT = _rx(r"\d")
_LIST = _rx(r"\w, [^,;]+,? (?:and|or) \w|、")
_PLACE = _rx(r"[\w.-]+/[\w.-]*|[\w-]*\.[a-z]{2,4}\b|@|https?:|~/")
# a person's name: after a title or a verb that takes a person, before a verb a person does,
# or beside 找 / 问 / 负责 in Chinese ("找 Lina 做评审", "Jonas 负责前端"); a bare capitalised
# word is as often a product (Contentful, Riverside) and says nothing
_NAME = r"[A-Z][a-z]+(?: [A-Z][a-z]+)?"
_PERSON = _rx(
    rf"\b(?:Dr|Prof|Mr|Mrs|Ms)\.? {_NAME}|\b(?:ask|asking|ping|tell|email|call|contact|cc|is|by)"
    rf" {_NAME}|{_NAME} (?:handles|reviews|decides|approves|owns|signs|runs|does|knows|leads|"
    rf"manages|maintains|wrote|writes|designs|translates|answers|checks|prefers|wants|said|says|"
    rf"is responsible|is in charge|and [A-Z])\b|\bI (?:do|handle|own|review|decide|approve|run|"
    rf"maintain|write|sign|manage|lead|answer|check)\b|(?:找|问|由|给|跟|请|是|和)\s*[A-Z][a-z]+|"
    rf"[A-Z][a-z]+\s*(?:负责|和|是|来|说|审|批|做)"
)
# a place: a name not at the start of a sentence (a service holds things too: "Crash reports
# go to Sentry", "We use PostgreSQL"), or a preposition of place before a noun ("in its
# checks", "in .env")
_PLACE_NAME = _rx(
    r"(?<=[^\s.!?:;。！？：])\s+[A-Z][\w-]|[\u4e00-\u9fff]\s*[A-Z][\w-]|\b(?:in|on|under|inside|"
    r"into|at) (?:the |a |an |its |our |my |their |each )?[\w.]"
)
# an organisation in a person's place: "Payments go through Stripe", "a job at Siemens"
_ORGANISATION = _rx(r"\b(?:through|via|by|at|on|with) (?:the )?[A-Z][\w-]")
_EN: dict[str, frozenset[str]] = {
    "amount": frozenset(_EN_NUMBERS.split()),
    "time": frozenset(_EN_TIMES.split()),
    "person": frozenset(_EN_PEOPLE.split()),
    "place": frozenset(_EN_PLACES.split()),
    "secret": frozenset(_EN_SECRETS.split()),
}
# common surnames: one of them and a given name of one or two characters, before a pause or
# a verb of doing ("李娜负责", "周航。"); many are also plain characters, which only errs
# towards "holds"
_SURNAMES = (
    "王李张刘陈杨黄赵吴周徐孙朱胡郭何林罗郑梁谢宋唐许韩冯邓曹彭曾肖董袁潘蒋蔡杜叶程苏魏吕丁沈"
    "姚卢姜崔钟谭陆汪范廖贾夏韦邹孟熊秦邱尹薛闫段雷侯史陶黎贺顾毛郝龚邵钱严覃戴莫孔汤"
)
_ZH: dict[str, re.Pattern[str]] = {
    "amount": _rx(r"[零〇一二两三四五六七八九十百千万亿半几多少]"),
    "time": _rx(
        r"[点时分秒天日号周月年早晚夜前后每季节期春夏秋冬旬]|星期|礼拜|上午|下午|中午|凌晨"
    ),
    "person": _rx(
        r"[谁人者员师她他]|[问找]我|负责|老板|经理|同事|搭档|助教|老师|教授|朋友|客户|团队"
        r"|公司|部门|合作方|对方|甲方|乙方|[小老阿][\u4e00-\u9fff]"
        rf"|[{_SURNAMES}][\u4e00-\u9fff]{{1,2}}"
        r"(?=[，。、；：,.;:\s]|$|负责|找|问|说|做|是|来|和|审)"
    ),
    "place": _rx(
        r"[在里上下内中处地店馆室楼层区路市省国网库盘]|放到|存到|来自|目录|文件夹|仓库"
    ),
    "secret": _rx(r"密码|密钥|口令|账号|保险库|凭证"),
}  # fmt: skip


@functools.lru_cache(maxsize=8192)  # a store's descriptions come back query after query
def holds(text: str, kinds: frozenset[str]) -> bool:
    """Whether ``text`` (a memory's statement) holds an expression of any of ``kinds``: any
    digit holds a number and a time; a role word or a name in a person's place a person; a
    path, an address, a place noun or a name after a preposition a place. Always true for no
    kinds."""
    if not kinds:
        return True
    text = unicodedata.normalize("NFKC", text)
    if _DIGIT.search(text) and kinds & {"amount", "time"}:
        return True
    if "amount" in kinds and _LIST.search(text):  # "German, English and French": three
        return True
    if "place" in kinds and (_PLACE.search(text) or _PLACE_NAME.search(text)):
        return True
    if "person" in kinds and (_PERSON.search(text) or _ORGANISATION.search(text)):
        return True
    words = set(_WORDS.findall(text.lower()))
    return any(words & _EN[k] or _ZH[k].search(text) for k in kinds)
