"""Top-level URLs."""

from django.contrib import admin
from django.templatetags.static import static
from django.urls import include, path
from django.views.generic import RedirectView

from accounts import oauth_views
from accounts import views as accounts_views
from ajedrez import faults
from games import preferences


class FaviconView(RedirectView):
    """``/favicon.ico``, which browsers ask for on pages without an icon link (a PDF,
    the admin's raw views): the site's icon. Resolved per request, as static names may
    be hashed."""

    permanent = False

    def get_redirect_url(self, *args: object, **kwargs: object) -> str:
        return static("img/favicon.svg")


# 503 for a database or Redis that is down, JSON unless a page was asked for.
handler500 = "ajedrez.faults.server_error"

urlpatterns = [
    path("favicon.ico", FaviconView.as_view()),
    path("healthz", faults.healthz, name="healthz"),
    path("admin/", admin.site.urls),
    # Django's language switcher (django.conf.urls.i18n), remembering a player's choice.
    path("i18n/setlang/", accounts_views.set_language, name="set_language"),
    # The preferences page and the mail links sit among the account's pages, but name
    # the games' notifications (games.preferences).
    path("accounts/preferences/", preferences.preferences, name="preferences"),
    path(
        "accounts/preferences/restore/",
        preferences.preferences_restore,
        name="preferences_restore",
    ),
    path(
        "accounts/preferences/tokens/", preferences.api_token_create, name="api_token_create"
    ),
    path(
        "accounts/preferences/tokens/<int:pk>/revoke/",
        preferences.api_token_revoke,
        name="api_token_revoke",
    ),
    path("accounts/preferences/gateway-key/", preferences.gateway_key, name="gateway_key"),
    path("accounts/mail/stop/<str:token>/", preferences.mail_stop, name="mail_stop"),
    path("accounts/", include("accounts.urls")),
    # OAuth2's consent page, at lichess's path (docs/protocols/lichess.md).
    path("oauth", oauth_views.authorize, name="oauth_authorize"),
    path("games/", include("games.urls")),
    path("tournaments/", include("games.tournament_urls")),
    path("analysis/", include("games.analysis_urls")),
    path("ranking/", include("ranking.urls")),
    # The lichess-compatible API at lichess's own paths (/api/…): docs/protocols/lichess.md.
    path("", include("games.api.urls")),
    path("", include("games.lobby_urls")),
]
