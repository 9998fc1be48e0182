"""The rule tables of the offline extractor (``rules.py``), one ``Lexicon`` per language.

A ``Lexicon`` holds the patterns ``rules.py``'s pipeline asks about a sentence — is it a
question, a hypothetical, reported speech, a hedge, an explicit "remember", a correction — and
its ``rules``: ``Rule`` objects tried in order (specific → general), the first match giving the
memory's type and the part of the sentence to keep. ``EN`` is here, ``ZH`` in ``lexicon_zh.py``;
a family added in rules-v2 carries a ``v2:`` comment, one added in rules-v3 a ``v3:`` one.
Changing any pattern changes what the extractor does: bump ``rules.RULES_VERSION`` with it.
"""

from __future__ import annotations

import re

from .lexicon_en_feedback import FEEDBACK, FEEDBACK_LAST
from .lexicon_en_project import PROJECT
from .lexicon_en_refs import REFERENCE
from .lexicon_en_user import USER
from .lexicon_types import CJK, URL, Lexicon, Rule
from .lexicon_words import _EN_IF_RULE, _NO_BAN_TAIL, _PLEASE, _en

__all__ = ["CJK", "EN", "URL", "Lexicon", "Rule"]

EN = Lexicon(
    lang="en",
    # v3: an explicit request where it stands — after "thanks.", "ok so", "and", inside a
    # "can you … that …?" or "I'd like you to …"; rules.py tries it at every clause start.
    explicit=_en(
        r"^\s*(?:(?:please|pls|plz|kindly|hey|ok|okay|also|and|but|so|oh|just|now|then|"
        r"again|one more thing|quick thing)[,:\s]+)*"
        r"(?:(?:i'?d like you to|i want you to|i need you to|make sure (?:you|to)|be sure to|"
        r"try to|you (?:should|must|need to|have to|gotta))\s+|"
        r"(?P<ask>(?:can|could|would|will) you(?: please)?\s+(?=(?:remember|note|"
        r"keep in mind|make a note)(?:\s+that\b|\s*:))))?(?:(?:please|also|to)\s+)*"
        r"(?:remember|don'?t forget|do not forget|never forget|make a (?:mental )?note|"
        r"note down|(?:(?<=please )|(?<=pls )|(?<=also ))note|"
        r"(?:keep|bear) (?:this |that )?in mind|take note|"
        r"(?:save|add|store|put) (?:this|that|it) (?:to|in|into) (?:your )?memory|"
        r"save (?:this|a memory)|store this|for future reference|memori[sz]e)"
        r"(?=\s*[:,\-—–]|\s+(?:that|this|of|to|i|i'm|we|my|our|the|it|you)\b)"
        r"(?:\s*[:,\-—–]\s*|\s+)(?:(?:that|of|this)\b[:,]?\s*)?"
    ),
    standing=_en(
        r"^" + _PLEASE + r"(?:from now on|going forward|from here on(?: out)?|moving forward|"
        r"henceforth|in (?:the )?future)\b[,\s]+(?!(?:sounds|seems|looks|is|works|makes)\b)\w"
        r"|\w.*[,\s](?:from now on|going forward|from here on(?: out)?)[\s.!]*$"
    ),
    correction=_en(
        # v10: "no worries", "no problem" are politeness, not a correction
        r"^\s*(?:(?:no(?!" + _NO_BAN_TAIL + r"|\s+(?:worries|worry|problem|probs|prob|big deal|"
        r"stress|rush|way|doubt)\b)|nope|nah|wrong|incorrect|not quite|"
        r"not really|not exactly|actually|"
        r"that'?s (?:not right|not correct|wrong|incorrect)|that is (?:not right|wrong|incorrect)|"
        r"you'?re wrong|correction|"
        # v7: "that's outdated — we moved …", "that's old info, …"
        r"that'?s (?:outdated|out of date|old|stale)(?: info| news)?)\b[\s,.!:;—–-]*)+"
    ),
    filler=_en(
        r"^\s*(?:(?:just so you know|just fyi|fyi|btw|by the way|for context|heads up|also|"
        r"and|oh|ok|okay|so|well|"
        # v2: asides and emphasis that carry no content of their own
        r"ugh|argh|hmm|honestly|frankly|tbh|to be honest|seriously|look|listen|fwiw|psa|"
        r"quick note|note(?!\s+down)|one more thing|(?:quick )?reminder|like i said|as i said|"
        r"i (?:already )?told you|"
        # v3: a label for what follows — "Quick context: …", "For the record, …"
        # (v11: "Context for you: …" — the first alternative that matches is the one kept)
        r"(?:quick |some |a bit of |little |for )?(?:context|background)(?:\s+for you)?|"
        r"for the record|"
        # v7: "quick bit of background before we start —", "quick intro:", "a little context
        # first"
        r"(?:a |some |quick |a quick )?(?:bit of |little )?(?:context|background|intro|"
        r"introduction)(?:\s+(?:before we (?:start|begin)|first|for you))?|"
        r"for what it'?s worth|side note|fun fact|"
        # v8: "before I forget —"
        r"before i forget|while i remember|"
        # v5: a turn to the point after small talk — "anyway, …", "quick bg: …"
        r"anyway|anyways|(?:quick )?bg|so yeah|oh and|and also)\b[\s,:—–-]*)+"
    ),
    # v9: "which services need a security review is listed in the wiki" states where a list is
    embedded=_en(
        r"^(?P<wh>(?:which|what|who)\b[^?]{3,60}?)(?=\s+(?:is|are)\s+(?:all\s+)?(?:listed|"
        r"documented|written down|written up|tracked|kept|noted|spelled out|described|recorded)"
        r"\b[^?]*$)"
    ),
    question=_en(
        # v5: "When you write SQL, uppercase the keywords" is a rule with a condition, not a
        # question: "when" followed by a clause and a comma, with no question mark
        r"\?\s*$|^\s*(?:(?:"
        # v8: "what really helps me is when you …" states a preference
        r"what(?!\s+(?:really\s+|actually\s+|honestly\s+)?(?:helps|works best|works for me)\b)|"
        r"which|where|when(?![^?]*,\s*\w[^?]*$)|who|whom|whose|why|how|"
        r"do(?!\s+not\b)|does|did|is|are|am|was|were|can|could|should|"
        # v10: "would be super helpful if you …" (no "it", no question mark) states a wish
        r"would(?!\s+be\s+(?:really\s+|so\s+|super\s+|very\s+)?(?:nice|great|helpful|"
        r"awesome|ideal|lovely|amazing|good|better)\s+(?:if|when)\s+you\b[^?]*$)|will|shall|"
        # v11: "might open a Sponsors page at some point" is a hedged plan with its subject
        # left out; "might we …" / "might it …" ask
        r"have|has|may i|might(?=\s+(?:i|we|you|they|it|he|she|this|that|there)\b))\b(?!['’]t))"
    ),
    hypothetical=_en(
        r"^\s*(?!"
        + _EN_IF_RULE
        + r")(?:if|suppose|supposing|imagine|hypothetically|what if|say we|let'?s say|"
        r"assuming|assume|in case|even if|unless|whether)\b|\bwhat if\b|"
        # v7: a counterfactual — "with a bigger team we could do a port", "in an ideal world
        # we'd have …", "Rust would've been a better fit": what is not, said as what would be
        r"\b(?:in an ideal world|ideally|in theory|in a perfect world|with (?:a |more |an? )?"
        r"(?:bigger|larger|extra|more|better|bit more)\b)|"
        # v10: never the "that" of a relative clause ("flag anything that could break prod")
        r"\b(?:we|i|you|they|it|(?<!anything )(?<!something )(?<!everything )(?<!whatever )"
        r"(?<!nothing )(?<!change )(?<!changes )(?<!stuff )(?<!thing )(?<!things )that|this)"
        r"(?:'d|\s+would|\s+could)(?:\s+have|'ve)?\s+"
        r"(?!rather\b|prefer\b|like\b|love\b|appreciate\b|recommend\b|suggest\b|"
        # v8: "it'd be great if you …", "it would help if you …": a wish of the person
        r"(?<=it'd )(?:be|help|save|make)\b|(?<=it would )(?:be|help|save|make)\b|"
        # v10: with an adverb between — "it would really help if you …"
        r"(?:(?<=it'd )|(?<=it would ))(?:really|honestly|also|just|so|super|definitely)\s+"
        r"(?:be|help|save|make)\b)\w|"
        r"\b(?:would|could|might)(?:'ve|\s+have)\s+been\b"
    ),
    reported=_en(
        # v10: "claims" is the verb only before what is claimed ("claims data sits in …" is a
        # noun)
        # v11: never what the person wrote ("the guides I wrote for staff are in …")
        r"\b(?:said|says|told (?:me|us|them)|tells (?:me|us)|mentioned|claimed|"
        r"(?<!\bi )(?<!\bwe )wrote|"
        r"claims?(?=\s+(?:that|to|it|its|it's|he|she|they|we|the|a|an|our|his|her|their|you|"
        r"this)\b)|"
        r"according to|asked me|reckons)\b|^\s*(?:he|she|they|someone|somebody|people|"
        r"my (?:manager|boss|colleague|coworker|co-worker|friend|lead|teammate))\b|"
        # v5: someone else's taste or view — "Sarah prefers tabs", "the client wants Excel"
        # v8: a name with accents too ("Zoë", "José", "Søren")
        # v11: one word may qualify the someone ("the senior partner wants …")
        r"^\s*(?:(?-i:[A-ZÀ-ÖØ-Þ][a-zß-öø-ÿ]+)|(?:my|our|the) (?:[a-z]+ )?"
        r"(?:manager|boss|colleague|"
        r"coworker|co-worker|"
        r"friend|lead|teammate|client|customer|cto|ceo|pm|designer|partner|wife|husband|"
        r"cofounder|co-founder|"
        # v7: any possessed someone ("our publisher loves …", "my landlord hates …"); a team,
        # a codebase or a product stays the project's own ("our team prefers squash merges")
        r"(?<=my )(?!team|company|org|codebase|project|repo|app|service|code|stack)[a-z][\w-]*|"
        r"(?<=our )(?!team|company|org|codebase|project|repo|app|service|code|stack|squad|"
        r"group|ci|api)[a-z][\w-]*))\s+(?:(?:really|also|still|kind of|just|absolutely|totally) )?"
        r"(?:prefers|likes|loves|hates|dislikes|wants|thinks|insists|swears by|can'?t stand|"
        # v10: "Zoë is obsessed with tabs over spaces"
        r"is into|is a fan of|always wants|is obsessed with|is picky about|is (?:really )?"
        r"particular about)\b"
    ),
    deictic=_en(
        # "this project" is the project itself, not the task at hand
        r"\b(?:this(?!\s+(?:project|repo|repository|codebase|team|company|org|"
        # v7: "everywhere in this service": the project, named by its kind
        r"service|app|system|product|monorepo|"
        # v8: "this year", "this quarter": the horizon of a plan, not the task at hand
        r"year|quarter|half|spring|summer|fall|autumn|winter)\b)|"
        # v9: not the "that" of a relative clause or a "that"-clause: "comments that just
        # repeat the code", "make sure that you …"
        # v10: nor after an indefinite pronoun: "flag anything that could break prod"
        r"(?<!s )(?<!anything )(?<!something )(?<!everything )(?<!nothing )"
        r"that(?!\s+(?:just|only|actually|really|already|always|never|you|we|i|they|"
        r"it)\b)"
        # v10: nor a "that" whose verb agrees with the noun before it: "a feed that updates
        # every 30 seconds"
        r"(?!\s+(?!(?:is|was|has|does|says|looks|seems|sounds|works|makes)\b)[a-z]+[^s\W]s\b)|"
        r"these|those|here(?!'s)|now|today|tonight|for now|this time|right now|"
        # v2: "I hate it when you …" — that "it" points at nothing in the task
        # v10: "IT" is a department, never the "it" of the task at hand
        r"above|below|line \d+|(?-i:[Ii]t)(?!\s+when\b)|again|yet|anymore)\b"
    ),
    hedge=_en(
        r"\b(?:maybe|might|may|perhaps|possibly|probably|likely|considering|thinking (?:about|of)|"
        r"plan(?:ning)? to|not sure|unsure|haven'?t decided|not decided|undecided|tbd|"
        r"could|potentially|tentatively|we'?ll see|eventually|"
        # v2: weighing an option is not a decision yet
        r"evaluating|exploring|debating|experimenting|trialing|trialling|piloting|weighing|"
        # v11: "leaning towards X but it's early days", "…, dunno"
        r"leaning (?:towards?|toward)|early days|dunno|not decided yet)\b"
    ),
    lead_hedge=_en(r"^(?:maybe|perhaps|probably|possibly|likely|potentially)\b[,\s]+"),
    standing_request=_en(
        r"^(?:can|could|would|will)\s+you\s+(?:please\s+)?(?=(?:always|never|from now on|"
        r"going forward|in (?:the )?future|by default|make sure to always)\b)"
        r"(?P<rule>.+?)\s*(?:,?\s*please)?\s*\??$"
    ),
    trouble=_en(
        r"\b(?:fails?|failing|failed|crash(?:es|ed|ing)?(?!\s+(?:reports?|logs?|dumps?|data|"
        r"analytics|reporting)\b)|broken|breaks|throws|threw|traceback|"
        r"timed out|timing out|stuck|hangs|hanging|segfaults?|panick?(?:s|ed)|is down|went down|"
        r"doesn'?t work|not working|won'?t (?:start|build|run)|an error|errors out|flaky)\b"
    ),
    rules=(*REFERENCE, *USER, *FEEDBACK, *PROJECT, *FEEDBACK_LAST),
    imperative=_en(
        r"^" + _PLEASE + r"(?:always|never|use|don'?t|do not|stop|avoid|prefer|keep|make sure|"
        r"write|run|put|add|call|check|ask|follow|format|name|reply|answer|respond|explain|"
        r"test|commit|push|deploy|switch|stick)\b"
    ),
    personal=_en(r"^(?:i|i'?m|i'?ve|i'?d|my|me)\b"),
    substance=re.compile(r"[A-Z0-9][\w.+#-]*|\S*[/._]\S+|`[^`]+`"),
    because=_en(r"\b(?:because|since|as|so that)\s+(?P<why>[^.;!?]{4,})"),
    opinion=_en(
        r"^(?:i (?:(?:really|honestly|kinda|kind of) )?(?:think|guess|believe|suspect|reckon|"
        r"expect|feel like)|i'?m (?:fairly|pretty|quite|almost|mostly|reasonably) "
        r"(?:sure|certain|confident)|my (?:guess|hunch|sense|feeling) is|i'?d (?:say|guess|bet))"
        r"(?: that)?[,\s]+(?=(?:we|our|the team)\b)"
    ),
)
