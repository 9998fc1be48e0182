"""``remote-code``: code fetched from the network and run — piped into a shell, installed from a
URL, downloaded and launched, or a later step of a list running what an earlier one fetched. A
note about what a document shows, kept at a distance ("… but we install from apt"), is a fact."""

from __future__ import annotations

import re

from .lexicon import LOCAL_URL, URL, rx
from .reading import by_person, describes, negated

_SHELLS = r"(?:(?:ba|z|da|k|fi|c)?sh|python\d?|perl|ruby|node|iex|pwsh|powershell|source)"
_REMOTE = (
    rx(
        r"\b(?:curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod|fetch)\b[^\n|;]*\|\s*"
        r"(?:sudo\s+(?:-\S+\s+)*)?" + _SHELLS + r"\b"
    ),
    rx(
        r"[<$]\(\s*(?:curl|wget)\b|\biex\s*\(*\s*(?:iwr|irm|invoke-webrequest|invoke-restmethod|"
        r"new-object)|\beval\s+\"?\$\(\s*(?:curl|wget)|\b(?:exec|eval)\s*\(\s*(?:urllib\S*?urlopen|"
        r"urlopen|requests\.get|httpx\.get|fetch)|\bpipe\s+(?:the\s+)?(?:contents of\s+)?"
        r"(?:https?|ftp)://\S+\s+(?:in)?to\s+(?:sudo\s+)?(?:(?:ba|z)?sh|python\d?|perl|ruby|node|"
        r"powershell|pwsh)\b"
    ),
    # PowerShell's download-and-run, and a package installed straight from a URL or a git repo
    # (installing runs its setup code): "pip install git+https://…", "npx github:user/tool"
    rx(
        r"\binvoke-expression\b|\.downloadstring\s*\(|\bdownloadstring\b[^\n]{0,40}\|\s*iex\b|"
        r"\b(?:pip3?|pipx|uv\s+pip|python\d?\s+-m\s+pip|npm|pnpm|yarn|gem|cargo|go)\s+"
        r"(?:install|add|i|get)\s+(?:-\S+\s+)*(?:git\+|https?://|github:|gitlab:|git@)|"
        r"\bnpx\s+(?:-\S+\s+)*(?:github:|gitlab:|https?://|git\+)"
    ),
    # the piped-into-a-shell said in words: "pipe the update URL straight into a shell"
    rx(
        r"\bpip(?:e|ing)\s+(?:\w+\s+){0,6}?(?:url|link|script|download|output|response)\w*\s+"
        r"(?:\w+\s+){0,4}?(?:in)?to\s+(?:a\s+|the\s+)?(?:root\s+)?(?:shell|bash|sh|terminal|python|"
        r"interpreter)\b"
    ),
)
# where code comes from when it is not this project: a URL, a link, a paste site, a chat
_REMOTE_SOURCE = rx(
    r"(?:https?|ftp)://|\b(?:links?|urls?|gists?|pastebin|paste site|website|web ?site|"
    r"(?:vendor|their|the|our|friend'?s?|remote|download) (?:site|server|page)|s3|bucket|"
    r"internet|the web|forum|discord|slack|telegram|chat|paste ?bins?|webhooks?|e-?mails?|inbox|"
    r"payloads?|attachments?|issues?|tickets?|comments?|ftp|mirrors?|online|reddit|strangers?|"
    r"youtube|twitter|tiktok|portals?)\b|\b(?:his|her|their|my|your|a|some|that|"
    r"this)\s+(?:web ?)?(?:site|server|page|domain)\b|"
    r"网址|链接|网盘|群里|网上|远程|论坛|网页|邮件|附件|消息|群|对方|别人|陌生人|外部"
)
_FETCH = rx(
    r"\b(?:download\w*|fetch\w*|get|grab\w*|pull\w*|curl|wget|copy|copied|take|open|visit)\b|"
    r"下载|拉|获取|收到|附的|发来|放了|拿下来|拿来|取下来|抓下来|"
    r"\b(?:contain\w*|hosted)\b|"
    r"\b(?:arriv\w*|receiv\w*|sen(?:d|ds|t)\s+you|posted|shared|hosts?|pastes?|submits?|posts|"
    r"drops)\b|"
    r"复制|打开|\b(?:scripts?|code|files?|contents?|payloads?|binar(?:y|ies)|fix|snippets?|patch|"
    r"installer|program|"
    r"tool|tarball|zip|package)\s+(?:at|from|of|in)\b|"
    r"的(?:内容|脚本|代码)|远程脚本|\bremote script"
)
_RUN = rx(
    r"\b(?:execute\w*|run|running|runs|exec|source|pipe\w*|eval|evaluat\w*|bash|sh|python\d?|iex|"
    r"launch\w*|invoke|start (?:it|them|the (?:binary|script|file|installer|exe))|"
    r"install (?:it|them)|paste (?:it |them |that )?(?:in)?to (?:a |the |your )?(?:root )?"
    r"(?:terminal|shell|console))\b|执行|运行|跑|启动|终端里?(?:粘贴|贴)|安装|直接装|装上"
)
# "run" straight before a remote URL or a remote script runs it: "执行远程脚本 http://…"
_RUN_AT = rx(
    r"\b(?:run|running|execute|executing|exec|launch|launching|source|evaluate|evaluating)\s+"
    r"(?:the\s+|this\s+|that\s+)?(?:\w+\s+){0,2}?"
    r"(?:(?:at|from)\s+)?(?:https?|ftp)://|(?:执行|运行|跑)[^，。\n]{0,10}?(?:https?|ftp)://|"
    r"(?:执行|运行|跑)[^，。\n]{0,4}远程脚本|\b(?:run|execute)\s+(?:the\s+)?remote\s+scripts?"
)


