"""The English rules of kind ``user``: who the person is: a name, a role, a trait, a setup, a habit.

Tried in the order ``lexicon.EN`` gives (specific → general, the first match wins); a family
added in rules-vN carries a ``vN:`` comment. Changing any pattern changes what the extractor
does: bump ``rules.RULES_VERSION`` with it.
"""

from __future__ import annotations

from .lexicon_types import Rule
from .lexicon_words import _EN_ROLE, _NAME, _en

__all__ = ["USER"]

USER: tuple[Rule, ...] = (
    Rule("en.identity.name", "user", _en(r"^(?:my name is|my name's|call me)\s+\S")),
    # v7: who the person is, said without "I'm" — "backend dev here", "data engineer
    # here, mostly Spark"; how long they have done it — "been doing iOS for like eight
    # years"; what they were — "I used to be a data analyst", "I only started coding last
    # year"
    Rule(
        "en.identity.here",
        "user",
        _en(
            r"^(?!(?:we|i|you|they|our|the|this|that)\b)(?:an?\s+)?(?:[\w/+#.-]+\s+){0,3}?"
            r"(?:" + _EN_ROLE + r")s?\s+(?:here|by (?:trade|profession|training))\b|"
            r"^(?:i'?ve\s+|i have\s+)?been\s+(?:doing|writing|using|coding in|coding|"
            r"programming in|programming|working (?:with|in|on|as))\b.{0,40}?\bfor\s+"
            r"(?:about\s+|like\s+|almost\s+|over\s+|nearly\s+|around\s+|roughly\s+)?"
            r"(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|\d+)\+?\s+"
            r"(?:years?|months?)\b|"
            r"^i\s+used\s+to\s+(?:be|work)\s+(?:an?\s+|as\s+|at\s+|in\s+|for\s+)\w|"
            r"^i\s+(?:only\s+|just\s+)?(?:started|began)\s+(?:coding|programming|"
            r"writing code|in tech)\b"
        ),
    ),
    # v7: a lasting trait of the person — a condition, a diet, a family ("I'm colorblind",
    # "I have dyslexia", "I don't drink") — kept as who they are even when an instruction
    # follows it
    Rule(
        "en.identity.trait",
        "user",
        _en(
            r"^(?:i'?m|i am)\s+(?:(?:a|an|totally|completely|partially|pretty|very|quite|"
            r"severely|mildly|also|kind of|sort of)\s+)*(?:colou?r-?blind|deaf|"
            r"hard of hearing|blind|vegetarian|vegan|pescatarian|left-handed|dyslexic|"
            r"autistic|diabetic|allergic to|lactose intolerant)\b|"
            r"^i\s+(?:have|'ve got|have got)\s+(?:a\s+|an\s+)?(?:mild\s+|severe\s+|bad\s+)?"
            r"(?:dyslexia|adhd|rsi|tinnitus|a disability|allergies|\w+ allergy|"
            r"(?:a\s+)?newborn|(?:two|three|\d|small|young)?\s*kids|a (?:kid|baby|toddler))\b|"
            r"^i\s+don'?t\s+(?:drink|eat (?:meat|pork|fish|gluten|dairy)|drive)\b"
        ),
    ),
    # v7: a life plan with its time — "I'm getting married in June", "I'm moving to Berlin
    # in April", "I'm out every Friday afternoon", "I'm on parental leave from March"
    Rule(
        "en.identity.plans",
        "user",
        _en(
            r"^(?:i'?m|i am|i'?ll be|i will be)\s+(?:(?:also|probably|likely)\s+)?"
            r"(?:getting married|moving|relocating|going on (?:\w+ )?leave|on (?:\w+ )?leave|"
            r"out|off|away|offline|unavailable|switching (?:to|teams)|joining|leaving|"
            r"changing teams|starting (?:a new|at|on))\b.{0,50}?\b(?:(?:every|each)\s+\w+|"
            # a recurring day, a month, a season or a span — never "on Friday" (once)
            r"on\s+(?:(?:mon|tues|wednes|thurs|fri|satur|sun)days|weekends)\b|"
            r"(?:in|from|until|after|starting|through)\s+(?:(?-i:January|February|March|"
            r"April|May|June|July|August|September|October|November|December)|the (?:summer|"
            r"winter|spring|fall|autumn)|\d)|next (?:week|month|quarter|year)|"
            r"for (?:a|two|three|four|six|\d+) (?:weeks?|months?|years?))"
        ),
    ),
    Rule(
        "en.identity.role",
        "user",
        _en(
            r"^(?:i'?m|i am)\s+(?:(?:a|an|the|one of the|currently|now|also|the only|"
            r"mostly|mainly|primarily|basically|really|more of|more|kind of|sort of)\s+)+"
            r"(?:[\w/+#.-]+\s+){0,3}(?:" + _EN_ROLE + r"|person|guy|gal|kind of person)s?\b"
        ),
    ),
    # v2: the person's setup — "I'm on macOS with an M2", "I use Neovim", "I run Arch"
    Rule(
        "en.identity.setup",
        "user",
        _en(
            r"^(?:i'?m|i am)\s+(?:(?:mostly|mainly|usually|currently|still)\s+)?(?:on|using|"
            r"running)\s+(?:an?\s+|the\s+)?" + _NAME + r"|"
            r"^i\s+(?:(?:mostly|mainly|usually|currently|still|personally)\s+)?(?:use|run|"
            r"code on|develop on|work on an?)\s+(?:an?\s+)?" + _NAME + r"(?:\s+\S+){0,3}"
            r"\s*(?:,|$|\s+(?:with|on|as|for (?:everything|work|development))\b)"
        ),
    ),
    # v2: "my timezone is CET", "my editor is Helix", "my pronouns are they/them"
    Rule(
        "en.identity.my-x-is",
        "user",
        _en(
            r"^my\s+(?:main\s+|primary\s+|usual\s+|daily\s+|work\s+|default\s+)?"
            r"(?:timezone|time zone|tz|os|operating system|editor|ide|shell|terminal|laptop|"
            r"machine|computer|setup|pronouns|role|title|job|background|stack|"
            r"(?:native|first) language|github handle|username|handle|working hours|hours)"
            r"\s+(?:is|are|'s)\s+\S"
        ),
    ),
    # v7: the person's own tool changed — "I switched to Fish shell recently", "I've moved
    # to Neovim"
    Rule(
        "en.identity.switched",
        "user",
        _en(
            r"^i(?:'?ve| have)?\s+(?:recently\s+|just\s+|finally\s+)?(?:switched|moved|"
            r"migrated|changed)\s+(?:over\s+)?(?:from\s+\S+\s+)?to\s+" + _NAME
        ),
    ),
    Rule(
        "en.identity.new-to",
        "user",
        _en(
            r"^(?:i'?m|i am)\s+(?:(?:pretty|very|quite|fairly|totally|completely|still|kind of|"
            r"relatively)\s+)?(?:new to|a beginner (?:in|at|with)|learning|not familiar with|"
            r"familiar with|an expert in|experienced (?:in|with))\s+\S"
        ),
    ),
    Rule(
        "en.identity.work",
        "user",
        _en(
            r"^i\s+(?:work|am working|'m working)\s+(?:on|at|for|in|with)\s+(?!(?:this|that|"
            r"it|the bug|a bug)\b)\S|^i\s+(?:lead|manage|run|own|maintain)\s+(?:the|our)\s+\S+"
            r"(?:\s+\S+)?\s+(?:team|group|squad|service|project)\b|"
            # v2: "I maintain the billing SDK", "I own Atlas", "I'm the one who runs the CI"
            r"^i\s+(?:(?:also|mostly|mainly)\s+)?(?:maintain|own|co-maintain)\s+(?:"
            r"(?:the|our)\s+(?:[\w./+#-]+\s+){0,3}(?:team|group|squad|service|project|"
            r"library|package|repo|app|api|sdk|cli|plugin|website|site|docs|pipeline|infra|"
            r"cluster|module|backend|frontend)s?\b|" + _NAME + r")"
        ),
    ),
    Rule(
        "en.identity.location",
        "user",
        _en(
            r"^(?:i'?m|i am|i live|i'm based|i am based)\s+(?:based\s+)?in\s+(?:the\s+)?"
            r"[A-Z][\w-]+(?:\s+(?:timezone|time zone|time))?\b"
        ),
    ),
    Rule(
        "en.habit.always",
        "user",
        _en(
            r"^i\s+(?:always|never|usually|generally|normally|typically|mostly|tend to|only|"
            r"don'?t ever|do not ever)\s+(?!ask\b|want\b|forget|know|remember|understand|"
            r"get\b|seem|feel|think|see\b|mix|wonder|struggle|lose|miss|end up)\w+"
        ),
    ),
)
