"""AdmChess: the players' records, read-only (only finished games change them), on their
own page and on each player's page of the user admin."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.db.models import F, QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from accounts.admin import PlayerAdmin
from accounts.admin_mixins import ReadOnlyAdminMixin
from ranking.models import PlayerRecord

User = get_user_model()


class RatingColumns:
    """The rating as players see it (``1512?``) and its deviation now (grown with the
    time since the last rated game), for the record's admin pages."""

    @admin.display(description=_("rating"), ordering="rating")
    def shown_rating(self, record: PlayerRecord) -> str:
        return record.rating_label

    @admin.display(description=_("rating deviation"), ordering="deviation")
    def deviation_now(self, record: PlayerRecord) -> int:
        return record.deviation_now


@admin.register(PlayerRecord)
class PlayerRecordAdmin(RatingColumns, ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("player", "wins", "losses", "draws", "played", "shown_rating", "deviation_now")
    list_select_related = ("player",)
    list_filter = ("player__is_active",)
    search_fields = ("player__username",)
    ordering = ("-wins", "player__username")

    def get_queryset(self, request: HttpRequest) -> QuerySet[PlayerRecord]:
        return super().get_queryset(request).annotate(played=F("wins") + F("losses") + F("draws"))

    @admin.display(description=_("games"), ordering="played")
    def played(self, record: PlayerRecord) -> int:
        return record.played  # type: ignore[attr-defined]  # annotated by get_queryset


class PlayerRecordInline(RatingColumns, ReadOnlyAdminMixin, admin.StackedInline):
    """The player's record, read-only: only finished games change it."""

    model = PlayerRecord
    fields = ("wins", "losses", "draws", "shown_rating", "deviation_now", "rated_games", "rated_at")
    readonly_fields = fields
    can_delete = False
    extra = 0
    max_num = 1
    verbose_name_plural = _("record")


# The ranking app sits above accounts: it adds the records to the accounts' user admin
# rather than the accounts app reading ranking's tables.
admin.site.unregister(User)


@admin.register(User)
class RankedPlayerAdmin(PlayerAdmin):
    """The user admin with each player's wins, losses, draws and rating."""

    list_display = (*PlayerAdmin.list_display[:-1], "wins", "losses", "draws", "rating",
                    PlayerAdmin.list_display[-1])
    # The record is a reverse one-to-one: one JOIN instead of a query per row.
    list_select_related = ("record",)

    def get_inlines(self, request: HttpRequest, obj: object = None) -> list:
        # On the add page the record does not exist yet: it is opened with the account.
        inlines = super().get_inlines(request, obj)
        return [PlayerRecordInline, *inlines] if obj is not None else inlines

    def _record_value(self, user: object, field: str) -> Any:
        record = getattr(user, "record", None)
        return None if record is None else getattr(record, field)

    @admin.display(description=_("wins"), ordering="record__wins")
    def wins(self, user: object) -> int | None:
        return self._record_value(user, "wins")

    @admin.display(description=_("losses"), ordering="record__losses")
    def losses(self, user: object) -> int | None:
        return self._record_value(user, "losses")

    @admin.display(description=_("draws"), ordering="record__draws")
    def draws(self, user: object) -> int | None:
        return self._record_value(user, "draws")

    @admin.display(description=_("rating"), ordering="record__rating")
    def rating(self, user: object) -> str | None:
        return self._record_value(user, "rating_label")
