"""Chat-history import at scale (issue 24): a generated export of each format, imported into a
fresh store, timed; then the same import again (what a resumed or repeated run costs).

Protocol:

* Data: generated here, never real chats and never LoCoMo. ``--conversations`` conversations
  (default 1,000) of ``--turns`` exchanges (default 5: ten messages each, so 10,000 messages),
  seeded (``--seed``). A person's message is, at random, a stated preference, a project fact,
  an explicit "remember that …", an identity line, or small talk / a question (about half) —
  names are invented syllables, so no two statements collide by accident; one conversation in
  ten repeats a statement of an earlier one (an import must merge it, not double it), and one in
  ten has a regenerated answer (a second branch in ChatGPT's tree, which must be left out).
* The same conversations are written in each format's shape: ChatGPT ``conversations.json``,
  Claude ``conversations.json``, Claude Code project ``*.jsonl``, Codex rollouts, generic JSONL;
  and a generated vault of Markdown notes (``markdown``: one note per conversation, a third in
  memdir's own format, the rest plain notes with Obsidian frontmatter, ``[[links]]`` and tags).
* Bad input rides along (``--bad-every``, default 50): every 50th conversation comes with a
  malformed part — a junk entry in a JSON export, a torn line in a JSONL transcript, a note that
  is not UTF-8 — which must be counted in *skipped*, never stop the import.
* ``--fixtures`` first runs each importer on its hand-written fixture (tests/fixtures/imports/)
  and gives the same counts.
  ``--formats`` picks them (default all); ``--small`` imports the other formats at a fifth of
  the size, to keep the run short on a small machine.
* Each format is imported into its own fresh temporary home with the offline rules, through the
  same code the CLI runs (``import_conversations``); the table gives wall time, conversations,
  messages, memories proposed/stored/merged/refused, and the time of the second run (every
  conversation checkpointed: nothing stored).

``python bench/import.py`` prints the table and writes ``bench/results/import.md``.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from provenance import provenance

from memdir import Memory
from memdir.portable.chats import import_conversations
from memdir.portable.importers import reader
from memdir.portable.importers.markdown import import_notes

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "imports"
FIXTURE_PATHS = {
    "chatgpt": FIXTURES / "chatgpt" / "conversations.json",
    "claude": FIXTURES / "claude" / "conversations.json",
    "claude-code": FIXTURES / "claude-code" / "projects",
    "codex": FIXTURES / "codex" / "sessions",
    "jsonl": FIXTURES / "jsonl" / "messages.jsonl",
    "markdown": FIXTURES / "vault",
}
SYLLABLES = "ka lo mi ne ru sa ti vo xe zu bra cle dro fli gru".split()


def _word(rng: random.Random) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(3)).capitalize()


def _said(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.15:
        return f"I prefer {_word(rng)} over {_word(rng)} for {_word(rng).lower()} work."
    if roll < 0.28:
        return f"We use {_word(rng)} {rng.randint(2, 19)} for the {_word(rng).lower()} service."
    if roll < 0.38:
        return f"Remember that the {_word(rng).lower()} server is {_word(rng).lower()}.internal."
    if roll < 0.45:
        return f"I am a {_word(rng).lower()} engineer at {_word(rng)}."
    return rng.choice(
        [
            f"Can you explain how {_word(rng)} works?",
            "Thanks, that helps a lot.",
            f"What would you do about {_word(rng)} in production?",
            f"Write a short summary of {_word(rng)} for my team.",
            "Hmm, interesting. Go on.",
        ]
    )


def conversations(n: int, turns: int, seed: int, bad_every: int = 0) -> list[dict[str, Any]]:
    """Format-neutral conversations: ``{id, title, messages: [(role, text)], branch, bad}``."""
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    for c in range(n):
        messages = []
        for _ in range(turns):
            messages.append(("user", _said(rng)))
            messages.append(("assistant", f"Here is what I think about {_word(rng)}."))
        if c and rng.random() < 0.1:  # a statement said again in a later conversation
            earlier = rng.choice(out)["messages"]
            messages[0] = next((m for m in earlier if m[0] == "user"), messages[0])
        out.append(
            {
                "id": f"conv-{c:05d}",
                "title": f"chat {c}",
                "messages": messages,
                "branch": rng.random() < 0.1,
                "bad": bool(bad_every) and c % bad_every == bad_every - 1,
            }
        )
    return out


def _chatgpt(convs: list[dict[str, Any]], path: Path) -> Path:
    items = []
    for conv in convs:
        mapping: dict[str, Any] = {
            "r": {"id": "r", "message": None, "parent": None, "children": []}
        }
        parent = "r"
        for k, (role, text) in enumerate(conv["messages"]):
            node = f"{conv['id']}-{k}"
            msg = {
                "id": node,
                "author": {"role": role},
                "create_time": 1.75e9 + k,
                "content": {"content_type": "text", "parts": [text]},
                "metadata": {},
            }
            mapping[node] = {"id": node, "message": msg, "parent": parent, "children": []}
            mapping[parent]["children"].append(node)
            parent = node
        if conv["branch"]:  # a regenerated answer the person moved away from
            alt = f"{conv['id']}-alt"
            first = f"{conv['id']}-0"
            msg = {
                "id": alt,
                "author": {"role": "user"},
                "create_time": 1.75e9,
                "content": {"content_type": "text", "parts": ["I prefer Abandoned over Branch."]},
            }
            mapping[alt] = {"id": alt, "message": msg, "parent": first, "children": []}
            mapping[first]["children"].append(alt)
        items.append(
            {"id": conv["id"], "title": conv["title"], "mapping": mapping, "current_node": parent}
        )
    items += [{"title": "an entry cut short"} for c in convs if c["bad"]]
    out = path / "conversations.json"
    out.write_text(json.dumps(items), encoding="utf-8")
    return out


def _claude(convs: list[dict[str, Any]], path: Path) -> Path:
    items = [
        {
            "uuid": c["id"],
            "name": c["title"],
            "chat_messages": [
                {
                    "uuid": f"{c['id']}-{k}",
                    "sender": "human" if r == "user" else "assistant",
                    "text": t,
                    "content": [{"type": "text", "text": t}],
                    "created_at": "2025-06-01T00:00:00Z",
                    "attachments": [],
                    "files": [],
                }
                for k, (r, t) in enumerate(c["messages"])
            ],
        }
        for c in convs
    ]
    items += [{"name": "an entry cut short"} for c in convs if c["bad"]]
    out = path / "claude.json"
    out.write_text(json.dumps(items), encoding="utf-8")
    return out


def _lines(folder: Path, convs: list[dict[str, Any]], shape: str) -> Path:
    folder.mkdir(parents=True)
    for c in convs:
        rows: list[dict[str, Any]] = []
        if shape == "codex":
            rows.append(
                {
                    "timestamp": "2025-06-01T00:00:00Z",
                    "type": "session_meta",
                    "payload": {"id": c["id"], "cwd": "/work"},
                }
            )
        for k, (role, text) in enumerate(c["messages"]):
            if shape == "codex":
                kind = "input_text" if role == "user" else "output_text"
                rows.append(
                    {
                        "timestamp": "2025-06-01T00:00:01Z",
                        "type": "response_item",
                        "payload": {
                            "type": "message",
                            "role": role,
                            "content": [{"type": kind, "text": text}],
                        },
                    }
                )
            elif shape == "claude-code":
                rows.append(
                    {
                        "type": role,
                        "sessionId": c["id"],
                        "uuid": f"{c['id']}-{k}",
                        "parentUuid": None,
                        "timestamp": "2025-06-01T00:00:01Z",
                        "message": {"role": role, "content": text},
                    }
                )
            else:
                rows.append({"conversation": c["id"], "id": k, "role": role, "content": text})
        name = f"rollout-{c['id']}.jsonl" if shape == "codex" else f"{c['id']}.jsonl"
        text = "".join(json.dumps(r) + "\n" for r in rows)
        if c["bad"]:  # a line torn by a crash, in the middle of the transcript
            cut = text.index("\n") + 1
            text = text[:cut] + '{"type": "user", "mess\n' + text[cut:]
        (folder / name).write_text(text, "utf-8")
    return folder


def _vault(folder: Path, convs: list[dict[str, Any]]) -> Path:
    """One note per conversation: the person's lines as the note's body."""
    folder.mkdir(parents=True)
    for k, c in enumerate(convs):
        said = [t for r, t in c["messages"] if r == "user"]
        if k % 3 == 0:  # memdir's own format (as Claude Code's auto-memory writes it)
            text = (
                f"---\nname: note-{c['id']}\ndescription: {said[0]}\ntype: user\n---\n"
                f"{said[0]}\n\n**Why:** said in {c['title']}.\n"
            )
        else:
            body = "\n".join(f"- {t} [[{c['title']}]]" for t in said)
            head = f"---\ntags: [imported, bench]\naliases: [{c['title']!r}]\n---\n"
            text = f"{head}# {c['title']}\n\n{body}\n"
        path = folder / f"{c['id']}.md"
        path.write_text(text, encoding="utf-8")
        if c["bad"]:
            (folder / f"{c['id']}-broken.md").write_bytes(b"---\ntags: [x]\n---\n\xff\xfe\n")
    return folder


def write_export(fmt: str, convs: list[dict[str, Any]], where: Path) -> Path:
    where.mkdir(parents=True, exist_ok=True)
    if fmt == "chatgpt":
        return _chatgpt(convs, where)
    if fmt == "claude":
        return _claude(convs, where)
    if fmt == "markdown":
        return _vault(where / "vault", convs)
    return _lines(where / fmt, convs, fmt)


def _import(memory: Memory, fmt: str, source: Path) -> Any:
    if fmt == "markdown":
        return import_notes(memory, source)
    return import_conversations(memory, reader(fmt)(source), source=source, fmt=fmt)


def run_one(
    fmt: str, convs: list[dict[str, Any]] | None, tmp: Path, source: Path | None = None
) -> dict[str, Any]:
    """One format into a fresh home: ``convs`` generated, or the fixture at ``source``."""
    if source is None:
        assert convs is not None
        source = write_export(fmt, convs, tmp / "export")
    (tmp / "project" / ".git").mkdir(parents=True)
    memory = Memory(home=tmp / "home", project=tmp / "project", embedder="hashing")
    start = time.perf_counter()
    report = _import(memory, fmt, source)
    first = time.perf_counter() - start
    start = time.perf_counter()
    again = _import(memory, fmt, source)
    second = time.perf_counter() - start
    files = sum(len(memory.store(s).memory_names()) for s in memory.scopes())
    return {
        "format": fmt,
        "seconds": first,
        "again_seconds": second,
        "files": files,
        "again_stored": again.stored,
        "skipped": len(report.skipped),
        "skipped_why": sorted({s.reason for s in report.skipped})[:4],
        **{
            k: getattr(report, k)
            for k in ("conversations", "messages", "proposed", "stored", "merged", "refused")
        },
    }


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--conversations", type=int, default=1000)
    ap.add_argument("--turns", type=int, default=5)
    ap.add_argument("--seed", type=int, default=24)
    ap.add_argument("--formats", default="chatgpt,claude,claude-code,codex,jsonl,markdown")
    ap.add_argument("--small", action="store_true", help="other formats at a fifth of the size")
    ap.add_argument("--bad-every", type=int, default=50, help="a malformed part every N")
    ap.add_argument("--fixtures", action="store_true", help="each importer on its fixture first")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "import.md")
    args = ap.parse_args(argv)
    formats = args.formats.split(",")
    fixtures = []
    for fmt in formats if args.fixtures else []:
        with tempfile.TemporaryDirectory(prefix="memdir-import-bench-") as tmp:
            fixtures.append(run_one(fmt, None, Path(tmp), FIXTURE_PATHS[fmt]))
        print(json.dumps(fixtures[-1]), file=sys.stderr)
    rows = []
    for position, fmt in enumerate(formats):
        n = args.conversations if position == 0 or not args.small else args.conversations // 5
        convs = conversations(n, args.turns, args.seed, args.bad_every)
        with tempfile.TemporaryDirectory(prefix="memdir-import-bench-") as tmp:
            rows.append(run_one(fmt, convs, Path(tmp)))
        print(json.dumps(rows[-1]), file=sys.stderr)
    lines = ["# Chat import at scale (issue 24)", "", *provenance(["bench/import.py", *argv]), ""]
    if fixtures:
        lines += [
            "## Each importer on its fixture (tests/fixtures/imports/)",
            "",
            "| format | conversations | messages | proposed | stored | merged | refused "
            "| skipped | why skipped | again stored |",
            "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |",
        ]
        for r in fixtures:
            lines.append(
                f"| {r['format']} | {r['conversations']} | {r['messages']} | {r['proposed']} "
                f"| {r['stored']} | {r['merged']} | {r['refused']} | {r['skipped']} "
                f"| {'; '.join(r['skipped_why'])} | {r['again_stored']} |"
            )
        lines += ["", "## Generated exports", ""]
    lines += [
        "Generated exports (seeded, invented names; no real chats), offline rules, embedder "
        "`hashing`; each format into a fresh home. *again*: the same import run a second time. "
        f"*skipped*: the malformed parts planted (one every {args.bad_every} conversations) and "
        "any other, each counted with its reason. For `markdown`, *conversations* are notes.",
        "",
        "| format | conversations | messages | time | msg/s | proposed | stored | merged "
        "| refused | skipped | files | again | again stored |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
        "| ---: |",
    ]
    for r in rows:
        lines.append(
            f"| {r['format']} | {r['conversations']:,} | {r['messages']:,} | {r['seconds']:.1f} s "
            f"| {r['messages'] / max(r['seconds'], 1e-9):,.0f} | {r['proposed']:,} "
            f"| {r['stored']:,} "
            f"| {r['merged']:,} | {r['refused']:,} | {r['skipped']:,} | {r['files']:,} "
            f"| {r['again_seconds']:.1f} s "
            f"| {r['again_stored']} |"
        )
    text = "\n".join(lines) + "\n"
    print(text)
    args.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
