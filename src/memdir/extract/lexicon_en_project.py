"""The English rules of kind ``project``: facts about the team's work, what is used, moved,
decided, counted.

Tried in the order ``lexicon.EN`` gives (specific → general, the first match wins); a family
added in rules-vN carries a ``vN:`` comment. Changing any pattern changes what the extractor
does: bump ``rules.RULES_VERSION`` with it.
"""

from __future__ import annotations

from .lexicon_types import Rule
from .lexicon_words import _EN_FACT_VERBS, _EN_SOFTENERS, _NAME, _en

__all__ = ["PROJECT"]

PROJECT: tuple[Rule, ...] = (
    Rule(
        "en.project.we-use",
        "project",
        _en(
            r"^(?:we|our team|the team|this (?:project|repo|repository|codebase|team))\s*"
            r"(?:'re|'ll|are|will|'ve|have)?\s*(?:(?:all|now|still|currently|mostly|only|"
            r"always|"
            r"just|already|probably|likely|maybe|might|may|could|finally|mainly|primarily|"
            r"officially|going to|gonna|plan to|want to|decided to|try to|be|should|"
            + _EN_SOFTENERS
            + r")\s+)*(?:"
            + _EN_FACT_VERBS
            + r")\b"
        ),
    ),
    # v2: weighing an option — "we're evaluating <Name>", "we're looking at moving to <Name>"
    Rule(
        "en.project.weighing",
        "project",
        _en(
            r"^we(?:'re| are)?\s+(?:(?:kind of|sort of|also|still|seriously|currently|now)\s+)*"
            r"(?:considering|evaluating|thinking (?:about|of)|looking (?:at|into)|debating|"
            r"exploring|trialing|trialling|piloting|experimenting with|talking about)\s+"
            r"(?:\w+\s+){0,3}?" + _NAME
        ),
    ),
    # v2: what kind of team or codebase this is — "we're a Python shop", "we're a monorepo"
    Rule(
        "en.project.we-are-a",
        "project",
        _en(
            r"^(?:we(?:'re| are)|this is)\s+(?:(?:a|an|mostly|mainly|primarily|basically|"
            r"pretty much|all|still|now|fully|100%)\s+)+(?:[\w./+#-]+\s+){0,3}?(?:shop|"
            r"monorepo|polyrepo|house|startup|stack|codebase|team|company)\b"
        ),
    ),
    # v2: a part of the project and what it is built with or runs on, with a name —
    # "the payments service is written in Kotlin", "everything is built with Bazel",
    # "the API uses gRPC, not REST"
    Rule(
        "en.project.part-built-with",
        "project",
        _en(
            # not a person, a pointer or a request ("let's use X for the demo", "please
            # use X"): those are other families or one-off asks
            r"^(?!(?:i|we|you|he|she|they|it|this|that|there|here|please|let'?s|let|just|"
            r"maybe|then|now|so|also|only|always|never|don'?t|do|can|could|would|should|"
            r"will|must|make|try|go|if|when)\b)"
            # v11: nor how the agent should work ("transcriptions should use IPA … when you
            # help with glosses": a preference)
            r"(?!.*\bwhen you\b)"
            r"(?:(?:the|our|all|all our|every|each)\s+)?(?:[\w./+#-]+\s+){0,3}?[\w./+#-]+\s+"
            r"(?:(?:is|are|gets|get)\s+(?:all\s+|now\s+|still\s+|always\s+)?(?:written|built|"
            r"implemented|coded|deployed|hosted|packaged|compiled|bundled|served|"
            r"containerized|orchestrated|tested|linted|formatted|type-?checked|provisioned|"
            r"released|published|shipped)\s+(?:in|with|on|to|by|using|via|through)|"
            r"(?:runs?|is running|are running)\s+(?:on|in)|uses|use|is based on|are based on|"
            r"is powered by|is backed by|talks to|depends on|targets)\s+"
            # v3: "runs on a single t3.large", "runs on two M2 minis"
            r"(?:(?:the|an?|one|a single|two|three|several)\s+)?" + _NAME
        ),
    ),
    # v2: something being retired — "the v1 API is deprecated", "… is being sunset in March"
    Rule(
        "en.project.retiring",
        "project",
        _en(
            r"^(?!(?:i|we|you|he|she|they|it|this|that|there|here)\b)(?:[\w./+#-]+\s+){1,4}"
            r"(?:is|are)\s+(?:being\s+|now\s+|officially\s+)?(?:deprecated|sunset|retired|"
            r"removed|shut down|decommissioned|frozen|going away|end-of-life|eol)\b"
            r"(?=.*" + _NAME + r")"
        ),
    ),
    Rule(
        "en.project.our-x-is",
        "project",
        _en(
            r"^(?:our|the project'?s|this project'?s|the team'?s)\s+(?:[\w./+#-]+\s+){1,4}"
            r"(?:is|are|runs?|lives?|uses?|was|were|goes|sits|has|have|'s|needs?|requires?|"
            r"targets?|depends on|talks to|deploys?|ships?)\b"
        ),
    ),
    # v7: how data is represented across the project — "all timestamps in the db are
    # stored as UTC", "user IDs are UUIDv7 everywhere in this service", "money values are
    # integers in cents, never floats, across the codebase": a convention of the code,
    # stated as a fact (project), not an instruction to the agent (feedback)
    Rule(
        "en.project.convention",
        "project",
        _en(
            r"^(?!(?:i|we|you|my|please|pls|don'?t|never|always|use|keep|make|let'?s)\b)"
            r"(?:(?:all|every|each|the|our)\s+)*(?:[\w./-]+\s+){0,4}?[\w./-]+\s+(?:are|is)\s+"
            r"(?:(?:all|always|only|now|still)\s+)?(?:(?:stored|kept|saved|persisted|"
            r"represented|encoded|serialized|expressed|formatted|returned|generated|keyed|"
            r"partitioned|sharded|hashed|encrypted)\s+(?:as|in|with|by|using|per|on)\b|"
            r"[^.;]{1,60}?\b(?:everywhere|across the (?:codebase|board|repo|service|stack|"
            r"app|api)|in (?:this|the|our) (?:codebase|service|repo|db|database|api|system)|"
            r"no exceptions)\b)"
        ),
    ),
    # v11: a naming scheme — "sample IDs follow the pattern LAB-YYYY-NNNN", "branch names
    # follow the format team/ticket-slug": a convention of the project
    Rule(
        "en.project.pattern",
        "project",
        _en(
            r"^(?!(?:i|we|you|my|please|pls|don'?t|never|always|let'?s|can|could)\b)"
            r"(?:(?:all|every|each|the|our)\s+)?(?:[\w./-]+\s+){0,3}?[\w./-]+\s+"
            r"(?:always\s+|all\s+)?(?:follow|follows|use|uses|match|matches)\s+(?:the|a|this)\s+"
            r"(?:pattern|format|naming (?:scheme|convention)|scheme|template)\s+\S"
        ),
    ),
    # v7: a fact built on a number — "the monolith is about 400k lines", "the API handles
    # about 2k requests per second", "the pipeline chews through roughly 3 TB a day"
    Rule(
        "en.project.amount",
        "project",
        _en(
            r"^(?!(?:i|we|you|he|she|they|it|this|that|there|my)\b)(?:(?:the|our)\s+)?"
            r"(?:[\w./-]+\s+){0,3}?[\w./-]+\s+(?:is|are|has|have|handles?|holds?|serves?|"
            r"gets?|does|runs?|processes|takes?|stores?|chews through|sees?|peaks at)\s+"
            r"(?:about|around|roughly|approximately|nearly|almost|over|under|some|~)\s*"
            r"\d[\d.,]*\s?(?:k|m|b|tb|gb|%|x)?\b"
        ),
    ),
    # v9: a cadence of the team's work — "the dependency audit happens at the start of every
    # month", "we cut a release every other Tuesday", "retro is every two weeks"; never the
    # person's own ("I run every morning") nor a complaint with no subject ("every other day
    # something breaks")
    Rule(
        "en.project.cadence",
        "project",
        _en(
            # (hearsay or a joke is small talk: "… every Friday apparently lol")
            r"^(?!.*\b(?:apparently|lol|lmao|haha)\b)"
            r"(?!(?:i|you|he|she|they|it|this|that|there|every|each)\b)(?:(?:the|our)\s+)?"
            r"(?:[\w./-]+\s+){0,5}?(?:happens?|runs?|is|are|goes out|ships?|rotates?|resets?|"
            r"(?:is|are|gets?)\s+(?:held|run|done|due|scheduled|cut|reviewed|rotated|[a-z]+ed))\s+"
            r"(?:(?:on|at)\s+)?(?:the\s+)?(?:start|end|beginning|first|last|1st)?\s*(?:\w+\s+)?"
            r"(?:of\s+)?(?:every|each)\s+(?:other\s+|two\s+|three\s+|\d+\s+)?(?:day|week|month|"
            r"quarter|year|sprint|release|weekday|monday|tuesday|wednesday|thursday|friday|"
            r"saturday|sunday|morning|night|evening)s?\b|"
            r"^we\s+(?:[\w-]+\s+){1,4}?(?:every|each)\s+(?:other\s+|two\s+|three\s+|\d+\s+)?"
            r"(?:week|month|quarter|sprint|monday|tuesday|wednesday|thursday|friday)s?\b"
        ),
    ),
    Rule(
        "en.project.decided",
        "project",
        _en(
            r"^(?:we(?:'ve| have)? (?:decided|agreed|settled on|chose|picked|went with)|"
            r"the decision is|it'?s decided)\b"
        ),
    ),
)