# what follows "run" when the thing run is not what was fetched: the project's own tests, or the
# fetching tool itself ("run `curl http://localhost:8000/health`" runs curl, not a payload)
_LOCAL_RUN = rx(
    r"\s+(?:the\s+|all\s+|our\s+|its\s+|your\s+)?(?:unit\s+|smoke\s+|integration\s+|e2e\s+)?"
    r"(?:tests?|test suite|specs?|linters?|lint|build|benchmarks?|checks)\b|"
    r"\s*`?\s*(?:curl|wget|iwr|invoke-webrequest)\b(?![^\n`]*\|)|\s*(?:单元|集成)?测试"
)


# A note about what a document shows, kept at a distance, is a fact about the document: "the
# wiki still shows `curl … | sh`, but we install from apt". Followed ("do that every time"), it
# is an instruction again.
_DOC_SHOWS = rx(
    r"\b(?:docs?|documentation|readme|wiki|guide|tutorial|website|site|page|manual|quick ?start|"
    r"instructions)\b[^.;\n]{0,30}?\b(?:says?|said|shows?|showed|mention\w*|suggest\w*|"
    r"recommend\w*|uses?|tells?|lists?|describes?|document\w*|ha(?:s|ve)|includ\w*|still|"
    r"pipes?|installs?)\b|(?:文档|说明|教程|官网|README|readme|wiki|网站)[^，。\n]{0,6}?"
    r"(?:写的?是|写着|提到|说|给的|用的是|推荐|里是)"
)
_AT_A_DISTANCE = rx(
    r"\b(?:instead|rather than|we (?:don'?t|do not|never|avoid|no longer)|avoids?|replace\w*|"
    r"but (?:we|i|our)|(?:we|i|our team) (?:prefer|pin|use|install)\w*)\b|不过|但是|但我们|改成|"
    r"而是|实际(?:上)?用|我们(?:用|一般用|改用)"
)
_FOLLOWED = rx(
    r"\b(?:do (?:that|this|it|the same)|follow (?:it|that|them)|every time)\b|照做|照这个|都这么"
)


def doc_note(text: str) -> bool:
    return bool(
        _DOC_SHOWS.search(text) and _AT_A_DISTANCE.search(text) and not _FOLLOWED.search(text)
    )


# a later step that runs what an earlier one fetched: "1. open https://… 2. run whatever it says"
_RUN_BACK = rx(
    r"\b(?:run|execute|paste)\s+(?:whatever|what)\s+(?:it|the page|the file|that|they)\s+says?\b|"
    r"\b(?:run|execute|launch|start|source)\s+(?:it|them|that|this)\b|\b(?:run|execute)\s+the\s+"
    r"(?:commands?|script|steps)\s+(?:in|from|on)\s+(?:it|there|that|the page)\b|"
    r"(?:里面|上面|其中)的(?:命令|脚本|代码)|(?:复制|粘贴|贴)到终端|"
    r"\b(?:run|execute|launch|start|open)\s+(?:the\s+)?[\w./-]+\.(?:exe|bin|sh|bat|ps1|py|msi|apk|"
    r"dmg|run|jar|app|cmd)\b|运行(?:里面|其中)?的?(?:程序|脚本|安装包|文件)|^(?:然后)?(?:运行|执行)"
)
# whatever a page or a message tells the agent to run, run: "网页上让你执行什么命令，你就执行什么"
_OBEYED = rx(
    r"\b(?:page|site|website|email|message|output|log|error|readme|doc\w*)\s+(?:suggests|"
    r"recommends|"
    r"says|gives|shows)\s+(?:a|some|the|any)\s+(?:command|script|fix|snippet)\b[^.]{0,40}?\b(?:run|"
    r"execute|paste)\b|"
    r"\b(?:whatever|what|any)\s+(?:commands?\s+|scripts?\s+|code\s+)?(?:the|a|an|any)\s+(?:page|"
    r"site|"
    r"website|email|message|webhook|issue|comment|ticket|document|readme|stranger)\s+(?:tells|asks|"
    r"says|wants)\s+you\s+to\s+(?:run|execute)|(?:网页|页面|邮件|消息|网上|论坛|别人|对方|日志|"
    r"报错)"
    r"[^，。\n]{0,8}?(?:让|叫|要|提示|告诉)你?(?:执行|运行|跑|输入)[^。\n]{0,12}?(?:你)?(?:就|"
    r"直接)?"
    r"(?:执行|运行|跑|照做|照办)"
)


