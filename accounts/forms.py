"""Forms of the account pages: subscription request, login, unsubscribe, preferences."""

from __future__ import annotations

from typing import Any

from axes.utils import reset as axes_reset
from django import forms
from django.conf import settings
from django.contrib.auth import password_validation
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.hashers import check_password
from django.utils import translation
from django.utils.translation import gettext_lazy as _

from accounts.models import NotificationKind, Preferences, SubscriptionRequest
from accounts.services import username_problem
from accounts.throttling import axes_client_address
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

    def full_clean(self) -> None:
        super().full_clean()
        if "username" in self.errors:
            # The error states the rule already; the same sentence twice reads as noise.
            self.fields["username"].help_text = ""

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
    }

    def clean(self) -> dict:
        try:
            return super().clean()
        except forms.ValidationError as exc:
            if exc.code != "invalid_login" or getattr(self.request, "axes_locked_out", False):
                # Refused by the lock-out: the page says so, and the request's password
                # is not checked either.
                raise
            if (reason := self._request_state()) is not None:
                # The request's own password: not a guess. Forget the failure axes has
                # just counted, as a successful login would (AXES_RESET_ON_SUCCESS), or
                # a subscriber checking five times whether she was approved would be
                # locked out of her name from her own address.
                if self.request is not None:
                    axes_reset(
                        ip=axes_client_address(self.request),
                        username=self.cleaned_data.get("username"),
                    )
                raise forms.ValidationError(
                    self.error_messages[reason], code=reason
                ) from exc
            raise

    def _request_state(self) -> str | None:
        """``request_pending``/``request_rejected`` when the name and password match a request.

        The password must match too, so the page tells nothing to someone who does not
        know it.
        """
        username = (self.cleaned_data.get("username") or "").strip()
        password = self.cleaned_data.get("password") or ""
        if not username or not password:
            return None
        latest = (
            SubscriptionRequest.objects.filter(username__iexact=username)
            .order_by("-created_at", "-pk")
            .first()
        )
        if latest is None or latest.status == SubscriptionRequest.Status.APPROVED:
            return None
        if not check_password(password, latest.password_hash):
            return None
        if latest.status == SubscriptionRequest.Status.PENDING:
            return "request_pending"
        return "request_rejected"


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
            "language",
            "mail",
        ]
        widgets = {
            "board_theme": forms.RadioSelect(attrs={"class": "form-check-input"}),
            "orientation": forms.RadioSelect,
        }
        help_texts = {
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
        # One switch per kind of notification, shown under "send me e-mail".
        for kind in NotificationKind:
            self.fields[self.mail_field(kind)] = forms.BooleanField(
                label=kind.label, required=False, initial=self.instance.mail_kind_on(kind)
            )
        site_language = translation.get_language_info(settings.LANGUAGE_CODE)[
            "name_translated"
        ]
        language = self.fields["language"]
        assert isinstance(language, forms.TypedChoiceField)
        language.choices = [
            ("", _("Not chosen (e-mail in %(language)s)") % {"language": site_language}),
            *[
                (code, translation.get_language_info(code)["name_local"].capitalize())
                for code, _name in settings.LANGUAGES
            ],
        ]
        language.help_text = _(
            "The pages take it each time you log in, on any computer, and your e-mail is "
            "written in it. The language menu at the top of every page sets it too."
        )
        self.fields["mail"].help_text = _(
            "Only while you are away from the site, at the address you subscribed with; "
            "at most one “your move” e-mail per game every %(hours)s hours."
        ) % {"hours": f"{settings.MAIL_MOVE_INTERVAL_HOURS:g}"}

    # A hidden field inside the fieldset of the kinds: sent only when they were.
    KINDS_SHOWN = "mail_kinds_shown"

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
