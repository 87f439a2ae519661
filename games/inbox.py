"""The notifications pages: the list, opening one (marks it read, leads to its game)
and marking them all read. Only the recipient ever sees or marks a notification."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import redirect, render
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
