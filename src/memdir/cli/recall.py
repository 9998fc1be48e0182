"""Commands over the search index: recall and reindex."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from ..records import TYPES
from .app import ProgressBar, as_scope, cli, emit_json, json_option, memory

if TYPE_CHECKING:
    from ..recall import Hit

SIGNALS = ("keyword", "vector", "entity", "time", "session", "session_text")
PRIORS = ("recency", "importance", "strength", "source", "confidence")
CALIBRATED = (
    "vector_z",
    "keyword_sat",
    "translated_sat",
    "entity",
    "signal",
    "concept",
    "names_missing",
    "store_z",
    "type_missing",
)


_ASKS = {"amount": "a number or amount", "person": "a person", "place": "a place",
         "secret": "a secret", "time": "a time or date"}  # fmt: skip


def _asks_line(explain: dict[str, float], asks: frozenset[str]) -> list[str]:
    """What ``type_missing`` held against a hit, in words."""
    if not (explain.get("type_missing") and asks):
        return []
    wanted = " or ".join(_ASKS.get(k, k) for k in sorted(asks))
    weight = explain.get("calibrated_type_missing", 0.0)
    return [f"      the question asks for {wanted}; this memory states none ({weight:+.2f})"]


def _explain_lines(explain: dict[str, float]) -> list[str]:
    translated = (
        f" + translated bm25 {explain['translated_bm25']:.3g}"
        if explain.get("translated_bm25")
        else ""
    )
    centred = "language-centred, " if explain.get("vector_centred") else ""
    if explain.get("vector_context"):
        centred += f"{explain['vector_context']:.0%} in its session context, "
    raw = (
        f"keyword bm25 {explain['keyword_bm25']:.3g}{translated} "
        f"(norm {explain['keyword_norm']:.2f}) · "
        f"vector cos {explain['vector_cosine']:.3f} ({centred}norm {explain['vector_norm']:.2f}) · "
        f"entity {explain['entity_match']:.2f} · time {explain['time_match']:.0f}"
    )
    parts = " + ".join(f"{s} {explain[f'{s}_part']:.3f}" for s in SIGNALS)
    calibrated = " ".join(f"{c} {explain[f'calibrated_{c}']:+.2f}" for c in CALIBRATED)
    priors = " ".join(f"{p} {explain[f'{p}_part']:+.3f}" for p in PRIORS)
    return [
        f"      {raw} · vector z {explain['vector_z']:.2f}",
        f"      relevance {explain['relevance']:.3f} = {parts}",
        f"      score {explain['final']:.3f} = σ(logit {explain['logit']:.2f} = bias "
        f"{explain['calibrated_bias']:+.2f} {calibrated} {priors})",
    ]


@cli.command()
@click.argument("query")
@click.option("--scope", type=click.Choice(["user", "project"]), help="Only this scope.")
@click.option("--type", "types", multiple=True, type=click.Choice(TYPES), help="Only this type.")
@click.option("--tag", "tags", multiple=True, help="Only memories with this tag (repeatable).")
@click.option("--since", help="Only memories created since: 2026-01-31, 7d, 12h, 2w.")
@click.option("--until", help="Only memories created until (same forms as --since).")
@click.option("--top-k", "top_k", type=click.IntRange(1, 100), default=5, show_default=True)
@click.option("--explain", is_flag=True, help="Show every signal and weight per result.")
@click.option(
    "--min-score",
    "min_score",
    type=click.FloatRange(0.0, 1.0),
    default=None,
    help="Return nothing scoring below this calibrated relevance (default: the floor fitted for "
    "the default embedder, see docs/recall.md; 0 returns every candidate).",
)
@click.option("--archived", is_flag=True, help="Search the archived memories instead (sleep).")
@click.option(
    "--as-of",
    "as_of",
    help="What held then (2026-03-01): superseded memories still valid at that date, none "
    "created later (issue 22).",
)
@click.option("--kind", type=click.Choice(["memory", "knowledge"]), help="Only this kind.")
@json_option
@click.pass_context
def recall(
    ctx: click.Context,
    query: str,
    scope: str | None,
    types: tuple[str, ...],
    tags: tuple[str, ...],
    since: str | None,
    until: str | None,
    top_k: int,
    explain: bool,
    min_score: float | None,
    archived: bool,
    as_of: str | None,
    as_json: bool,
    kind: str | None = None,
) -> None:
    """Find the memories that best answer QUERY (keywords + meaning + entities)."""
    m = memory(ctx)
    chosen = as_scope(scope)
    scopes = [chosen] if chosen else None
    if as_of is not None:
        held = m.recall_as_of(query, as_of, top_k=top_k, scopes=scopes)
        if as_json:
            emit_json([h.to_dict() for h in held])
            return
        _print_hits(held, False)
        if not held:
            click.echo(f"Nothing found that held on {as_of}.")
        return
    search = m.recall_archived if archived else m.recall
    if not archived:  # after a bulk write the first recall embeds it all: show that happening
        bar = ProgressBar("embedding new memories", enabled=not as_json)
        try:
            m.reindex(scope=chosen, progress=bar)
        finally:
            bar.close()
    floor = {} if archived else {"min_score": min_score}
    found = search(
        query,
        top_k=top_k if not kind else 100,  # the kind is filtered below: look wider first
        scopes=scopes,
        types=types,
        tags=tags,
        since=since,
        until=until,
        explain=True,
        **floor,
    )
    if kind:
        found = [h for h in found if h.record.kind == kind]
        found = [h for h in found if not h.below_min_score][:top_k] + [
            h for h in found if h.below_min_score
        ]
    hits = [h for h in found if not h.below_min_score]
    cut = [h for h in found if h.below_min_score] if explain else []
    if as_json:
        emit_json([h.to_dict(explain=explain) for h in hits + cut])
        return
    asks: frozenset[str] = frozenset()
    if explain:
        from ..index.answers import question_types  # only for --explain: a cold CLI imports less

        asks = question_types(query)
    _print_hits(hits, explain, asks)
    from ..recall import MIN_SCORE  # here, not at import: `memdir --help` loads no numpy

    if not hits:
        shown = MIN_SCORE if min_score is None else min_score
        why = f"below min-score {shown:g}" if found else "no memory matches"
        click.echo(f"Nothing found ({why}; --min-score 0 returns every candidate).")
    if cut:
        click.echo(
            f"Below min-score {cut[0].explain.get('min_score', MIN_SCORE):g} (not returned):"
        )
        _print_hits(cut, explain, asks)


def _print_hits(hits: list[Hit], explain: bool, asks: frozenset[str] = frozenset()) -> None:
    for rank, hit in enumerate(hits, 1):
        rec = hit.record
        click.echo(f"{rank}. {hit.score:.3f}  {rec.name}  ({rec.type}, {rec.scope})")
        click.echo(f"   {rec.description}")
        if explain:
            for line in _explain_lines(dict(hit.explain)) + _asks_line(dict(hit.explain), asks):
                click.echo(line)


@cli.command()
@click.option("--scope", type=click.Choice(["user", "project"]), help="Only this scope.")
@click.option("--rebuild", is_flag=True, help="Drop the index first (it is rebuilt from files).")
@click.option(
    "--verify",
    is_flag=True,
    help="Sync, then check the index against the files; exit 1 on a difference.",
)
@json_option
@click.pass_context
def reindex(
    ctx: click.Context, scope: str | None, rebuild: bool, verify: bool, as_json: bool
) -> None:
    """Bring the search index up to date with the memory files (embedding what changed)."""
    m = memory(ctx)
    if verify:
        problems = m.verify_index(scope=as_scope(scope))
        if as_json:
            emit_json(problems)
        else:
            click.echo("\n".join(problems) if problems else "The index matches the files.")
        ctx.exit(1 if problems else 0)
    bar = ProgressBar("embedding", enabled=not as_json)
    try:
        reports = m.reindex(scope=as_scope(scope), rebuild=rebuild, progress=bar)
    finally:
        bar.close()
    stats = {s: m.index(s).stats() for s in reports}
    if as_json:
        emit_json({s: {**vars(r), **stats[s]} for s, r in reports.items()})
        return
    for s, r in reports.items():
        st = stats[s]
        click.echo(
            f"{s:<8} {st['docs']} memories ({st['context_vectors']} with a session context) · "
            f"+{r.added} ~{r.updated} -{r.removed} · "
            f"{r.embedded} texts embedded with {st['embedder']}"
            + (f" ({r.composed} session contexts composed from them)" if r.composed else "")
            + f" · {r.skipped} unreadable skipped"
        )
