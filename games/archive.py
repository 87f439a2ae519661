"""A player's archive: their finished games, paged and filtered, and the same games as
one PGN file. Any logged-in player may read anyone's archive (finished games are public
on the game pages already)."""

from __future__ import annotations

import datetime as dt
from collections.abc import AsyncIterator, Iterator

from django import forms
from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.handlers.asgi import ASGIRequest
from django.core.paginator import Paginator
from django.core.validators import MaxValueValidator, MinValueValidator
from django.http import Http404, HttpResponse, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_safe

from accounts import errors as account_errors
from accounts import selectors as account_selectors
from accounts.types import AuthenticatedRequest, Player
from accounts.validators import USERNAME_MAX_LENGTH
from games import pgn_export, selectors
from games.state import game_row

GAMES_PER_PAGE = 25
# One file of at most this many games: a download is one request's work.
PGN_MAX_GAMES = 2000
PGN_CONTENT_TYPE = "application/x-chess-pgn; charset=utf-8"
# What a refused download (one already running for the player) is told to wait.
RETRY_AFTER_SECONDS = 10
EARLIEST, LATEST = dt.date(1900, 1, 1), dt.date(9998, 12, 31)
# The same bounds in the page: a browser's date picker accepts years of five and six
# digits, and without min/max it would send them only for the server to refuse.
DATE_INPUT = forms.DateInput(
    attrs={"type": "date", "min": EARLIEST.isoformat(), "max": LATEST.isoformat()}
)


class ArchiveForm(forms.Form):
    """The archive's filters, read from the query string; every field optional."""

    q = forms.CharField(label=_("Search"), required=False, max_length=100, strip=True)
    opponent = forms.CharField(
        label=_("Opponent"), required=False, max_length=USERNAME_MAX_LENGTH, strip=True
    )
    result = forms.ChoiceField(
        label=_("Result"),
        required=False,
        choices=[("", _("any")), ("won", _("won")), ("lost", _("lost")), ("drawn", _("draw"))],
    )
    colour = forms.ChoiceField(
        label=_("Colour"),
        required=False,
        choices=[("", _("any")), ("white", _("white")), ("black", _("black"))],
    )
    # Bounded so that a day's start (and the day after "To") is a datetime in any time
    # zone: 9999-12-31 has no day after it.
    since = forms.DateField(
        label=_("From"),
        required=False,
        widget=DATE_INPUT,
        validators=[MinValueValidator(EARLIEST), MaxValueValidator(LATEST)],
    )
    until = forms.DateField(
        label=_("To"),
        required=False,
        widget=DATE_INPUT,
        validators=[MinValueValidator(EARLIEST), MaxValueValidator(LATEST)],
    )
    opening = forms.CharField(
        label=_("Opening"),
        required=False,
        max_length=100,
        strip=True,
        help_text=_("ECO code (C00, or C for all of C) or words of the name"),
    )

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        for field in self.fields.values():
            select = isinstance(field.widget, forms.Select)
            field.widget.attrs["class"] = "form-select" if select else "form-control"

    def clean(self) -> dict:
        cleaned = super().clean() or {}
        since, until = cleaned.get("since"), cleaned.get("until")
        if since and until and since > until:
            self.add_error("until", _("The end date is before the start date."))
        return cleaned

    def archive_filter(self) -> selectors.ArchiveFilter:
        """The filter the valid fields describe; an unknown opponent matches no game."""
        data = self.cleaned_data
        opponent_id = None
        if data["opponent"]:
            opponent_id = account_selectors.player_id_of(data["opponent"]) or 0
        zone = timezone.get_current_timezone()

        def day_start(day: dt.date | None) -> dt.datetime | None:
            return None if day is None else dt.datetime.combine(day, dt.time(), zone)

        until = data["until"]
        return selectors.ArchiveFilter(
            opponent_id=opponent_id,
            result=data["result"],
            colour=data["colour"],
            finished_from=day_start(data["since"]),
            finished_before=day_start(until + dt.timedelta(days=1)) if until else None,
            opening=data["opening"],
            search=data["q"],
        )


def _player_or_404(username: str) -> Player:
    try:
        return account_selectors.active_player(username)
    except account_errors.UserNotFound as exc:
        raise Http404(exc.message) from exc


@login_required
@require_safe
def archive(request: AuthenticatedRequest, username: str) -> HttpResponse:
    """The player's finished games, latest first, 25 a page, with filters and a search."""
    player = _player_or_404(username)
    form = ArchiveForm(request.GET)
    if form.is_valid():
        games = selectors.archive(player, form.archive_filter())
    else:
        games = selectors.archive(player, selectors.ArchiveFilter()).none()
    page = Paginator(games, GAMES_PER_PAGE).get_page(request.GET.get("page"))
    rows = [game_row(game, player) for game in page.object_list]
    # The filters as they were sent, for the page links and the download.
    kept = request.GET.copy()
    kept.pop("page", None)
    return render(
        request,
        "players/archive.html",
        {
            "player": player,
            "form": form,
            "page": page,
            "rows": rows,
            "filters": kept.urlencode(),
            "filtered": any(v for k, v in request.GET.items() if k != "page"),
        },
        status=200 if form.is_valid() else 400,
    )


@login_required
@require_safe
def archive_pgn(request: AuthenticatedRequest, username: str) -> HttpResponseBase:
    """Every game the archive shows with these filters (all pages, up to 2,000), as one
    PGN file."""
    player = _player_or_404(username)
    form = ArchiveForm(request.GET)
    if not form.is_valid():
        return HttpResponse(
            "\n".join(
                f"{field}: {' '.join(str(e) for e in errors)}"
                for field, errors in form.errors.items()
            ),
            status=400,
            content_type="text/plain; charset=utf-8",
        )
    response: HttpResponseBase
    if request.method == "HEAD":
        # The answer's headers without its work: link checkers and probes send HEAD.
        response = HttpResponse(content_type=PGN_CONTENT_TYPE)
    elif (slot := pgn_export.take_slot(request.user.pk)) is None:
        return _busy()
    else:
        games = selectors.archive(player, form.archive_filter())[:PGN_MAX_GAMES]
        # Streamed a batch of games at a time; an asynchronous iterator under ASGI, since
        # Django reads a synchronous one whole before sending it there.
        content = (
            pgn_export.astream(games, slot)
            if isinstance(request, ASGIRequest)
            else pgn_export.stream(games, slot)
        )
        response = PGNFileResponse(content, slot)
    response["Content-Disposition"] = f'attachment; filename="{player.username}-games.pgn"'
    return response


class PGNFileResponse(StreamingHttpResponse):
    """The streamed file, which frees its download slot when the server closes it: at
    the end, when the client went away, or unread (a HEAD request, an error)."""

    def __init__(self, content: Iterator[bytes] | AsyncIterator[bytes], slot: pgn_export.Slot):
        super().__init__(content, content_type=PGN_CONTENT_TYPE)
        self.slot = slot

    def close(self) -> None:
        try:
            self.slot.release()
        finally:
            super().close()


def _busy() -> HttpResponse:
    """The answer to a download beyond the player's bound: 429, and when to try again."""
    limit = settings.PGN_DOWNLOADS_PER_PLAYER
    response = HttpResponse(
        ngettext(
            "You are already downloading a PGN file. Wait for it to finish, then try again.",
            "You are already downloading %(count)d PGN files. Wait for one to finish, "
            "then try again.",
            limit,
        )
        % {"count": limit},
        status=429,
        content_type="text/plain; charset=utf-8",
    )
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response
