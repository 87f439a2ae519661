"""What waits for the player: the notifications pages (the list, opening one — marks it
read, leads to its game — and marking them all read; only the recipient ever sees or
marks a notification), and the next game where it is their move."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import (
    Http404,
    HttpResponse,
    HttpResponseRedirect,
    JsonResponse,
)
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST, require_safe

from accounts.types import AuthenticatedRequest
from games import notifications, selectors, state

NOTIFICATIONS_PER_PAGE = 30


@login_required
@require_safe
def notification_list(request: AuthenticatedRequest) -> HttpResponse:
    """My notifications, newest first, the unread ones marked. Reading the list marks
    nothing: each is read when opened, or all at once with the button."""
    found = selectors.notifications_of(request.user.pk)
    # get_page: a page number that is no number, or past the end, shows the last page.
    page = Paginator(found, NOTIFICATIONS_PER_PAGE).get_page(request.GET.get("page"))
    return render(
        request,
        "notifications/list.html",
        {
            "page": page,
            "rows": [state.notification_row(n) for n in page.object_list],
            "unread": notifications.unread_count(request.user.pk),
        },
    )


@login_required
# GET only, not HEAD: following the link marks the notification read.
@require_GET
def notification_open(request: AuthenticatedRequest, pk: int) -> HttpResponseRedirect:
    """Open one of my notifications: it is marked read and I land on its game (or the
    challenges). Anybody else's is 404, as if it did not exist."""
    found = selectors.notifications_of(request.user.pk).filter(pk=pk).first()
    if found is None:
        raise Http404
    notifications.mark_read(request.user.pk, pk=found.pk)
    return redirect(state.notification_target(found))


@login_required
@require_POST
def notification_read_all(request: AuthenticatedRequest) -> HttpResponse:
    """Mark all my notifications read (a form's POST, with its CSRF token)."""
    marked = notifications.mark_read(request.user.pk)
    if "application/json" in request.headers.get("Accept", ""):
        return JsonResponse({"marked": marked, "unread": 0})
    return redirect("notification_list")


@login_required
@require_safe
def next_game(request: AuthenticatedRequest) -> HttpResponse:
    """The next game where it is my move (the least time left first), other than the game
    ``from`` names: its page, or, with ``Accept: application/json``, ``{"url": …}``
    (``null`` when none waits), which the game page reads after my move. With none, the
    page goes to the dashboard and says so."""
    besides = request.GET.get("from")
    if besides is not None and not (besides.isascii() and besides.isdigit() and len(besides) < 12):
        return JsonResponse({"error": _("“from” must be a game number.")}, status=400)
    found = selectors.next_game_waiting_for(
        request.user, besides=int(besides) if besides is not None else None
    )
    url = reverse("game_detail", args=[found.pk]) if found is not None else None
    if "application/json" in request.headers.get("Accept", ""):
        return JsonResponse({"url": url})
    if url is None:
        messages.info(request, _("No other game waits for your move."))
        return redirect("dashboard")
    return redirect(url)
