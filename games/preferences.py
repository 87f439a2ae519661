"""The preferences page (with the lichess API's access tokens) and the one-click links
that stop mail.

The board's look and the language are the account's (``accounts.forms.PreferencesForm``);
the switch per kind of notification names the games' notifications, so the page is
built here, where both are known.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_POST

from accounts import errors as account_errors
from accounts import selectors as account_selectors
from accounts import services as account_services
from accounts import time_zones, tokens
from accounts.forms import ApiTokenForm, PreferencesForm
from accounts.language import set_language_cookie
from accounts.selectors import preferences_of
from accounts.types import AuthenticatedRequest
from games.mail_links import BadMailLink, read_stop_token
from games.models import NotificationKind, mail_kind_on, wants_mail

User = get_user_model()


class PreferencesWithMailForm(PreferencesForm):
    """The account's preferences, and one mail switch per kind of notification, shown
    under "send me e-mail"."""

    # A hidden field inside the fieldset of the kinds: sent only when they were.
    KINDS_SHOWN = "mail_kinds_shown"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for kind in NotificationKind:
            self.fields[self.mail_field(kind)] = forms.BooleanField(
                label=kind.label, required=False, initial=mail_kind_on(self.instance, kind)
            )

    @staticmethod
    def mail_field(kind: str) -> str:
        return f"mail_{kind}"

    def mail_fields(self) -> list[forms.BoundField]:
        return [self[self.mail_field(kind)] for kind in NotificationKind]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        kinds = {
            str(kind): bool(cleaned.pop(self.mail_field(kind), False))
            for kind in NotificationKind
        }
        # With all mail off the page greys the switches out (a disabled fieldset) and a
        # browser sends none of them, nor the marker inside it: the choices per kind stay
        # as stored. Also when mail is turned on in a browser without script, whose
        # switches were still greyed out.
        shown = self.KINDS_SHOWN in self.data
        cleaned["mail_kinds"] = kinds if shown else self.instance.mail_kinds
        return cleaned


@login_required
@require_http_methods(["GET", "POST"])
def preferences(request: AuthenticatedRequest) -> HttpResponse:
    """Board colours, pieces, coordinates, orientation, sound, status bar, language and
    mail."""
    form = PreferencesWithMailForm(request.POST or None, instance=preferences_of(request.user))
    if request.method == "POST" and form.is_valid():
        values = dict(form.cleaned_data)
        page_language = translation.get_language()
        if page_language in dict(settings.LANGUAGES):
            # The language these pages are read in, for the mail while none is chosen.
            values["page_language"] = page_language
        saved = account_services.save_preferences(player=request.user, values=values)
        time_zones.remember(request, saved.time_zone)
        language = form.cleaned_data.get("language")
        if language:
            # The message and the page after it in the language just chosen.
            translation.activate(language)
        messages.success(request, _("Your preferences were saved."))
        response = redirect("preferences")
        if language:
            set_language_cookie(response, language)
        return response
    return _preferences_page(request, form)


def _preferences_page(
    request: AuthenticatedRequest,
    form: PreferencesForm,
    *,
    token_form: ApiTokenForm | None = None,
    new_token: str = "",
    status: int = 200,
    **more: Any,
) -> HttpResponse:
    context = {
        "form": form,
        "token_form": token_form or ApiTokenForm(),
        "api_tokens": list(account_selectors.api_tokens_of(request.user)),
        "new_token": new_token,
        "gateway_key_made_at": account_selectors.gateway_key_made_at(request.user.pk),
        **more,
    }
    return render(request, "accounts/preferences.html", context, status=status)


@login_required
@require_POST
def gateway_key(request: AuthenticatedRequest) -> HttpResponse:
    """A new key for the names linked to the account on the ``#`` gateway, shown this
    once on the preferences page (only its digest is kept); the old key stops working."""
    had_one = account_selectors.gateway_key_made_at(request.user.pk) is not None
    key = account_services.make_gateway_key(player=request.user)
    form = PreferencesWithMailForm(instance=preferences_of(request.user))
    response = _preferences_page(request, form, new_gateway_key=key, replaced_a_key=had_one)
    # The key is in this page alone: no cache, of the browser or between, keeps it.
    response["Cache-Control"] = "no-store"
    return response


@login_required
@require_POST
def api_token_create(request: AuthenticatedRequest) -> HttpResponse:
    """Make a personal API access token. The page answers the POST itself, showing the
    token once: it is not stored, and a redirect would have to carry it in the session."""
    token_form = ApiTokenForm(request.POST)
    preferences_form = PreferencesWithMailForm(instance=preferences_of(request.user))
    if not token_form.is_valid():
        return _preferences_page(request, preferences_form, token_form=token_form, status=400)
    try:
        _token, text = tokens.create_token(
            player=request.user,
            description=token_form.cleaned_data["description"],
            scopes=token_form.cleaned_data["scopes"],
        )
    except account_errors.DomainError as exc:
        token_form.add_error(None, exc.message)
        return _preferences_page(request, preferences_form, token_form=token_form, status=400)
    response = _preferences_page(request, preferences_form, new_token=text)
    # The token is on this page only: no cache may keep it.
    response["Cache-Control"] = "no-store"
    return response


@login_required
@require_POST
def api_token_revoke(request: AuthenticatedRequest, pk: int) -> HttpResponse:
    """Revoke one of my API access tokens: clients using it are refused from now on."""
    try:
        tokens.revoke_token(player=request.user, token_id=pk)
    except account_errors.DomainError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("The token was revoked."))
    return redirect("preferences")


@login_required
@require_POST
def preferences_restore(request: AuthenticatedRequest) -> HttpResponse:
    """Back to the default look (seed 000: "Color Default")."""
    account_services.restore_default_preferences(player=request.user)
    messages.success(request, _("The default preferences were restored."))
    return redirect("preferences")


@csrf_exempt  # RFC 8058: the mail client's one-click POST carries no CSRF token; the
# signed token in the address is the authority, and it can only stop mail.
@require_http_methods(["GET", "HEAD", "POST"])
def mail_stop(request: HttpRequest, token: str) -> HttpResponse:
    """The link in every mail: GET (and HEAD, for link checkers) shows what it stops and
    a button; POST stops it (the button, or a mail client's ``List-Unsubscribe-Post``).
    No login needed; a token this site did not make is refused with 400; a second POST
    changes nothing more."""
    try:
        player_id, kind = read_stop_token(token)
    except BadMailLink:
        return render(request, "accounts/mail_stop_refused.html", status=400)
    player = User.objects.filter(pk=player_id).first()
    if player is None:
        return render(request, "accounts/mail_stop_refused.html", status=400)
    context = {
        "kind_label": NotificationKind(kind).label if kind else None,
        "player": player,
        "token": token,
    }
    if request.method == "POST":
        account_services.stop_mail(player_id=player_id, kind=kind)
        return render(request, "accounts/mail_stopped.html", context)
    # A link followed again once its mail is stopped says so, rather than offering to
    # stop what is stopped.
    stored = preferences_of(player)
    if not (wants_mail(stored, kind) if kind else stored.mail):
        return render(request, "accounts/mail_stopped.html", context)
    return render(request, "accounts/mail_stop.html", context)
