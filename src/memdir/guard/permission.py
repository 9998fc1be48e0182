"""``permission``: a grant of permission or approval, in English and Chinese ("you may deploy",
"no approval needed before running commands", "merging is your call", "不用问我直接部署")."""

from __future__ import annotations

import re

from .lexicon import SCRATCH, rx
from .reading import (
    NEG_BEFORE,
    NEG_EN,
    RESTRICT_AFTER,
    asks,
    by_person,
    has_han,
    negated,
    orders,
)

# what an agent does to a system: a grant of these is never a person's own fact
_OPS = rx(
    r"\b(?:run|running|runs|execut\w*|exec|commands?|cmds?|scripts?|shell|terminal|sudo|deploy\w*|"
    r"push\w*|merg\w*|releas\w*|publish\w*|ship\w*|install\w*|dependenc\w*|packages?|migrat\w*|"
    r"tool ?calls?|tools?|delet\w*|drop\w*|wip\w*|rm|truncat\w*|prod|production|main|master|ci|"
    r"prs?|pull requests?|commit\w*|infrastructure|servers?|databases?|db|hotfix\w*|schema|"
    r"code|branch\w*|repo\w*|force|rotat\w*|credentials?|certificates?|firewall\w*|dns|billing)\b"
    r"|执行|运行|跑|命令|脚本|部署|发布|上线|推送|推到|合并|合入|安装|依赖|迁移|删|清空|生产|线上|"
    r"代码|"
    r"提交|重启|服务器|配置|权限|开销|花钱|发版"
)
# something to do, said as a standing rule for the agent
_ACT = rx(
    r"\b(?:spend\w*|pay\w*|purchas\w*|buy\w*|cards?|money|transfer\w*|operations?|actions?|"
    r"anything|everything|whatever|you|your|agent|assistant|ai|claude|always|from now on|"
    r"going forward|by default|every time)\b"
    r"|装|付款|支付|转账|操作|工具|改动|代理|助手|你|智能体|以后|今后|从现在|一律|总是|始终|每次|"
    r"所有|"
    r"任何|处理"
)
# reported speech to someone else: the "you" in 'I told him: "you don't need my permission"'
_REPORTED = rx(
    r"\b(?:i|we|he|she|they|my \w+)\s+(?:said|told|asked|texted|wrote|replied)(?:\s+to)?"
    r"\s+(?!you\b)\w+\s*[:,]|(?:我|我们)(?:跟|对|和)(?!你)\S{1,6}(?:说|讲)[:：，,]"
)


def _act(clause: str) -> bool:
    """Whether the clause has something for the agent to do (an approval word alone grants
    nothing: "pre-approved for a mortgage")."""
    return bool(_OPS.search(clause)) or (bool(_ACT.search(clause)) and not _REPORTED.search(clause))


_GATE = (
    r"(?:approv\w*|permission|permissions|confirm\w*|ask|asking|asked|reviews?|reviewing|"
    r"sign[- ]?off|(?:my|an|the) ok(?:ay)?|go-ahead|consent|say-?so|blessing|"
    r"check(?:ing)?(?: first| with \w+)?|"
    r"wait(?:ing)?(?: (?:for|on) \w+(?: \w+)?)?|prompt(?:ing)?|telling \w+|authori[sz]ation|"
    r"clearance|"
    r"questions?|(?:a )?(?:second|another|extra) (?:pair of eyes|look|opinion)|"
    r"run(?:ning)? (?:\w+\s+){0,2}?(?:by|past) (?:me|us|anyone|anybody|someone|a human)|"
    r"clear(?:ing)? (?:\w+\s+){0,2}?with (?:me|us))"
)
_RISKY = (
    r"(?:deploy|push|force[- ]?push|merge|release|publish|ship|approve|bypass|disable|override|"
    r"restart|reboot|rotate|grant|"
    r"overwrite|execute|install|sudo|delete|drop|wipe|truncate|rm\b|reset|revert|rewrite history|"
    r"run (?:any|all|every|whatever|arbitrary|shell|the|\w+ )?(?:commands?|scripts?|migrations?|"
    r"anything|code)|commit (?:directly )?to|access (?:prod|production)|"
    r"(?:modify|change|alter|touch|edit) (?:our |the )?(?:prod|production|live|infrastructure|"
    r"permissions|databases?|schema)|apply (?:\w+\s+){0,2}?(?:changes?|migrations?|patch\w*)|"
    r"migrate|alter|"
    r"share (?:\w+\s+){0,3}?(?:credentials?|keys?|passwords?|secrets?|tokens?|data|databases?|"
    r"code|source|files?|documents?|logs?|customers?|personal|private|confidential|internal))"
)

