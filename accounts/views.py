"""Account pages: subscription request, login, preferences (leaving the service, which
ends the player's games, is a page of :mod:`games.lobby`).

Each view parses its form, calls :mod:`accounts.services` and renders; domain errors
become form errors, so the page keeps what was typed.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import LoginView
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_POST
from django.views.i18n import set_language as django_set_language

from accounts import errors, services, throttling
from accounts.forms import LoginForm, PreferencesForm, SubscriptionForm
from accounts.mail_links import BadMailLink, read_stop_token
from accounts.models import NotificationKind
from accounts.selectors import preferences_of
from accounts.types import AuthenticatedRequest

User = get_user_model()


class AjedrezLoginView(LoginView):
    form_class = LoginForm
    redirect_authenticated_user = True

    def form_valid(self, form: Any) -> HttpResponse:
        response = super().form_valid(form)
        # The player's language follows them to whatever computer they log in from.
        language = preferences_of(form.get_user()).language
        if language:
            _set_language_cookie(response, language)
        return response


def _set_language_cookie(response: HttpResponse, language: str) -> None:
    """What Django's own language switcher sets, with the same cookie settings."""
    response.set_cookie(
        settings.LANGUAGE_COOKIE_NAME,
        language,
        max_age=settings.LANGUAGE_COOKIE_AGE,
        path=settings.LANGUAGE_COOKIE_PATH,
        domain=settings.LANGUAGE_COOKIE_DOMAIN,
        secure=settings.LANGUAGE_COOKIE_SECURE,
        httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
        samesite=settings.LANGUAGE_COOKIE_SAMESITE,
    )


@require_POST
def set_language(request: HttpRequest) -> HttpResponse:
    """The language menu of every page: Django's switcher, which also remembers the
    choice of a logged-in player (for their next login and their e-mail)."""
    language = request.POST.get("language", "")
    if language not in dict(settings.LANGUAGES):
        # Django's switcher would set the cookie for any language Django itself speaks
        # (fr, en-gb); the site speaks only its own: just go back to the page.
        without = request.POST.copy()
        without.pop("language", None)
        request.POST = without  # type: ignore[assignment]  # what Django's view reads
    response = django_set_language(request)
    if request.user.is_authenticated:
        services.set_language(player=request.user, language=language)
    return response


def login_locked_out(
    request: HttpRequest, original_response: HttpResponse | None = None, credentials: Any = None
) -> HttpResponse:
    """The answer to a login refused by the lock-out (``AXES_LOCKOUT_CALLABLE``), on the
    site's login page and the admin's alike: a page in the site's layout saying how long
    to wait, with 429 and ``Retry-After``.

    Each refused attempt counts as a failure and so starts the wait again: the wait shown
    is the whole cool-off.
    """
    response = render(
        request,
        "registration/locked_out.html",
        {"minutes": throttling.lockout_minutes()},
        status=429,
    )
    response["Retry-After"] = str(int(settings.AXES_COOLOFF_TIME.total_seconds()))
    return response


@require_http_methods(["GET", "POST"])
def subscribe(request: HttpRequest) -> HttpResponse:
    """The subscription request form; an administrator approves the request later."""
    if request.user.is_authenticated:
        return redirect("dashboard")
    form = SubscriptionForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        allowance = throttling.subscription_request(request.META.get("REMOTE_ADDR", ""))
        if not allowance.allowed:
            form.add_error(
                None,
                ngettext(
                    "Too many subscription requests have come from your address. "
                    "Please try again in %(minutes)d minute.",
                    "Too many subscription requests have come from your address. "
                    "Please try again in %(minutes)d minutes.",
                    throttling.minutes_to_wait(allowance),
                )
                % {"minutes": throttling.minutes_to_wait(allowance)},
            )
            response = render(request, "registration/subscribe.html", {"form": form}, status=429)
            response["Retry-After"] = str(allowance.retry_after)
            return response
        try:
            services.request_subscription(
                username=form.cleaned_data["username"],
                password=form.cleaned_data["password1"],
                comment=form.cleaned_data["comment"],
                email=form.cleaned_data["email"],
            )
        except errors.SubscriptionRefused as exc:
            form.add_error("username", exc.message)
        else:
            request.session["subscription_requested"] = form.cleaned_data["username"]
            return redirect("subscribe_done")
    return render(request, "registration/subscribe.html", {"form": form})


def subscribe_done(request: HttpRequest) -> HttpResponse:
    """"Waiting for approval", naming the request just sent from this browser."""
    return render(
        request,
        "registration/subscribe_done.html",
        {"requested_username": request.session.get("subscription_requested", "")},
    )


@login_required
@require_http_methods(["GET", "POST"])
def preferences(request: AuthenticatedRequest) -> HttpResponse:
    """Board colours, pieces, coordinates, orientation, sound and status bar."""
    form = PreferencesForm(request.POST or None, instance=preferences_of(request.user))
    if request.method == "POST" and form.is_valid():
        services.save_preferences(player=request.user, values=form.cleaned_data)
        language = form.cleaned_data.get("language")
        if language:
            # The message and the page after it in the language just chosen.
            translation.activate(language)
        messages.success(request, _("Your preferences were saved."))
        response = redirect("preferences")
        if language:
            _set_language_cookie(response, language)
        return response
    return render(request, "accounts/preferences.html", {"form": form})


@login_required
@require_POST
def preferences_restore(request: AuthenticatedRequest) -> HttpResponse:
    """Back to the default look (seed 000: "Color Default")."""
    services.restore_default_preferences(player=request.user)
    messages.success(request, _("The default preferences were restored."))
    return redirect("preferences")


@csrf_exempt  # RFC 8058: the mail client's one-click POST carries no CSRF token; the
# signed token in the address is the authority, and it can only stop mail.
@require_http_methods(["GET", "HEAD", "POST"])
def mail_stop(request: HttpRequest, token: str) -> HttpResponse:
    """The link in every mail: GET (and HEAD, for link checkers) shows what it stops and
    a button; POST stops it (the
    button, or a mail client's ``List-Unsubscribe-Post``). No login needed; a token this
    site did not make is refused with 400; a second POST changes nothing more."""
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
        services.stop_mail(player_id=player_id, kind=kind)
        return render(request, "accounts/mail_stopped.html", context)
    # A link followed again once its mail is stopped says so, rather than offering to
    # stop what is stopped.
    preferences = preferences_of(player)
    if not (preferences.wants_mail(kind) if kind else preferences.mail):
        return render(request, "accounts/mail_stopped.html", context)
    return render(request, "accounts/mail_stop.html", context)
