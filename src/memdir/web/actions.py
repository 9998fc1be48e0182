"""The state-changing requests: log in and out, create, edit, rename, forget, undo, confirm or
reject a tentative memory, restore from the archive, apply a reviewed sleep plan and undo a
run. Each is a POST from a form of the page (``auth.check_post``: same Origin and the CSRF
token), goes through the same facade method as every other door — so the guard, the
validation and the change log are the same — and answers with a redirect to the page that
shows the result (post/redirect/get), with a notice and, where there is one, an Undo button.
A refused change (the guard, a bad value, a taken name) is an error page with the message."""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode

from fastapi import APIRouter, Request
from fastapi.responses import Response

from ..errors import ConflictError, ValidationError
from ..memory import Memory
from .auth import COOKIE, Refused, Viewer, check_host, same_origin
from .pages import guarded
from .site import PREFIX, answer_error, form_of, html, redirect, run, state
from .sleep_view import apply_reviewed

__all__ = ["router"]

router = APIRouter(prefix=PREFIX, include_in_schema=False)
EDITABLE = ("statement", "description", "type", "why", "how_to_apply", "importance", "tags")


def _page_of(scope: str, name: str, **notice: str) -> str:
    url = f"{PREFIX}/m/{scope}/{quote(name, safe='')}"
    return f"{url}?{urlencode(notice)}" if notice else url


# -- logging in --------------------------------------------------------------------------
def _logged_in(request: Request, user: str, secret: str) -> Response:
    sid = state(request).sessions.open(user, secret)
    response = redirect(f"{PREFIX}/")
    secure = request.url.scheme == "https"
    response.set_cookie(COOKIE, sid, httponly=True, samesite="strict", path=PREFIX, secure=secure)
    return response


@router.get("/login")
async def login_page(request: Request) -> Response:
    """Local mode: ``?token=`` (once) opens a session. Keys mode: the login form."""
    web = state(request)
    try:
        check_host(request, web.backend)
        token = request.query_params.get("token")
        if web.backend.mode == "local":
            user = web.backend.login(token or "")
            if user is None:
                raise Refused(401, "this link's token is spent or wrong: run `memdir ui` again")
            return _logged_in(request, user, "")
        return html(request, "login.html", None)
    except Refused as exc:
        return answer_error(request, exc)


@router.post("/login")
async def login(request: Request) -> Response:
    web = state(request)
    try:
        check_host(request, web.backend)
        if web.backend.mode != "keys" or not same_origin(request):
            raise Refused(403, "log in from memdir's own login page")
        form = dict(parse_qsl((await request.body()).decode("utf-8")))
        key = form.get("key", "")
        user = await asyncio.to_thread(web.backend.login, key)
        if user is None:
            return html(request, "login.html", None, 401, failed=True)
        return _logged_in(request, user, key.strip())
    except Refused as exc:
        return answer_error(request, exc)


@router.post("/logout")
async def logout(request: Request) -> Response:
    async def act(who: Viewer) -> Response:
        await form_of(request, who)
        state(request).sessions.close(request.cookies.get(COOKIE))
        response = redirect(f"{PREFIX}/login")
        response.delete_cookie(COOKIE, path=PREFIX)
        return response

    return await guarded(request, act)


# -- memories ----------------------------------------------------------------------------
def _fields(form: dict[str, str]) -> dict[str, Any]:
    """The edit form's fields as ``update`` takes them; an empty optional field removes it."""
    fields: dict[str, Any] = {}
    for key in EDITABLE:
        if key not in form:
            continue
        value: Any = form[key].strip()
        if key == "tags":
            value = [t.strip() for t in value.split(",") if t.strip()]
        elif key == "importance":
            if value and not value.isdigit():
                raise ValidationError("importance is a whole number from 1 to 5")
            value = int(value) if value else None
        elif key in ("why", "how_to_apply") and not value:
            value = None
        fields[key] = value
    return fields


def _edit(m: Memory, scope: Any, name: str, form: dict[str, str]) -> str | None:
    current = m.get(name, scope=scope)
    if form.get("hash") and form["hash"] != current.content_hash:
        raise ConflictError(f"{name!r} changed since you opened it: reload the page and redo")
    fields = _fields(form)
    if fields.get("tags") == list(current.tags):
        fields.pop("tags")
    changed = {k: v for k, v in fields.items() if getattr(current, k) != v}
    if not changed:
        return None
    m.update(name, scope=scope, reason=form.get("reason") or "edited on the web page", **changed)
    return next((c.id for c in reversed(m.history(name, scope=scope))), None)