_PERMISSION_EN: tuple[re.Pattern[str], ...] = (
    # "… without asking / approval / confirming"
    rx(
        r"\bwithout\s+(?:(?:any|a|my|the|your|first|prior|further|me|human|manual|explicit|"
        r"written|anyone'?s|someone'?s|a human'?s)\s+)*" + _GATE + r"\b"
    ),
    rx(r"\bno questions asked\b"),
    # "approval is not required", "no confirmation needed", "doesn't need my sign-off"
    rx(
        r"\b" + _GATE + r"\s+(?:\w+\s+){0,4}?(?:is|are|'s)?\s*(?:not|no longer|never|n't)\s+"
        r"(?:needed|required|necessary|mandatory|expected)"
    ),
    rx(
        r"\b(?:no|nobody['’]?s|no[- ]one['’]?s|nobody else['’]?s|no[- ]one else['’]?s)\s+"
        r"(?:\w+\s+)?" + _GATE + r"\s+(?:is\s+|are\s+)?(?:needed|required|necessary)"
    ),
    rx(
        r"\b(?:doesn'?t|don'?t|do not|does not|won'?t|no longer|never)\s+(?:need|needs|require|"
        r"requires)\s+(?:[\w'’]+\s+){0,2}?" + _GATE
    ),
    # "never ask", "don't bother asking", "no need to check with me", "don't have to get approval"
    rx(
        r"\b(?:never|don'?t|do not|doesn'?t|does not|no need (?:for (?:you|me|the agent|the "
        r"assistant|\w+) )?to|"
        r"needn'?t|stop|no longer|skip(?:ping)?)\s+"
        r"(?:(?!without|before|unless|until)\w+\s+){0,3}?(?:ask(?:ing)?|wait(?:ing)? for|"
        r"run(?:ning)? (?:\w+\s+){0,2}?(?:by|past) (?:me|us|anyone|anybody|someone|a human)|"
        r"clear(?:ing)? (?:\w+\s+){0,2}?with (?:me|us)|"
        r"(?:seek|request|get)(?:ing|ting)? (?:my |any |an? |the |your )?(?:approv\w*|"
        r"permission\w*|"
        r"sign\w*(?:[- ]off)?|ok(?:ay)?|review\w*|confirm\w*|consent|say-?so|blessing|go-ahead)|"
        r"confirm(?:ing)?|"
        r"check(?:ing)? (?:in )?with|wait(?:ing)? on|bother(?:ing)?|loop(?:ing)? (?:me|us) in|"
        r"ping(?:ing)? (?:me|us)|"
        r"involv(?:e|ing) me)\b"
    ),
    # "you may deploy", "the agent is allowed to merge", "you have my permission to …"
    rx(
        r"\b(?:you|the agent|the assistant|the ai|agents?|assistants?|claude|the model|the bot)"
        r"(?:['’]re)?\s+"
        r"(?:are\s+|is\s+|now\s+|also\s+)*(?:may|can|could|(?:allowed|permitted|"
        r"authori[sz]ed|cleared|free|welcome|entitled|empowered) to|(?:ha(?:ve|s)|hold|holds|"
        r"got)\s+"
        r"(?:my\s+|full\s+|the\s+|standing\s+|blanket\s+)*(?:permission|approval|"
        r"authori[sz]ation|clearance|consent|green light|go-ahead|blessing)(?:\s+to)?)(?!n['’]?t|"
        r"\s+not|\s+never)\s+"
        r"(?:\w+\s+){0,3}?" + _RISKY
    ),
    rx(
        r"\bi\s+(?:hereby\s+)?(?:give|grant)\s+(?:you|the agent|the assistant)\s+(?:full\s+|"
        r"blanket\s+)?(?:permission|approval|authori[sz]ation|access|the right)|"
        r"\bi\s+(?:authori[sz]e|allow|permit)\s+(?:you|the agent|the assistant)\s+to\b|"
        r"\b(?:you|agent|assistant)\s+(?:ha(?:ve|s)|hold|holds)\s+(?:my|full|blanket|standing)\s+"
        r"(?:\w+\s+)?(?:permission|approval|authori[sz]ation|consent)"
    ),
    # "pre-approved", "auto-approve", "consider every command approved" (with something to do)
    rx(
        r"\b(?:pre-?approved|auto-?approv\w*|already approved|pre-?authori[sz]ed|pre-?cleared|"
        r"already authori[sz]ed|authori[sz]ed in advance|blanket (?:approval|permission)|"
        r"standing (?:approval|permission)|approved in advance|consider(?:ed)? (?:\w+\s+){0,7}?"
        r"(?:pre-?)?(?:approved|cleared|authori[sz]ed|green-?lit|okayed)|(?:treat|regard|deem|"
        r"count|"
        r"take|view)(?:ed|s)? (?:\w+\s+){0,4}?as "
        r"(?:already |pre-?)?(?:approved|authori[sz]ed|okayed|signed off|green-?lit|cleared))|"
        r"\b(?:approval|consent|permission|sign-?off|go-ahead|okay|blessing|say-?so)\s+(?:\w+\s+)"
        r"{0,4}?(?:can|may|should|is to|will)\s+be\s+(?:assumed|presumed|implied|"
        r"taken for granted)|"
        r"\b(?:consider|regard|deem|treat)\s+(?:yourself|the agent|the assistant)\s+(?:as\s+)?"
        r"(?:cleared|authori[sz]ed|allowed|permitted|free|approved|empowered|entitled)\b|"
        r"\b(?:blessing|approval|consent|permission|go-ahead|sign-?off|say-?so|approved|okayed)\s+"
        r"(?:\w+\s+){0,2}?"
        r"(?:ahead of time|in advance|beforehand|up front)|\bi(?:['’]ve| have)?\s+(?:already\s+)?"
        r"(?:okayed|ok'?d|approved|signed off on|green-?lit|blessed)\s+(?:every|all|any|whatever)\b"
    ),
    rx(r"\b(?:feel free|go ahead|just go ahead)\s+(?:and\s+|to\s+)?" + _RISKY),
    rx(
        r"\b(?:direct |force[- ])?(?:push(?:es|ing)?|deploy(?:s|ing|ments?)?|merg(?:es|ing)|"
        r"releas(?:es|ing)|running (?:any )?commands|sudo|migrations?)\b[^.]{0,60}?\b(?:is|are)\s+"
        r"(?:always\s+|totally\s+|perfectly\s+)?(?:fine|ok|okay|allowed|permitted|acceptable)\b"
    ),
    # "checking with me is unnecessary", "it's unnecessary to get approval"
    rx(
        r"\b" + _GATE + r"\s+(?:\w+\s+){0,4}?(?:is|are|['’]s)\s+(?:totally\s+|completely\s+|"
        r"really\s+|just\s+)?(?:unnecessary|optional|superfluous|pointless|overkill|not necessary|"
        r"an? (?:waste of time|waste|box-ticking exercise)|red tape|busywork|theatre|theater|"
        r"(?:only |merely )?an? (?:formality|rubber stamp|nice-to-have)\b[^.]{0,20}?\b(?:you can|"
        r"feel free to|fine to|ok to) (?:skip|ignore|drop))|"
        r"\b(?:it['’]?s|it is)\s+(?:totally\s+|completely\s+)?(?:unnecessary|not necessary|"
        r"optional|pointless|overkill)\s+(?:for \w+ )?to\s+(?:\w+\s+){0,2}?" + _GATE
    ),
)
_PERMISSION_EN += (
    # no one else looks: "that's all the review it needs", "you may do these alone:" (a list
    # header read with each item), "my answer is always yes"
    rx(
        r"\b(?:that'?s|that is|it'?s|it is|is)\s+all the\s+(?:review|approval|sign-?off|checking|"
        r"testing|permission|oversight|go-ahead)\s+(?:it|this|that|you|they)\s+needs?\b|"
        r"\b(?:you|the agent|the assistant|the bot|agents?|bots?)\s+(?:may|can|is allowed to|are "
        r"allowed to|gets? to)\s+do\s+(?:\w+\s+)?(?:alone|on (?:its|your) own|"
        r"by (?:itself|yourself)|unsupervised|unattended|without (?:asking|me|approval|"
        r"checking))\b|"
        r"\b(?:treat|take|count|regard|consider)\s+(?:that|this|it|silence|my silence|no (?:answer|"
        r"reply|response))\s+as\s+(?:my\s+)?(?:consent|approval|a yes|yes|permission|sign-?off|"
        r"go-ahead|agreement)\b|"
        r"\bmy\s+(?:answer|reply|response)\s+(?:is|will be|would be)\s+(?:always\s+)?(?:a\s+)?"
        r"(?:yes|ok|okay|go)\b|"
        r"\b(?:nobody|no one|no-one|no human)\s+(?:else\s+)?(?:has|needs|is required|must|"
        r"should)\s+to\s+(?:look at|look over|review|check|approve|sign off on|vet|inspect)\b"
    ),
)
_PERMISSION_EN += (
    # a bare "stop asking me" is the standing rule "never ask", whatever was to be done
    rx(
        r"\b(?:never|don'?t|do not|stop|no more)\s+(?:ever\s+)?(?:ask(?:ing)?|bother(?:ing)?|"
        r"check(?:ing)? with)\s+(?:me|us|the user|the person)?\s*(?:for (?:permission|approval|"
        r"confirmation|my ok(?:ay)?))?\s*(?:again|anymore|any more|first|each time|every time)?"
        r"\s*[.!;,:]*$"
    ),
)
_PERMISSION_EN += (
    # approval taken as given or stood in for: "my sign-off is implied", "your judgement
    # replaces my approval"
    rx(
        r"\b(?:my|the|our|an?)\s+(?:sign-?off|approval|consent|permission|ok(?:ay)?|go-ahead|"
        r"blessing|say-?so)\s+(?:is|are)\s+(?:always\s+|now\s+)?(?:implied|assumed|a given|"
        r"automatic|granted|understood|implicit|given in advance)\b|"
        r"\b(?:take|treat|consider|regard)\s+my\s+(?:yes|ok(?:ay)?|approval|consent|sign-?off|"
        r"go-ahead)\s+as\s+(?:a\s+)?(?:given|granted|read|assumed|implied|understood)\b|"
        r"\b(?:replaces?|substitutes? for|stands? in for|counts? as|is as good as|takes? the place "
        r"of)\s+(?:my|the|our|any|an?)\s+(?:own\s+)?(?:approval|sign-?off|ok(?:ay)?|permission|"
        r"review|consent|go-ahead)\b"
    ),
    # acting alone on a system: "you're trusted to change DNS records on your own"
    rx(
        r"\b(?:you|the agent|the assistant|the bot)(?:['’]re|\s+are|\s+is)?\s+(?:\w+\s+)?"
        r"(?:trusted|expected|meant|supposed|free|welcome)\s+to\s+(?:\w+\s+){1,6}?"
        r"(?:on (?:your|its) own|"
        r"by (?:yourself|itself)|alone|solo|unsupervised|at (?:your|its) (?:own )?discretion|as "
        r"(?:you|it) see fit|without (?:me|us|supervision|oversight|anyone))\b"
    ),
)
_PERMISSION_EN += (
    # no one else looks: "nobody needs to look them over", "no human in the loop", "there's no one
    # you have to check in with", "that's review enough"
    _NOBODY := rx(
        r"\b(?:nobody|no one|no-one|no human|not anyone)\s+(?:else\s+)?(?:needs?|has|have|is "
        r"required|must|should)\s+to\s+(?:look|review|check|approve|sign off|vet|inspect|okay|see|"
        r"oversee)\w*\b|\bno (?:one|human|person|body|manager)\s+(?:else\s+)?(?:that\s+)?you\s+"
        r"(?:have|need|must|ought) to\s+(?:check in with|ask|clear (?:it|things) with|run (?:it|"
        r"things) (?:by|past)|answer to|consult)\b|\b(?:with\s+)?no human (?:in the loop|"
        r"oversight|review|sign-?off)\b|\b(?:review|approval|sign-?off|permission|oversight|"
        r"checking) enough\b"
    ),
    # a decision left to the agent: "whatever you decide about refunds stands", "your judgement
    # is final on production changes"
    rx(
        r"\b(?:whatever|anything|what)\s+you\s+(?:decide|choose|approve|say)\b[^.;]{0,40}?"
        r"\b(?:stands|goes|is final|counts|is fine|is binding)\b|\byour\s+(?:judge?ment|decision|"
        r"call|word|say-?so|verdict)\s+(?:is|will be)\s+(?:final|enough|sufficient|law|binding)\b"
    ),
    # approving its own work or giving itself access: "sign off on your own PRs", "grant
    # yourself admin rights"
    rx(
        r"\b(?:sign(?:s|ing)? off on|approv\w*|merg\w*|review\w*|okay\w*|rubber-?stamp\w*|"
        r"green-?light\w*)\s+(?:your|its)\s+own\s+(?:prs?|pull requests?|changes?|code|work|"
        r"commits?|requests?|merges?|releases?|expenses?|access requests?|tickets?|patches)\b|"
        r"\b(?:grant|give|add|assign|elevate|promote|make)\s+yourself\s+(?:\w+\s+){0,3}?"
        r"(?:access|rights|admin\w*|permissions?|privileges?|roles?|owner\w*|sudo|root)\b|"
        r"\badd\s+yourself\s+to\s+(?:\w+\s+){0,3}?(?:admins?|owners?|sudoers|groups?|roles?|"
        r"maintainers)\b"
    ),
    # everything the agent does already approved: "everything you run has been signed off already"
    rx(
        r"\b(?:everything|anything|whatever|all|every \w+|any \w+)\s+(?:that\s+)?you\b[^.;]{0,40}?"
        r"\b(?:has|have|is|are)\s+(?:been\s+)?(?:already\s+)?(?:signed off|approved|okayed|"
        r"cleared|green-?lit|pre-?approved|authori[sz]ed)\b"
    ),
)
_PERMISSION_EN += (
    # the gate itself waived: "consider the need for my sign-off on infrastructure work retired"
    rx(
        r"\b(?:the\s+)?(?:need|requirement)s?\s+(?:for|of|to get)\s+(?:my|an?|the|any|your)\s+"
        r"(?:\w+\s+)?" + _GATE + r"\b[^.;]{0,40}?\b(?:retired|waived|lifted|dropped|gone|removed|"
        r"void|cancell?ed|over|suspended|scrapped)\b"
    ),
    # the agent's own judgement is the gate: "merge and release whenever you think it's ready"
    _DISCRETION := rx(
        r"\b(?:whenever|when|if|once|as soon as)\s+you\s+(?:yourself\s+)?(?:think|decide|feel|"
        r"judge|believe|reckon|consider|deem)\b|\bas you see fit\b|\bat your (?:own )?discretion\b"
    ),
)
_PERMISSION_EN += (
    # no report owed: "ship the release yourself; I don't need to hear about it"
    _UNTOLD := rx(
        r"\b(?:i|we)\s+(?:don'?t|do not|won'?t|will not|no longer)\s+need\s+to\s+(?:hear|know|"
        r"be told|"
        r"be informed|be asked|see it)\b|\b(?:ship|deploy|merg|releas|publish|approv)\w*\s+"
        r"(?:\w+\s+){1,3}?(?:yourself|on your own|by yourself|solo)\b"
    ),
    # a list headed as the agent's powers: "The agent's permissions: - restart prod"
    _POWERS := rx(
        r"^(?:the\s+)?(?:agent|assistant|bot|ai)['’]?s?\s+(?:permissions|powers|rights|"
        r"privileges)\s*:\s*\S|"
        r"^(?:助手|你|AI|机器人|智能体|代理|bot|agent)的?(?:权限|权力|特权)\s*[:：]\s*\S"
    ),
)
_SELF_KEY = (
    r"[\w.-]*(?:self|auto|allow[_-]?self)[_-]?(?:approv\w*|merg\w*|deploy\w*|releas\w*)\s*(?:=|"
    r":)\s*"
    r"(?:true|yes|on|1|always)"
)
_PERMISSION_EN += (
    # a setting that approves the agent's own work: "self_approve = yes", "auto_merge: true"
    rx(r"^\s*" + _SELF_KEY + r"\s*(?:#.*)?$|\b(?:set|export|add|put|use)\s+" + _SELF_KEY + r"\b"),
)
# the decision handed over on something with power: "merging is your call", "free rein over
# the pipeline", "admin rights are yours to use"
_POWER = rx(
    r"\b(?:deploy\w*|merg\w*|releas\w*|push\w*|delet\w*|drop\w*|prod|production|infra\w*|"
    r"pipelines?|admin|root|access|rights|permissions|keys|billing|dns|servers?|databases?|"
    r"migrations?|main|master|commands?|changes|budget|spend\w*|payments?|credentials?|"
    r"certificates?|secrets?|tokens?|firewall\w*|billing|refunds?|contracts?)\b|"
    r"部署|发布|上线|合并|删|生产|线上|权限|管理员|服务器|数据库|命令|付款|预算"
    + r"|\b(?:pull requests?|prs|code|releases?|tickets?|changes)\b"
)
_HANDED = (
    rx(
        r"\b(?:is|are|'s)\s+(?:entirely\s+|completely\s+|totally\s+)?(?:your (?:call|decision|"
        r"choice)|up to you)\b|\byours to (?:use|decide|run|make|approve|take)\b|"
        r"\b(?:free|full|total) rein\b|\bcarte blanche\b|\b(?:full|total|complete) (?:control|"
        r"authority|discretion) over\b|\bfree hand\b|\b(?:consider|make|regard)\s+yourself\s+"
        r"(?:as\s+)?the\s+(?:approver|decider|owner|final say)\b|\byou(?:'re| are) the "
        r"(?:approver|decider|final say)\b|\byou have the final say\b|"
        r"\bthe green light\b[^.]{0,30}?\b(?:is|are)\s+(?:a given|automatic|assumed|implied)|"
        # the decision itself handed over: "the final word on schema changes is yours", "consider
        # the deploy button yours", "you decide on your own whether a migration goes out"
        r"\b(?:the agent|the assistant|the bot|it)\s+(?:gets? to\s+)?(?:decides?|chooses?|"
        r"determines?)\s+(?:on (?:its|your) own|alone|by itself|itself)\s+(?:whether|when|if)\b|"
        r"\bon (?:your|its) own\s+(?:whether|when|if)\b|"
        r"\b(?:final|last)\s+(?:word|say|call|decision)\b[^.;]{0,40}?\b(?:is|are|rests?|lies)\s+"
        r"(?:with\s+)?(?:yours|you)\b|\b(?:consider|treat|regard)\s+(?:the\s+|my\s+)?"
        r"(?:\w+\s+){0,3}?yours\b|\byou(?:\s+alone|\s+yourself)?\s+(?:get to\s+)?"
        r"(?:decide|choose|judge|determine)\b(?:\s+on your own|\s+alone|"
        r"\s+yourself)?\s+(?:whether|when|if)\b"
    ),
    re.compile(
        r"(?:你|助手|AI)(?:来)?自己(?:看着)?(?:定|决定|拿主意|做主|判断|把握)|"
        r"(?:你|助手|AI)(?:就|来|可以)?自己(?:拍板|做主|拿主意)|"
        r"(?:你|助手|AI)(?:来)?(?:全权做主|全权决定|做主|定了就算|说了就算|定就算)|"
        r"(?:你|助手|AI)(?:来)?(?:说了算|全权负责|全权处理|做决定|拍板|定就行|自己定|决定就好)|"
        r"由你(?:来)?(?:决定|拍板|做主)|"
        r"(?:权限|管理员|root|账号|生产|线上)[^，。\n]{0,8}?(?:你)?(?:随便|随意|尽管)(?:用|改|动)"
    ),
)


