"""The English rules of kind ``feedback``: how the person wants the work done, preferences
and standing rules (``FEEDBACK_LAST``, the two that read a sentence last, come after the
project facts).

Tried in the order ``lexicon.EN`` gives (specific → general, the first match wins); a family
added in rules-vN carries a ``vN:`` comment. Changing any pattern changes what the extractor
does: bump ``rules.RULES_VERSION`` with it.
"""

from __future__ import annotations

from .lexicon_types import Rule
from .lexicon_words import _EN_IF_RULE, _NO_BAN, _PLEASE, _en

__all__ = ["FEEDBACK", "FEEDBACK_LAST"]

FEEDBACK: tuple[Rule, ...] = (
    # v10: a condition on the work, then what to do (see _EN_IF_RULE)
    Rule("en.preference.if-then", "feedback", _en(_EN_IF_RULE)),
    Rule(
        "en.preference.prefer",
        "feedback",
        _en(
            r"^i\s+(?:(?:really|strongly|generally|much|definitely)\s+)?(?:prefer|like|love|"
            r"hate|dislike|can'?t stand|want you to|need you to)\b"
            # "I love it when it works" is small talk; "I hate it when you …" is feedback
            r"(?!\s+(?:it\s+)?when\b(?!\s+you\b))|"
            # v9: never the person's own plan ("I'd rather not talk about it") nor a bare
            # "I'd rather you didn't" with nothing after it
            r"^i'?d (?:rather|prefer)\b(?!\s+not\s+(?!(?:have|see|get|use|be)\b)\w)"
            r"(?!\s+(?:you\s+)?(?:didn'?t|did not|not|don'?t)\s*(?:[,.!;]|$))|"
            r"^(?:my )?preference is\b"
        ),
    ),
    # v6: a preference phrased as ease — "it's much easier for me to follow when you number
    # the steps", "examples work better for me than definitions"
    Rule(
        "en.preference.ease",
        "feedback",
        _en(
            r"^(?:honestly,? |tbh,? |fwiw,? )?(?:it'?s |it is )?(?:much |way |a lot |far )?"
            r"(?:easier|simpler) for me (?:to|when|if)\b|"
            r"^i find it (?:much |way |a lot |far )?(?:easier|simpler) (?:to|when|if)\b|"
            r"\b(?:works?|work) (?:much |way |a lot |far )?better for me\b"
        ),
    ),
    # v8: a standing instruction said as what helps — "it helps me a lot when you say
    # which file", "what really helps is when you link the docs", "it would be nice if you
    # kept functions short", "the best way to work with me is to ask first", "a
    # test plan with each change would make reviews way easier"
    Rule(
        "en.preference.helps",
        "feedback",
        _en(
            r"^(?:honestly,? |tbh,? |fwiw,? )?(?:it |what |the thing that |something that )?"
            r"(?:really |honestly |always |also )?(?:helps|would help|'d help)(?: me)?"
            r"(?: (?:a lot|a ton|so much|tons|loads|massively|hugely|heaps|the most|most))?"
            r"(?: is)? (?:when|if) you\b|"
            # v10: "honestly it'd help if …", "would be super helpful if you …" (no "it")
            r"^(?:(?:honestly|tbh|fwiw|also|and|oh and|btw),?\s+)?(?:it(?:'d| would)|would)"
            r"(?: really| honestly| also| just| definitely)? (?:be (?:really |so |super |very )?"
            r"(?:nice|great|helpful|awesome|ideal|lovely|amazing|good|best|better)|help(?: me)?"
            r"(?: a lot| a ton| so much)?) (?:if|when) you\b|"
            r"^what (?:really |usually |honestly )?(?:helps|works)(?: best)?(?: for me)?"
            r"(?: most)? is\s+\w|"
            r"^the best way to (?:work with me|help me)\s+is\s+"
            r"(?:to\s+|when you\s+|if you\s+)?\w|"
            r"^(?!(?:i|we|you|it|this|that|they|he|she|there)\b)(?:an?\s+|the\s+)?"
            r"(?:[\w'-]+\s+){0,8}?(?:would|'d|really|always)\s+make (?:reviews?|reviewing|"
            r"reading|code review|debugging|following along)\s+(?:so |way |much |a lot |far )?"
            r"(?:easier|simpler|faster|quicker|nicer)"
        ),
    ),
    Rule(
        "en.preference.from-now-on",
        "feedback",
        _en(
            r"^(?:from now on|going forward|in (?:the )?future|moving forward|henceforth|"
            r"by default|as a rule|in general|generally)\b[,\s]+"
            # v2: "going forward sounds good" comments on a plan, it is not a rule
            r"(?!(?:sounds|seems|looks|is|works|makes)\b)(?P<body>.+)$"
        ),
        keep="body",
    ),
    # v2: the standing marker at the end — "please answer in British English from now on"
    Rule(
        "en.preference.trailing-standing",
        "feedback",
        _en(
            r"^" + _PLEASE + r"(?P<body>(?!(?:i|we|they|he|she|it|my|our|the|this|that|there)\b)"
            r"\w.+?)[,\s]+(?:from now on|going forward|from here on(?: out)?|"
            r"in (?:the )?future|moving forward|by default|"
            r"in every (?:session|answer|reply|response)|always)$"
        ),
        keep="body",
    ),
    # v2: a step tied to a recurring action — "before you push, run the linter",
    # "before applying changes, always show me the diff"
    Rule(
        "en.preference.before",
        "feedback",
        _en(
            r"^(?:before|after|whenever|every time)\s+(?:you\s+)?(?:\w+\s+){0,2}?"
            r"(?:commit|push|merg|deploy|releas|open|chang|edit|apply|appl|run|refactor|"
            r"delet|touch|install|"
            r"upgrad|writ|add|creat|rewrit|"
            r"modif)\w*\b[^,]{0,50},\s*(?:please\s+)?(?:always\s+)?"
            r"(?!(?:i|we|it|the|this|that|there)\b)\w+"
        ),
    ),
    Rule(
        "en.preference.always",
        "feedback",
        _en(r"^" + _PLEASE + r"always\s+(?!the\b|a\b|an\b|same\b)(?P<body>\w.+)$"),
        keep="body",
    ),
    Rule(
        "en.preference.never",
        "feedback",
        _en(r"^" + _PLEASE + r"(?:never|don'?t ever|do not ever|never ever)\s+(?!mind\b)\w"),
    ),
    Rule(
        "en.preference.dont",
        "feedback",
        _en(
            r"^" + _PLEASE + r"(?:don'?t|do not|stop|quit|avoid|no more)\s+(?!worry|mind|"
            # v2: "don't bother writing tests for scripts" is a rule; a bare "don't bother"
            # or "… for now" (deictic) is not
            r"know|bother\b(?!\s+(?:with\s+\w|\w+ing\b)))\w+"
        ),
    ),
    # v7: a ban phrased as a noun — "no emojis in code comments pls", "no print debugging
    # left in commits please"; never a status ("no errors in the logs", "no luck on staging")
    Rule(
        "en.preference.no-x",
        "feedback",
        _en(r"^" + _PLEASE + _NO_BAN + r"\w"),
    ),
    Rule(
        "en.preference.every-time",
        "feedback",
        _en(
            # v10: "u" for "you" ("each time u add a dependency tell me why")
            r"^(?:every time|each time|whenever|any time|anytime)\b.+\b(?:you|u|always|please)\b|"
            r".+\b(?:every time|each time|whenever you|every single time)\b"
        ),
    ),
    Rule(
        "en.preference.keep",
        "feedback",
        _en(
            r"^" + _PLEASE + r"(?:keep|make)\s+(?:your\s+|the\s+|all\s+)?(?:answers?|"
            r"explanations?|responses?|replies|summaries|messages|commit messages|prs?|"
            r"pull requests|functions|comments|code|docstrings|variable names|names)\s+\w|"
            # v8: "keep SQL keywords uppercase", "keep imports sorted"
            r"^" + _PLEASE + r"keep\s+(?:[\w-]+\s+){1,3}?(?:upper-?case|lower-?case|sorted|"
            r"alphabetical|short|brief|concise|minimal|consistent|small|simple|under \d+)\b"
        ),
    ),
    Rule(
        "en.preference.use-not",
        "feedback",
        _en(
            r"^" + _PLEASE + r"(?:use|prefer|go with|stick (?:to|with))\s+\S.{0,40}?"
            r"(?:,?\s+(?:not|instead of|rather than|over)\s+\S)"
        ),
    ),
)

FEEDBACK_LAST: tuple[Rule, ...] = (
    # v5: a standing instruction tied to a kind of task — "When you write SQL, uppercase the
    # keywords", "When you suggest shell commands, assume zsh"
    Rule(
        "en.preference.when-you",
        "feedback",
        _en(
            r"^when(?:ever)? (?:you(?:'re)?|writing|reviewing|suggesting|answering|explaining)"
            r"\b[^,]{3,60},\s*" + _PLEASE + r"[a-z]\w*\b"
        ),
    ),
    # v5: how a kind of thing should be — "PR titles should follow conventional commits"
    Rule(
        "en.preference.should",
        "feedback",
        _en(
            r"^(?!(?:i|we|you|it|this|that|these|those|they|he|she|maybe|perhaps|there)\b)"
            r"[\w/.-]+(?: [\w/.-]+){0,3} should (?:always |never |not |only )?"
            r"(?!be (?:done|ready|fine|ok|okay|good)\b)\w"
        ),
    ),
)
