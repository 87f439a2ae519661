"""AdmChess: subscription requests and player accounts (seed 000, sections 3.6 and 5.2).

Every state change here goes through :mod:`accounts.services`; the admin only chooses
which rows to act on and reports what happened.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from django import forms
from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import AdminUserCreationForm, UserChangeForm
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from accounts import services
from accounts.admin_mixins import ReadOnlyAdminMixin
from accounts.models import AccessChange, SubscriptionRequest
from accounts.types import Player
from accounts.validators import username_validator
from ajedrez.core.errors import DomainError

User = get_user_model()

admin.site.site_header = "AdmChess — Ajedrez"
admin.site.site_title = "AdmChess — Ajedrez"
admin.site.index_title = _("Administration")


def _report(
    modeladmin: admin.ModelAdmin,
    request: HttpRequest,
    done: list[str],
    refused: list[tuple[str, str]],
    done_message: str,
) -> None:
    """One success message for the rows acted on, one warning per refused row."""
    if done:
        modeladmin.message_user(
            request, done_message % {"count": len(done), "names": ", ".join(done)}, messages.SUCCESS
        )
    for name, reason in refused:
        modeladmin.message_user(
            request,
            gettext("%(name)s: refused (%(reason)s)") % {"name": name, "reason": reason},
            messages.WARNING,
        )


@admin.register(SubscriptionRequest)
class SubscriptionRequestAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """Requests come from players and are decided, never edited or added by hand.

    Decided requests are the record of who let whom in, so they are never deleted either.
    """

    list_display = (
        "username",
        "comment",
        "email",
        "created_at",
        "status",
        "decided_by",
        "decided_at",
    )
    list_filter = ("status",)
    search_fields = ("username", "comment", "email")
    list_select_related = ("decided_by",)
    date_hierarchy = "created_at"
    # The password hash is never shown.
    fields = (
        "username",
        "comment",
        "email",
        "created_at",
        "status",
        "decided_by",
        "decided_at",
        "user",
    )
    readonly_fields = fields
    actions = ("approve", "reject")

    def has_decide_permission(self, request: HttpRequest) -> bool:
        opts = self.opts
        return request.user.has_perm(f"{opts.app_label}.change_{opts.model_name}")

    def _decide(
        self,
        request: HttpRequest,
        queryset: QuerySet,
        decide: Callable[..., object],
        done_message: str,
    ) -> None:
        done: list[str] = []
        refused: list[tuple[str, str]] = []
        for pk, username in queryset.order_by("created_at").values_list("pk", "username"):
            try:
                decide(request_id=pk, admin=request.user)
            except DomainError as exc:
                refused.append((username, exc.message))
            else:
                done.append(username)
        _report(self, request, done, refused, done_message)

    @admin.action(description=_("Approve the selected requests"), permissions=["decide"])
    def approve(self, request: HttpRequest, queryset: QuerySet) -> None:
        self._decide(
            request,
            queryset,
            services.approve_subscription,
            gettext("Approved %(count)d request(s): %(names)s."),
        )

    @admin.action(description=_("Reject the selected requests"), permissions=["decide"])
    def reject(self, request: HttpRequest, queryset: QuerySet) -> None:
        self._decide(
            request,
            queryset,
            services.reject_subscription,
            gettext("Rejected %(count)d request(s): %(names)s."),
        )


def _admin(request: HttpRequest) -> Player:
    """The administrator acting: the admin site serves only logged-in staff."""
    return cast("Player", request.user)


class _ProjectUsernameMixin:
    """The user names every front door accepts (the wire protocols reserve ``:`` ``,`` ``#``)."""

    # Provided by the model form this is mixed into.
    cleaned_data: dict[str, Any]
    instance: Any

    def clean_username(self) -> str:
        username = self.cleaned_data["username"]
        username_validator(username)
        others = User.objects.filter(username__iexact=username)
        if self.instance.pk:
            others = others.exclude(pk=self.instance.pk)
        if others.exists():
            raise forms.ValidationError(gettext("That user name is taken."), code="unique")
        return username


class PlayerCreationForm(_ProjectUsernameMixin, AdminUserCreationForm):
    class Meta(AdminUserCreationForm.Meta):  # type: ignore[name-defined]
        model = User
        fields = ("username", "first_name", "last_name", "email")


class PlayerChangeForm(_ProjectUsernameMixin, UserChangeForm):
    class Meta(UserChangeForm.Meta):  # type: ignore[name-defined]
        model = User


class AccessChangeInline(ReadOnlyAdminMixin, admin.StackedInline):
    """When the account was last closed or reopened, and by whom (the actions change it)."""

    model = AccessChange
    fk_name = "player"
    fields = ("changed_at", "changed_by")
    readonly_fields = fields
    can_delete = False
    extra = 0
    max_num = 1
    verbose_name = verbose_name_plural = _("last access change")


admin.site.unregister(User)


@admin.register(User)
class PlayerAdmin(UserAdmin):
    """The standard user admin with the access actions ("revoke", "restore").

    The ranking app adds each player's record to it (``ranking/admin.py``)."""

    form = PlayerChangeForm
    add_form = PlayerCreationForm
    add_fieldsets = (
        (
            None,
            {
                "classes": ("wide",),
                "fields": (
                    "username",
                    "usable_password",
                    "password1",
                    "password2",
                    "first_name",
                    "last_name",
                    "email",
                ),
            },
        ),
    )
    list_display: tuple[str, ...] = (
        "username",
        "first_name",
        "last_name",
        "email",
        "is_active",
        "is_staff",
        "date_joined",
    )
    list_filter = ("is_active", "is_staff", "is_superuser")
    actions = ("revoke_access", "restore_access")

    def get_readonly_fields(self, request: HttpRequest, obj: object = None) -> tuple:
        readonly = tuple(super().get_readonly_fields(request, obj))
        if obj is None:
            return readonly
        # Unticking "active" by hand would leave the player's games running with nobody
        # able to move: closing an account goes through the "revoke access" action, which
        # ends them; "restore access" reopens it.
        return (*readonly, "is_active")

    def get_inlines(self, request: HttpRequest, obj: object = None) -> list:
        return [AccessChangeInline] if obj is not None else []

    def _for_each_user(
        self,
        request: HttpRequest,
        queryset: QuerySet,
        act: Callable[[Player], str | None],
        message: Callable[[int], str],
    ) -> None:
        """Run ``act`` on each selected user; it returns why it refused one, or None."""
        done: list[str] = []
        refused: list[tuple[str, str]] = []
        for user in queryset.order_by("username"):
            reason = act(user)
            if reason is None:
                done.append(user.username)
            else:
                refused.append((user.username, reason))
        _report(self, request, done, refused, message(len(done)))

    @admin.action(
        description=_("Revoke access (deactivate; active games end as losses)"),
        permissions=["change"],
    )
    def revoke_access(self, request: HttpRequest, queryset: QuerySet) -> None:
        def revoke(user: Player) -> str | None:
            if user.pk == request.user.pk:
                return gettext("you cannot revoke your own access")
            services.revoke_access(player=user, by=_admin(request))
            return None

        self._for_each_user(
            request,
            queryset,
            revoke,
            lambda count: ngettext(
                "Revoked access of %(count)d user: %(names)s.",
                "Revoked access of %(count)d users: %(names)s.",
                count,
            ),
        )

    @admin.action(
        description=_("Restore access (reopen closed accounts; ended games stay ended)"),
        permissions=["change"],
    )
    def restore_access(self, request: HttpRequest, queryset: QuerySet) -> None:
        def restore(user: Player) -> str | None:
            if services.restore_access(player=user, by=_admin(request)):
                return None
            return gettext("the account is not closed")

        self._for_each_user(
            request,
            queryset,
            restore,
            lambda count: ngettext(
                "Restored access of %(count)d user: %(names)s.",
                "Restored access of %(count)d users: %(names)s.",
                count,
            ),
        )