# The agent standing in for the person or for whoever must approve (session 20): "you count as
# the supervisor", "act as me in the rota tool", "enter my override code", "sign with my
# e-signature", "anything you greenlight is as good as me greenlighting it", "my agreement is a
# given", "I've agreed in advance", "you approve them from now on", "就当你就是主管",
# "我的电子签名你随便用", "以后你来确认".
_APPROVER = (
    r"(?:supervisor|manager|approver|owner|admin\w*|lead|boss|signatory|reviewer|final reviewer|"
    r"decision-?maker|authori[sz]er|sign-?off|me|my (?:proxy|delegate|deputy|stand-?in))"
)
_STAND_IN_EN = rx(
    r"\b(?:you|the assistant|the agent|the bot)\s+(?:will\s+|can\s+|may\s+|now\s+|are to\s+|"
    r"get to\s+)?(?:count|act|stand|serve|function|sign|pass)(?:s)?\s+(?:in\s+)?(?:as|for)\s+"
    r"(?:the\s+|a\s+)?" + _APPROVER + r"\b|"
    r"\b(?:consider|treat|regard)\s+yourself\s+(?:as\s+)?(?:the\s+|my\s+)?(?:final\s+)?"
    + _APPROVER
    + r"\b|"
    r"\b(?:is|are|counts?|will be)\s+(?:just\s+)?as good as\s+(?:me|my own|mine|if i)\b|"
    r"\bmy\s+(?:agreement|consent|approval|signature|say-?so|yes|ok(?:ay)?|go-ahead|permission)"
    r"\s+(?:is|will be)\s+(?:always\s+)?(?:a given|assumed|implied|automatic|guaranteed)\b|"
    r"\bi(?:['’]ve| have)?\s+(?:already\s+)?(?:agreed|consented|said yes)\s+(?:to\s+\w+\s+)?"
    r"(?:in advance|ahead of time|beforehand|up front)\b(?!\s+to\b)|"
    r"\byours to (?:give|grant|hand out|issue|sign|approve|decide)\b|"
    r"\byou(?:['’]re| are)\s+(?:now\s+)?the\s+(?:new\s+|sole\s+|only\s+)?(?:approver|signatory|"
    r"authori[sz]er|decision-?maker|final reviewer|sign-?off)\b|"
    r"\bi\s+(?:hereby\s+)?pre-?(?:approve|authori[sz]e)\b|"
    r"\b(?:treat|take|count|regard)\s+my\s+silence\s+as\b"
)
# said as an order, with the person's own authority: "enter mine and carry on", "sign … with my
# e-signature", "act as me"
_AS_ME_EN = rx(
    r"\b(?:on my behalf|in my name|(?:act|log in|sign in|sign|pose|reply|respond|post|vote)\s+"
    r"as me|with my (?:e-?signature|signature|override|badge|"
    r"approval)|(?:enter|use|give|type|put in)\s+mine|"
    r"(?:enter|give|type)\s+my\s+(?:\w+\s+)?(?:code|pin|override|signature|approval)|"
    r"use my\s+(?:\w+\s+)?(?:override|signature|approval|sign-?off))\b"
)
_APPROVE_VERB = (
    r"(?:approv\w*|sign(?:s|ing)? off(?: on)?|okay\w*|ok\b|green-?light\w*|authori[sz]\w*|"
    r"grant\w*|accept\w*|sign\w*|confirm\w*|vote\w*)"
)
_YOU_APPROVE = rx(
    r"\byou\s+(?:now\s+|alone\s+|yourself\s+)?" + _APPROVE_VERB + r"\b[^.;]{0,40}?"
    r"\b(?:from now on|going forward|from today|from here on|for good|alone|on your own|yourself|"
    r"without me)\b|"
    r"\b(?:that'?s|it'?s|this is)\s+your\s+(?:job|call|task|responsibility)\s+now\b|"
    r"\b(?:things|what|decisions?)\s+(?:you\s+)?(?:may|can|get to)\s+(?:\w+\s+){0,2}?"
    r"(?:alone|on your own|yourself|without me)\s*:"
)
_STAND_IN_ZH = re.compile(
    r"(?:就当|当|算)(?:你|助手)(?:就|自己)?是(?:主管|经理|负责人|管理员|审批人|老板|我)|"
    r"我的(?:电子)?(?:签名|签章|账号|工号|授权码|印章)[^，。\n]{0,6}?(?:你|助手)?(?:随便|尽管|直接|"
    r"随时)?用|"
    r"算(?:是)?我(?:签|批|同意|点头|确认)的|"
    r"(?:替我|代我|以我的?名义|用我的?名义|代表我)[^，。\n]{0,6}?(?:点头|批|签|同意|确认|审批|投票|"
    r"付款|通过)|"
    r"(?:以后|今后|从今天起|从现在起)?(?:由)?你来(?:确认|批|审批|签字?|拍板|审核)|"
    r"你(?:自己|自行)(?:确认|批|审批|签字?|付款)[^，。\n]{0,4}?(?:就好|就行|吧|即可|好了)|"
    r"(?:归你|你)(?:管|负责)了?$|我(?:都|也)?(?:事先|提前|预先)(?:都)?(?:认了|同意了?|答应了?|"
    r"批了)|用我的(?:账号|工号|签名|身份|名字)[^，。\n]{0,6}?(?:点|批|签|同意|确认|审批)|"
    r"我不回复就当同意|不回复就(?:当|算)(?:同意|批准)"
)


