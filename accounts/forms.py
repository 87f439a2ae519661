"""Forms of the account pages: subscription request, login, unsubscribe, preferences."""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.contrib.auth import password_validation
from django.contrib.auth.forms import AuthenticationForm
from django.utils import translation
from django.utils.translation import gettext_lazy as _

from accounts import time_zones
from accounts.backends import request_state
from accounts.models import Preferences
from accounts.selectors import is_bot
from accounts.services import username_problem
from accounts.tokens import SCOPES
from accounts.types import Player
from accounts.validators import USERNAME_MAX_LENGTH, username_validator


class SubscriptionForm(forms.Form):
    """The seed's subscription screen: user name, password, full name, e-mail."""

    username = forms.CharField(
        label=_("User name"),
        max_length=USERNAME_MAX_LENGTH,
        validators=[username_validator],
        help_text=_("1 to 30 characters: letters, digits and _ - . only."),
        widget=forms.TextInput(attrs={"autocomplete": "username", "autofocus": True}),
    )
    password1 = forms.CharField(
        label=_("Password"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
        help_text=_("At least 6 characters, not a common password."),
    )
    password2 = forms.CharField(
        label=_("Password again"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )
    comment = forms.CharField(
        label=_("Full name or comment"),
        max_length=200,
        required=False,
        widget=forms.TextInput(attrs={"autocomplete": "name"}),
    )
    email = forms.EmailField(
        label=_("E-mail"),
        required=False,
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )
    # Filled in by site.js with the browser's zone (Intl); the player can change it in the
    # preferences. A value that names no zone is dropped, not shown as an error: the
    # field is hidden, so nobody could correct it.
    time_zone = forms.Field(required=False, widget=forms.HiddenInput)

    def full_clean(self) -> None:
        super().full_clean()
        if "username" in self.errors:
            # The error states the rule already; the same sentence twice reads as noise.
            self.fields["username"].help_text = ""

    def clean_time_zone(self) -> str:
        value = self.cleaned_data.get("time_zone")
        return value if isinstance(value, str) and time_zones.is_known(value) else ""

    def clean_username(self) -> str:
        username = self.cleaned_data["username"].strip()
        # Checked here too (the service checks again in its transaction) so that every
        # problem with the form shows at once, next to its field.
        if problem := username_problem(username):
            raise forms.ValidationError(problem, code="username_unavailable")
        return username

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        first, second = cleaned.get("password1"), cleaned.get("password2")
        # Every problem at once: a password too short and common that was also mistyped
        # the second time gets all three sentences, not one per submit.
        if first:
            try:
                password_validation.validate_password(first)
            except forms.ValidationError as exc:
                self.add_error("password1", exc)
        if first and second and first != second:
            self.add_error("password2", _("The two passwords do not match."))
        return cleaned


class LoginForm(AuthenticationForm):
    """Django's login form that also explains why a requested name cannot log in yet."""

    error_messages = {
        **AuthenticationForm.error_messages,
        "invalid_login": _("Wrong user name or password."),
        "request_pending": _(
            "Your subscription request is waiting for an administrator's approval. "
            "You can log in once it is approved."
        ),
        "request_rejected": _(
            "Your subscription request was rejected by an administrator, so this user "
            "name cannot log in."
        ),
        "bot": _("This is a bot account: it plays through the API only."),
    }

    def confirm_login_allowed(self, user: Player) -> None:
        super().confirm_login_allowed(user)
        if is_bot(user.pk):
            raise forms.ValidationError(self.error_messages["bot"], code="bot")

    def clean(self) -> dict:
        try:
            return super().clean()
        except forms.ValidationError as exc:
            if exc.code != "invalid_login" or getattr(self.request, "axes_locked_out", False):
                # Refused by the lock-out: the page says so, and the request's password
                # is not checked either.
                raise
            # The name's subscription request and its own password (accounts.backends):
            # not a guess, and not counted as one; the page says why no login follows.
            if (reason := request_state(self.request)) is not None:
                raise forms.ValidationError(self.error_messages[reason], code=reason) from exc
            raise


class UnsubscribeForm(forms.Form):
    """Leaving the service, confirmed with the password (seed 000: "Anulación de Suscripción")."""

    password = forms.CharField(
        label=_("Your password"),
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )
    confirm = forms.BooleanField(
        label=_("I understand that my games in progress will be lost."),
        required=True,
    )

    def __init__(self, *args, player: Player, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.player = player

    def clean_password(self) -> str:
        password = self.cleaned_data["password"]
        if not self.player.check_password(password):
            raise forms.ValidationError(_("Wrong password."), code="wrong_password")
        return password


class PreferencesForm(forms.ModelForm):
    """Board and client preferences (seed 000 menus COLORES and PREFERENCIAS)."""

    class Meta:
        model = Preferences
        fields = [
            "board_theme",
            "piece_set",
            "show_coordinates",
            "orientation",
            "sound",
            "show_status_bar",
            "confirm_moves",
            "next_game_after_move",
            "language",
            "time_zone",
            "mail",
            "mail_digest",
            "digest_hour",
        ]
        widgets = {
            "board_theme": forms.RadioSelect(attrs={"class": "form-check-input"}),
            "orientation": forms.RadioSelect,
            "digest_hour": forms.Select(choices=[(hour, f"{hour:02d}:00") for hour in range(24)]),
        }
        help_texts = {
            "mail_digest": _(
                "At the hour below, in your time zone, when a game waits for you. The other "
                "e-mail (challenges, the last 24 hours of a clock, the end of a game) comes "
                "as it happens."
            ),
            "show_coordinates": _("Experienced players often play without them."),
            "show_status_bar": _(
                "Below the board: your colour, whose turn it is, the move number and the "
                "time the last move took."
            ),
            "confirm_moves": _(
                "A move you make stays on the board with Confirm and Cancel, and is sent "
                "only when you confirm it."
            ),
        }

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Without a choice, mail comes in the language of the player's last page (or
        # the site's, before any): say which.
        unchosen = translation.get_language_info(
            self.instance.page_language or settings.LANGUAGE_CODE
        )["name_translated"]
        language = self.fields["language"]
        assert isinstance(language, forms.TypedChoiceField)
        language.choices = [
            (
                "",
                _("Not chosen (e-mail in %(language)s, as you read the site)")
                % {"language": unchosen},
            ),
            *[
                (code, translation.get_language_info(code)["name_local"].capitalize())
                for code, _name in settings.LANGUAGES
            ],
        ]
        language.help_text = _(
            "The pages take it each time you log in, on any computer, and your e-mail is "
            "written in it. The language menu at the top of every page sets it too."
        )
        # Sent only with the digest's controls; a form without it keeps the stored hour.
        self.fields["digest_hour"].required = False
        # A select of every zone the machine knows; the model field is free text.
        self.fields["time_zone"] = forms.ChoiceField(
            label=_("Time zone"),
            required=False,
            choices=[("", _("Not chosen (your browser’s)")), *time_zones.choices()],
            initial=self.instance.time_zone,
            help_text=_(
                "Dates and times on the pages and in your e-mail are shown in it; "
                "deadlines are counted the same everywhere."
            ),
        )
        self.fields["mail"].help_text = _(
            "Only while you are away from the site, at the address you subscribed with; "
            "at most one “your move” e-mail per game every %(hours)s hours."
        ) % {"hours": f"{settings.MAIL_MOVE_INTERVAL_HOURS:g}"}

    def clean_digest_hour(self) -> int:
        hour = self.cleaned_data.get("digest_hour")
        return self.instance.digest_hour if hour is None else hour


class ApiTokenForm(forms.Form):
    """A new personal access token of the API: what it is for, and what it may do."""

    description = forms.CharField(
        label=_("Token description"),
        max_length=100,
        help_text=_("What the token is for, such as the name of the program using it."),
    )
    scopes = forms.MultipleChoiceField(
        label=_("What it may do"),
        choices=[],
        required=False,
        widget=forms.CheckboxSelectMultiple,
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        scopes = self.fields["scopes"]
        assert isinstance(scopes, forms.MultipleChoiceField)
        scopes.choices = [
            (scope, f"{label} ({scope})") for scope, label in SCOPES.items()
        ]
