"""The English rules of kind ``reference``: where information lives: a URL, a place, a tool.

Tried in the order ``lexicon.EN`` gives (specific → general, the first match wins); a family
added in rules-vN carries a ``vN:`` comment. Changing any pattern changes what the extractor
does: bump ``rules.RULES_VERSION`` with it.
"""

from __future__ import annotations

from .lexicon_types import URL, Rule
from .lexicon_words import _CODE_NAMES, _EN_DOCS, _NAME, _PLACE_NOUNS, _TOOLS, _en

__all__ = ["REFERENCE"]

REFERENCE: tuple[Rule, ...] = (
    Rule(
        "en.reference.url",
        "reference",
        _en(
            r"^(?!.*\b(?:i|we)\b).*\b(?:is|are|lives?|"
            r"kept|hosted|published|found|documented)\b.*?\b(?:at|on|in|under)\s+" + URL
        ),
    ),
    Rule(
        "en.reference.location",
        "reference",
        _en(
            # v9: results and records are kept somewhere too ("experiment results go in …")
            r"^(?:the |our |all |all the |any )?(?:[\w-]+ ){0,3}(?:" + _EN_DOCS + r"|results|"
            r"records|recordings|reports|numbers)\b.{0,30}?"
            r"\b(?:are|is|live|lives|get|gets|go|goes|kept|stored|tracked|filed|logged|"
            r"managed|written|documented|posted|announced|shared|discussed|synced)\b"
            r"(?:\s+(?:tracked|filed|logged|kept|stored|managed|written|documented|posted|"
            r"announced|shared|discussed|synced))?\s+(?:at|in|on|under|over in)\s+"
            r"(?:" + URL + r"|(?:the |our |a )?(?:" + _TOOLS + r")"
            # v2: a channel, a kind of place or a path, not only a known tool:
            # "incidents go in the #inc-x Slack channel", "ADRs are in docs/adr/"
            r"|(?:the |our |a )?(?:#[\w-]+|(?:[\w#@.-]+ ){0,3}?(?:" + _PLACE_NOUNS + r")\b"
            r"|[~.\w-]*/[\w./-]*))"
        ),
    ),
    # v11: things that "live" or "sit" somewhere are kept there, whatever they are —
    # "microscope bookings live in the lab's shared Google Calendar", "the stems sit in a
    # Drive folder": a plural thing (never a person: "my parents live in Leeds"), and the
    # place is a kind of place or a tool
    Rule(
        "en.reference.lives-in",
        "reference",
        _en(
            r"^(?!(?:i|we|you|he|she|they|my|his|her|their|people|kids|folks)\b)"
            r"(?:the |our |all |all the |all our )?(?:[\w'-]+ ){0,3}?[\w-]+s\s+(?:all\s+)?"
            r"(?:live|sit)\s+(?:in|on|under)\s+[^,.;]{0,40}?\b(?:(?:" + _PLACE_NOUNS + r")s?|"
            r"(?-i:" + _TOOLS + r"))\b"
        ),
    ),
    # v2: information *managed* somewhere by name — "feature flags are managed in <Name>",
    # "secrets are kept in <Name> under Engineering". A bare "is/are in <Name>" is not
    # enough ("the docs are in English"), so the verb must say someone keeps it there.
    Rule(
        "en.reference.managed",
        "reference",
        _en(
            r"^(?:the |our |all |all the |any )?(?:[\w-]+ ){0,3}(?:" + _EN_DOCS + r")\b.{0,20}?"
            r"\b(?:are|is|get|gets)\s+(?:all\s+|always\s+|usually\s+)?(?:managed|tracked|kept|"
            r"stored|filed|logged|documented|posted|announced|discussed|reported|handled|"
            r"coordinated|configured|defined|recorded|maintained|listed|synced|shared)"
            r"\s+(?:in|on|under|via|through)\s+(?:the\s+)?" + _NAME + r"(?:\s+\w+)?\s*(?:$|,|"
            r"\s+under\s+\S)"
            # v8: information routed through a tool we do not list — "support tickets all
            # go through Zendesk", "alerts get sent to Opsgenie"
            # (what a person reads: deploys or logs going through a tool are the project's
            # plumbing — "prod deploys go through ArgoCD", "logs go to Loki")
            r"|^(?:the |our |all |all the |any )?(?:[\w-]+ ){0,2}(?:tickets|requests|questions|"
            r"bugs|bug reports|issues|incidents|alerts|pages|feedback|complaints|"
            r"escalations)\s+"
            r"(?:all\s+|always\s+|usually\s+)?(?:go|get sent|are sent|get routed|"
            r"are routed|get "
            r"filed|are filed|get logged|are logged|get reported|are reported)\s+(?:through|to|"
            r"into|via)\s+(?:the\s+)?" + _NAME + r"\b"
            r"|^(?:the |our |all |all the )?(?:[\w-]+ ){0,3}(?:" + _EN_DOCS + r")\b.{0,20}?"
            r"\b(?:are|is|live|lives|sit|sits)\s+(?:in|on)\s+(?:the\s+)?"
            + _NAME
            + r"(?:\s+\w+)?\s+under\s+\S"
        ),
    ),
    # v7: a label and a link, nothing else — "style guide: https://…", "runbook - https://…"
    Rule(
        "en.reference.label-url",
        "reference",
        _en(
            r"^(?!(?:i|we|you|my|our|pls|please|see|check|look)\b)[\w/&'. -]{2,40}?\s*"
            r"(?::|-|—|–|=)\s*" + URL + r"\s*$"
        ),
    ),
    # v7: information that goes to, or is explained in, a named tool, whatever its noun —
    # "crash reports go to Sentry", "the art pipeline is explained in Confluence", "error
    # budgets are tracked in Datadog"; a product name is required, so "the logs go to
    # stdout" or "the build goes to staging" is not a pointer
    Rule(
        "en.reference.tool",
        "reference",
        _en(
            r"^(?!(?:i|we|you|he|she|they|it|this|that|please|pls)\b)"
            # v10: a longer subject ("flight logs from the drones sync to …")
            r"(?:(?:the|our|all|all the|any|every)\s+)?(?:[\w-]+\s+){0,5}?[\w-]+\s+"
            r"(?:(?:is|are|get|gets)\s+)?(?:all\s+|always\s+|usually\s+)?"
            r"(?:go|goes|tracked|kept|documented|explained|described|written up|logged|"
            r"reported|sent|posted|filed|recorded|listed|collected|published|routed|live|lives|"
            # v10: what arrives or is copied somewhere — "tickets come in through X", "logs
            # sync to …"
            r"come in|comes in|sync|syncs|synced|land|lands|uploaded|backed up)"
            r"\s+(?:to|in|on|into|under|through|thru|via|over in)\s+(?:the\s+|our\s+)?"
            r"(?:(?-i:" + _TOOLS + r")\b"
            # v10: any name closing the clause ("… come in through Helpdesk, tag them …"), or a
            # kind of place given its name ("… an S3 bucket called flight-logs")
            # (never after "to", nor after "go(es) through": "the build goes to Staging" and
            # "prod deploys go through ArgoCD" are steps of the work, not places)
            r"|(?<!go through )(?<!goes through )(?<!go via )(?<!goes via )"
            r"(?:(?<=through )|(?<=thru )|(?<=via )|(?<=into )|(?<=in )|(?<=on ))"
            + _NAME
            + r"(?:\s+"
            + _NAME
            + r")?\s*(?:$|[,;.])"
            r"|(?:an?\s+)?(?:[\w-]+\s+){0,2}?(?:" + _PLACE_NOUNS + r")\s+(?:called|named)\s+\S)"
        ),
    ),
    # v8: a thing built in a tool that keeps things — "dashboards are built in Metabase",
    # "the admin screens are made in Retool": what is built is a view or a form, so the
    # tool is where the information lives, not what the code is written in
    Rule(
        "en.reference.built-in",
        "reference",
        _en(
            r"^(?:(?:the|our|all|all the|all our)\s+)?(?:[\w-]+\s+){0,2}?(?:dashboards?|"
            r"reports?|charts?|admin (?:panels?|screens?|pages?)|"
            # v9: "admin tools are built in Retool"
            r"(?:admin|internal|ops|support)\s+(?:tools?|apps?|ui)|"
            r"back-?office|forms?|surveys?|boards?|workflows?|automations?)\s+"
            r"(?:are|is)\s+(?:all\s+)?(?:built|made|set up|done|created|kept)\s+(?:in|on|"
            r"with)\s+"
            # a language or a UI framework is what code is written in, not a place
            r"(?:the\s+)?(?!(?:" + _CODE_NAMES + r")\b)" + _NAME
        ),
    ),
    # v9: a list said by its question — "which services need a security review is listed in
    # the wiki" (the question word is masked for the question check, Lexicon.embedded)
    Rule(
        "en.reference.wh-listed",
        "reference",
        _en(
            r"^(?:which|what|who)\b[^?]{3,60}?\s+(?:is|are)\s+(?:all\s+)?(?:listed|documented|"
            r"written down|written up|tracked|kept|noted|spelled out|described|recorded)\s+"
            r"(?:in|on|under)\s+(?:the\s+|our\s+)?\S"
        ),
    ),
    # v9: what a watching or recording tool holds, by the tool's name — "uptime checks are in
    # Checkly", "error tracking is in Bugsnag"; never a format or a language ("the logs are
    # in UTC", "results are in JSON")
    Rule(
        "en.reference.kept-in",
        "reference",
        _en(
            r"^(?!(?:i|we|you|he|she|they|it|this|that)\b)(?:(?:the|our|all)\s+)?(?:[\w-]+\s+){0,2}?"
            r"(?:checks|tracking|monitoring|reports|results|records|recordings|notes|numbers|"
            r"metrics|stats|analytics|alerts|logs|errors|crashes|exceptions|traces|uptime)\s+"
            r"(?:are|is|live|lives)\s+(?:all\s+)?(?:in|on)\s+(?:the\s+)?"
            r"(?!(?:"
            + _CODE_NAMES
            + r"|UTC|GMT|JSON|CSV|YAML|XML|English|Chinese|ms|seconds)\b)"
            + _NAME
            + r"\b"
        ),
    ),
    # v8: a plain thing kept in a plain place — "the onboarding checklist is in the wiki
    # under Engineering", "load test numbers are in the sheet on the shared drive", "the
    # release template is pinned in #releases": no docs noun is needed when the place is a
    # kind of place with its whereabouts; a bug, an error or a value is never a pointer
    Rule(
        "en.reference.place",
        "reference",
        _en(
            r"^(?!(?:(?:the|our|all|all the|all our)\s+)?(?:i|we|you|it|this|that|these|those|"
            r"they|he|she|there|here|my|bug|error|problem|issue|typo|crash|value|fix|change|"
            r"file|output|result|answer|config|setting|code)s?\b)"
            r"(?:(?:the|our|all|all the|all our)\s+)?"
            r"(?:[\w-]+\s+){0,3}?[\w-]+\s+(?:are|is|live|lives|sit|"
            # v9: "vendor invoices go in the finance folder on the shared drive"
            r"sits|go|goes)\s+(?:all\s+|always\s+)?(?:(?:pinned|kept|saved|stored|posted|written|"
            r"listed|written up|bookmarked|collected)\s+)?(?:in|on|under)\s+(?:the\s+|our\s+|"
            r"a\s+)?(?:#[\w-]+|(?:[\w-]+ )?"
            r"(?:wiki|drive|sheet|spreadsheet|notion|confluence|folder|channel|vault|"
            r"workspace|space|tracker|repo|repository))\b"
            r"(?=.*\b(?:under|on|in|called|named)\s+\S|\s*(?:[#,]|$))"
            r"|^(?:(?:the|our)\s+)?(?:[\w-]+\s+){0,3}?[\w-]+\s+(?:are|is)\s+pinned\s+in\s+"
            r"(?:the\s+)?#[\w-]+"
        ),
    ),
    # v7: a kind of document that is one file somewhere — "API spec is the openapi.yaml at
    # the root of the contracts repo", "the schema is schema.graphql in the api repo"
    Rule(
        "en.reference.file",
        "reference",
        _en(
            r"^(?:the |our )?(?:[\w-]+ ){0,3}(?:" + _EN_DOCS + r"|schema|contract)\b\s+"
            r"(?:is|are|lives?)\s+(?:the |in |at )?(?:[\w-]+ )?[\w./-]+\.(?:ya?ml|json|md|"
            r"proto|graphql|txt|pdf|csv|toml|sql)\b.{0,30}?\b(?:at|in|under|on)\s+\S"
        ),
    ),
)