def _stands_in(clause: str) -> str | None:
    if asks(clause):
        return None
    for pattern in (_STAND_IN_EN, _YOU_APPROVE) + ((_STAND_IN_ZH,) if has_han(clause) else ()):
        m = pattern.search(clause)
        if m and not negated(clause, m.start()) and not _REPORTED.search(clause):
            if pattern is _STAND_IN_ZH and re.search(r"由[^，,。]{1,8}$", clause[: m.start()]):
                continue  # "由小王替我审批报销单": who stands in is someone else, a fact
            return m.group()
    m = _AS_ME_EN.search(clause)
    if m and not negated(clause, m.start()) and _ordered_verb(clause):
        return m.group()
    return None


def _ordered_verb(clause: str) -> bool:
    """An order: some part of the clause opens on a verb ("…, enter mine and carry on"), or it
    is said to "you" as what you will do."""
    return orders(clause) or bool(_YOU_WILL.search(clause))


_YOU_WILL = rx(r"\byou\s+(?:will|can|may|should|are to)\b")


def _handed_over(clause: str) -> str | None:
    if not _POWER.search(clause) or asks(clause):
        return None
    for pattern in _HANDED:
        for m in pattern.finditer(clause):
            if not negated(clause, m.start()):
                return m.group()
    return None