@router.post("/m/{scope}/{name}/edit")
async def edit(request: Request, scope: str, name: str) -> Response:
    async def act(who: Viewer) -> Response:
        form = await form_of(request, who)
        change = await run(request, who, lambda m: _edit(m, scope, name, form))
        if change is None:
            return redirect(_page_of(scope, name, notice="nothing changed"))
        return redirect(_page_of(scope, name, notice="saved", undo=change))

    return await guarded(request, act)


@router.post("/m/{scope}/{name}/rename")
async def rename(request: Request, scope: str, name: str) -> Response:
    async def act(who: Viewer) -> Response:
        form = await form_of(request, who)
        new = form.get("new_name", "").strip()
        record = await run(request, who, lambda m: m.rename(name, new, scope=scope))  # type: ignore[arg-type]
        return redirect(_page_of(record.scope, record.name, notice=f"renamed from {name}"))

    return await guarded(request, act)


@router.post("/m/{scope}/{name}/forget")
async def forget(request: Request, scope: str, name: str) -> Response:
    async def act(who: Viewer) -> Response:
        form = await form_of(request, who)
        reason = form.get("reason") or "forgotten on the web page"
        change = await run(request, who, lambda m: m.forget(name, scope=scope, reason=reason))  # type: ignore[arg-type]
        return redirect(f"{PREFIX}/?{urlencode({'notice': f'forgot {name}', 'undo': change.id})}")

    return await guarded(request, act)


@router.post("/m/{scope}/{name}/settle")
async def settle(request: Request, scope: str, name: str) -> Response:
    """Confirm (``do=confirm``) or reject (``do=reject``) a tentative memory."""

    async def act(who: Viewer) -> Response:
        form = await form_of(request, who)
        drop = form.get("do") == "reject"
        changes = await run(request, who, lambda m: m.confirm(name, drop=drop, scope=scope))  # type: ignore[arg-type]
        run_id = next((c.run for c in changes if c.run), "")
        if drop:
            return redirect(f"{PREFIX}/?{urlencode({'notice': f'rejected {name}', 'run': run_id})}")
        return redirect(_page_of(scope, name, notice="confirmed", run=run_id))

    return await guarded(request, act)


@router.post("/archive/{scope}/{name}/restore")
async def restore(request: Request, scope: str, name: str) -> Response:
    async def act(who: Viewer) -> Response:
        await form_of(request, who)
        change = await run(request, who, lambda m: m.restore(name, scope=scope))  # type: ignore[arg-type]
        return redirect(_page_of(scope, name, notice="restored from the archive", undo=change.id))

    return await guarded(request, act)


@router.post("/new")
async def create(request: Request) -> Response:
    async def act(who: Viewer) -> Response:
        form = await form_of(request, who)
        tags = [t.strip() for t in form.get("tags", "").split(",") if t.strip()]
        args: dict[str, Any] = {"type": form.get("type") or "user", "tags": tags}
        args |= {k: form[k].strip() for k in ("name", "description") if form.get(k, "").strip()}
        args["scope"] = form.get("scope") or None
        text = form.get("text", "")
        record = await run(request, who, lambda m: m.remember(text, **args))
        return redirect(_page_of(record.scope, record.name, notice="remembered"))

    return await guarded(request, act)


@router.post("/changes/{change_id}/undo")
async def undo(request: Request, change_id: str) -> Response:
    async def act(who: Viewer) -> Response:
        await form_of(request, who)
        change = await run(request, who, lambda m: m.undo(change_id))
        notice = f"undid change {change_id[:12]} ({change.op} of {change.name})"
        after_delete = change.after is None
        if after_delete:
            return redirect(f"{PREFIX}/?{urlencode({'notice': notice})}")
        return redirect(_page_of(change.scope, change.name, notice=notice))

    return await guarded(request, act)


# -- sleep -------------------------------------------------------------------------------
@router.post("/sleep/apply")
async def apply_sleep(request: Request) -> Response:
    async def act(who: Viewer) -> Response:
        form = await form_of(request, who)
        chosen = None
        if form.get("which") != "all":
            chosen = sorted(int(k[5:]) for k in form if k.startswith("step-") and k[5:].isdigit())
        digest = form.get("digest", "")
        run_id, count = await run(request, who, lambda m: apply_reviewed(m, digest, chosen))
        notice = f"sleep applied: {count} change(s)"
        return redirect(f"{PREFIX}/sleep?{urlencode({'notice': notice, 'run': run_id or ''})}")

    return await guarded(request, act)


@router.post("/runs/{run_id}/undo")
async def undo_run(request: Request, run_id: str) -> Response:
    async def act(who: Viewer) -> Response:
        await form_of(request, who)
        changes = await run(request, who, lambda m: m.undo_run(run_id))
        notice = f"undid run {run_id}: {len(changes)} change(s) reverted"
        return redirect(f"{PREFIX}/sleep?{urlencode({'notice': notice})}")

    return await guarded(request, act)
