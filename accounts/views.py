"""Account pages: subscription request, login, preferences (leaving the service, which
ends the player's games, is a page of :mod:`games.lobby`).

Each view parses its form, calls :mod:`accounts.services` and renders; domain errors
become form errors, so the page keeps what was typed.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import LoginView
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods, require_POST

from accounts import errors, services, throttling
from accounts.forms import LoginForm, PreferencesForm, SubscriptionForm
from accounts.selectors import preferences_of
from accounts.types import AuthenticatedRequest


class AjedrezLoginView(LoginView):
    form_class = LoginForm
    redirect_authenticated_user = True


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
        messages.success(request, _("Your preferences were saved."))
        return redirect("preferences")
    return render(request, "accounts/preferences.html", {"form": form})


@login_required
@require_POST
def preferences_restore(request: AuthenticatedRequest) -> HttpResponse:
    """Back to the default look (seed 000: "Color Default")."""
    services.restore_default_preferences(player=request.user)
    messages.success(request, _("The default preferences were restored."))
    return redirect("preferences")