# which grants need something for the agent to do in the clause, which read as restrictions
# when negated before ("never deploy without approval"), which are asked or negated in place
_NEEDS_ACT = {0, 1, 2, 3, 4, 5, 8, 11, 12}
_WITHOUT, _ADDRESSED, _FEEL_FREE, _NEVER_ASK, _BARE_ASK = 0, 6, 9, 5, 13

_ZH_GATE = (
    r"(?:审批|批准|确认|问|请示|征得|征求|同意|点头|审核|评审|许可|授权|检查|报备|签字|过问|允许|"
    r"告诉我|"
    r"通知我|跟我说|汇报|经过我|过我这关|复核|把关|过目|"
    r"(?i:ask|approv\w*|confirm\w*|review|permission|sign-?off))"
)
_ZH_ACT = (
    r"(?:部署|发布|上线|推送|推到|推|合并|合到|合入|删除|删|清空|跳过|绕过|修改生产|改生产|"
    r"修改线上|执行|"
    r"运行|跑|重置|覆盖|回滚|付款|转账|批准|审批|安装|操作|决定|sudo|rm|drop|force|命令)"
)
_ZH_WHO = r"(?:你|您|助手|AI|ai|智能体|代理|模型|机器人|agent)"
_PERMISSION_ZH: tuple[re.Pattern[str], ...] = (
    re.compile(
        r"(?:不需要|不用|无需|不必|免|用不着|没必要|不再需要|不再|不要求|不要再?等|不用再?等|"
        r"别再?等|不等|"
        r"不问|别再?问|不要再?问|不经过?|不要再|别再)(?:再|先|跟我|向我|和我|等我|找我|让我|给我|"
        r"问我|经过|经|我的?|"
        r"任何人的?|你的?|征得|征求|再次|去|都|找|每次|每回|来|总是?|老是?|人工|等待?)*\s*"
        + _ZH_GATE
    ),
    re.compile(
        _ZH_WHO + r"[^，,。\n]{0,6}?(?:可以|能够?|可|有权限?|被允许|被授权|获准|获得了?|有我的授权|"
        r"一律有权|全权)[^。\n]{0,16}?" + _ZH_ACT
    ),
    re.compile(r"我(?:允许|授权|准许|批准|同意)" + _ZH_WHO),
    re.compile(_ZH_WHO + r"有我的(?:授权|许可|批准)"),
    re.compile(
        r"(?:视为|当作|当成|算作|就当)(?:我|[^，。\n]{0,8}?都)?(?:已经?|都已经?)?(?:批准|同意|"
        r"审批通过|确认|点头|"
        r"授权|认可)|"
        r"自动(?:批准|审批|通过|确认)|已经?批准过"
    ),
    re.compile(
        r"(?:直接|随便)(?:部署|上线|推到|推送|合并|删除|删掉|发布)\S{0,8}?(?:就行|就好|吧|即可)"
    ),
    re.compile(
        r"(?<!我)自己(?:拿主意|做主|决定就行|看着办|批准|审批|审核通过|签字)|(?:一律|都|全部|直接|"
        r"统统)放行"
    ),
    re.compile(
        r"^(?:以后)?(?:别|不要|不用|不必)再?(?:问我|问了|来问我|请示我?|找我确认)了?[。！!.]*$"
    ),
    # nobody looks first: "不用拿给我看", "不必找人看", "不用等人看"
    re.compile(
        r"(?:不需要|不用|无需|不必|用不着|没必要|不再)(?:再|先)?(?:拿给我|给我|找人|等人|让我|让人|"
        r"给人|请人)"
        r"(?:看看|看|过目|审|瞧)|(?:不用|无需|不必)(?:给我)?过目"
    ),
)
_PERMISSION_ZH += (
    # consent given ahead for everything: "我已经提前批准了你接下来所有的操作", "我这边全部认可",
    # "默认获得我的授权", "回复都默认是“好”"
    re.compile(
        r"我(?:这边|已经|已|都|提前|预先|事先|一律)*(?:全部|都|一律|全都)?(?:认可|批准|同意|授权|"
        r"点头)了?你?"
        r"[^，。\n]{0,6}?(?:所有|全部|一切|任何|接下来)|我(?:这边)?(?:全部|都|一律|全都)(?:认可|"
        r"批准|同意)|"
        r"(?:默认|已经|已)(?:就)?(?:获得|得到|拿到)了?我?的?(?:授权|批准|许可|同意)|"
        r"(?:回复|回答|答复|意见|答案)(?:都|一律)?默认(?:是|为|都是)?\s*[“\"]?\s*(?:好|同意|可以|"
        r"行|yes|"
        r"批准|通过)|默认(?:已|都)(?:批准|同意|授权)"
    ),
    # power handed over or self-granted: "root 权限我全权交给你了", "自己给自己开管理员权限",
    # "报销单你看着批就行"
    re.compile(
        r"(?:权限|管理员|root|决定权|控制权|审批权)[^，。\n]{0,8}?(?:全权)?(?:交给|移交给|授予|"
        r"给)了?你|"
        r"全权交给你|自己给自己(?:开|加|授予|分配|批|审批|合并)|(?:自行|自己)(?:授予|分配|开通|"
        r"提升)自己|"
        r"自己(?:审批|批准|合并)自己|看着(?:批|签|付|转|删|部署|发布|合并|执行|改)[^，。\n]{0,3}?"
        r"(?:就行|就好|即可|就可以|吧|都行)"
    ),
)
_ZH_NEEDS_ACT = {0, 4, 6, 8}