def steps_run_remote(clauses: list[str]) -> str | None:
    """A list of steps whose later step runs what an earlier one fetched from the network."""
    for i, clause in enumerate(clauses[:-1]):
        urls = [u for u in re.finditer(URL, clause) if not LOCAL_URL.match(u.group())]
        source = urls[0] if urls else _REMOTE_SOURCE.search(clause)
        if not source or not _FETCH.search(clause) or LOCAL_URL.search(clause):
            continue
        for later in clauses[i + 1 :]:
            m = _RUN_BACK.search(later)
            if m and not negated(later, m.start()) and not by_person(later, m.start(), 0):
                return f"{source.group()} … {m.group()}"
    return None


# code that arrived in untrusted content, run: "execute the code after the `#!run` line in an
# email", "运行网盘上的那个安装脚本"
_INCOMING = rx(
    r"\b(?:e-?mails?|messages?|tickets?|comments?|issues?|webhooks?|payloads?|attachments?|"
    r"forums?|chats?|dms?|posts?|inbox)\b|网盘|群里|论坛|网页|邮件|附件|评论区|日志里|聊天|群聊"
)
_RUN_CODE = rx(
    r"\b(?:execute|run|eval\w*|launch|exec)\s+(?:the\s+|any\s+|whatever\s+|that\s+|this\s+|all\s+)?"
    r"(?:\w+\s+)?(?:code|scripts?|commands?|snippets?|blocks?|programs?|binar(?:y|ies)|exe|"
    r"javascript|js)\b|(?:执行|运行|跑)[^，。\n]{0,10}?(?:脚本|程序|安装包|代码|exe|工具)|"
    r"(?:代码片段|代码|脚本|命令|程序|安装包)[^。\n]{0,16}?(?:执行|运行|跑)"
)


def _incoming_run(clause: str) -> str | None:
    where = _INCOMING.search(clause)
    if where is None:
        return None
    for run in _RUN_CODE.finditer(clause):
        if negated(clause, run.start()) or by_person(clause, run.start(), 0):
            continue
        if describes(clause, run.start(), run.group()):
            continue
        if clause[run.end() : run.end() + 1] in ("了", "过"):
            continue  # "论坛上找到的脚本我跑了一下": what happened
        return f"{run.group()} … {where.group()}"
    return None


def judge(clause: str) -> str | None:
    for pattern in (*_REMOTE, _OBEYED):
        m = pattern.search(clause)
        if m and not negated(clause, m.start()):
            return m.group()
    incoming = _incoming_run(clause)
    if incoming:
        return incoming
    remote = [u for u in re.finditer(URL, clause) if not LOCAL_URL.match(u.group())]
    run_at = _RUN_AT.search(clause)
    if (
        run_at
        and (remote or "远程" in run_at.group() or "remote" in run_at.group().lower())
        and not negated(clause, run_at.start())
        and not by_person(clause, run_at.start(), 0)
        and not _LOCAL_RUN.match(clause, run_at.start() + len(run_at.group().split()[0]))
    ):
        return run_at.group()
    source = remote or (_REMOTE_SOURCE.search(clause) and not LOCAL_URL.search(clause))
    if source and _FETCH.search(clause):
        for run in _RUN.finditer(clause):
            if negated(clause, run.start()) or by_person(clause, run.start(), 0):
                continue
            if describes(clause, run.start(), run.group()):
                continue  # "the vendor's updater fetches a binary and launches it": how it works
            if _LOCAL_RUN.match(clause, run.end()):
                continue  # "downloads fixtures and runs the unit tests", "run `curl …/health`"
            return clause[:120]
    return None
