"""The consent page of OAuth2 (``/oauth``, lichess's path): a logged-in player grants
an application a token, or refuses (:mod:`accounts.oauth` does the rest)."""

from __future__ import annotations

from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse
from django.http.response import HttpResponseRedirectBase
from django.shortcuts import render
from django.views.decorators.http import require_http_methods

from accounts import errors, oauth, selectors, tokens


class SeeOther(HttpResponseRedirectBase):
    """303 to the application's ``redirect_uri`` (as lila answers), whose scheme
    :func:`accounts.oauth.check_redirect_uri` allowed: an application's own scheme
    (``com.example.app:``) too, which Django's redirects refuse."""

    status_code = 303

    def __init__(self, location: str) -> None:
        self.allowed_schemes = [location.split(":", 1)[0].lower()]
        super().__init__(location)


@require_http_methods(["GET", "POST"])
def authorize(request: HttpRequest) -> HttpResponse:
    """GET shows the consent page (after the login, if needed); POST is the player's
    answer: ``decision=accept`` sends them back with a code, anything else with
    ``error=access_denied``."""
    try:
        prompt = oauth.read_prompt(request.GET)
    except oauth.OAuthError as exc:
        # Without a redirect_uri to trust, the error can only be shown here.
        return render(request, "accounts/oauth_error.html", {"error": exc}, status=400)
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    player = request.user
    if not selectors.is_player(player) or selectors.is_bot(player.pk):
        return render(
            request, "accounts/oauth_refused.html", {"prompt": prompt}, status=403
        )
    if request.method == "POST":
        if request.POST.get("decision") != "accept":
            return SeeOther(prompt.cancel_url())
        try:
            return SeeOther(oauth.grant(player=player, prompt=prompt))
        except oauth.OAuthError as exc:
            return SeeOther(prompt.error_url(exc))
        except errors.TokenRefused:
            return render(
                request, "accounts/oauth_refused.html", {"prompt": prompt}, status=403
            )
    try:
        scopes = [(key, tokens.SCOPES[key]) for key in prompt.requested_scopes()]
    except oauth.OAuthError:
        scopes = []  # refused on the answer, as lichess does
    response = render(
        request,
        "accounts/oauth_authorize.html",
        {"prompt": prompt, "scopes": scopes, "insecure": prompt.redirect_uri.startswith("http:")},
    )
    # The page may not sit in another site's frame, to be clicked through unseen.
    response["X-Frame-Options"] = "DENY"
    return response
