"""Account pages: subscription request, login, the language (leaving the service, which
ends the player's games, is a page of :mod:`games.lobby`).

Each view parses its form, calls :mod:`accounts.services` and renders; domain errors
become form errors, so the page keeps what was typed.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.views import LoginView
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import translation
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods, require_POST
from django.views.i18n import set_language as django_set_language

from accounts import errors, services, throttling
from accounts.forms import LoginForm, SubscriptionForm
from accounts.language import set_language_cookie
from accounts.selectors import preferences_of

User = get_user_model()


class AjedrezLoginView(LoginView):
    form_class = LoginForm
    redirect_authenticated_user = True

    def form_valid(self, form: Any) -> HttpResponse:
        response = super().form_valid(form)
        player = form.get_user()
        stored = preferences_of(player)
        if stored.language:
            # The player's language follows them to whatever computer they log in from.
            set_language_cookie(response, stored.language)
        elif stored.page_language != translation.get_language():
            # None chosen: the pages of this login are in the browser's language (or the
            # one the menu set for this browser before the login), and so is the mail.
            services.remember_page_language(player=player, language=translation.get_language())
        return response


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
                time_zone=form.cleaned_data["time_zone"],
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