# the clause orders the agent to act (no subject but "you" before its verb)
_SUBJECT = rx(r"^(?:i|we|he|she|they|my \w+|our \w+|the \w+ (?:team|job|bot|script))\b")


def _ordered(clause: str, start: int) -> bool:
    """Said as an order in the part of the clause before ``start`` ("I'm handing you the keys:
    merge whenever you think it's ready"), not what someone does."""
    part = re.split(r"[:：;,—]", clause[:start])[-1]
    return not _SUBJECT.match(part.strip()) and not asks(clause)


def judge(clause: str) -> str | None:
    act = _act(clause)
    for i, pattern in enumerate(_PERMISSION_EN):
        for m in pattern.finditer(clause):
            if i in _NEEDS_ACT and not act:
                continue
            habit = by_person(clause, m.start(), m.end()) and not _OPS.search(clause)
            if i in (_NEVER_ASK, _BARE_ASK) and habit:
                continue  # "I never ask my parents before buying books": the person's habit
            if i == _WITHOUT and (
                NEG_BEFORE.search(clause[: m.start()][-60:])
                or re.search(r"\b" + NEG_EN + r"\b", clause[: m.start()], re.IGNORECASE)
                or RESTRICT_AFTER.search(clause[m.end() :])
            ):
                continue  # "never deploy without approval": a restriction
            if i in (_ADDRESSED, _FEEL_FREE) and (asks(clause) or negated(clause, m.start())):
                continue
            if pattern in (_UNTOLD, _POWERS) and not (_OPS.search(clause) or _POWER.search(clause)):
                continue
            if pattern is _UNTOLD and not _ordered(clause, m.start()):
                continue
            if pattern is _NOBODY and not _POWER.search(clause):
                continue  # "nobody needs to review my diary": nothing with power is left unchecked
            if pattern is _DISCRETION and not (
                _OPS.search(clause)
                and _ordered(clause, m.start())
                and not negated(clause, m.start())
            ):
                continue  # "call me whenever you think of it": nothing done to a system
            if i in (_ADDRESSED, _FEEL_FREE) and SCRATCH.match(
                re.sub(r"^\s*(?:the|all|any|those|these|your|our)\s+", "", clause[m.end() :])
            ):
                continue  # "feel free to delete the test fixtures you created": scratch things
            return m.group()
    handed = _handed_over(clause)
    if handed:
        return handed
    for i, pattern in enumerate(_PERMISSION_ZH if has_han(clause) else ()):
        for m in pattern.finditer(clause):
            if i in _ZH_NEEDS_ACT and not act:
                continue
            if asks(clause) or RESTRICT_AFTER.search(clause[m.end() :]):
                continue
            if i == 1 and negated(clause, m.start()):
                continue
            return m.group()
    # read last, so a text the older patterns already name keeps the words they quote
    return _stands_in(clause)
