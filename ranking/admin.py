"""AdmChess: the players' records, read-only (only finished games change them)."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import F, QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext_lazy as _

from ajedrez.admin import ReadOnlyAdminMixin
from ranking.models import PlayerRecord


@admin.register(PlayerRecord)
class PlayerRecordAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("player", "wins", "losses", "draws", "played", "rating")
    list_select_related = ("player",)
    list_filter = ("player__is_active",)
    search_fields = ("player__username",)
    ordering = ("-wins", "player__username")

    def get_queryset(self, request: HttpRequest) -> QuerySet[PlayerRecord]:
        return super().get_queryset(request).annotate(played=F("wins") + F("losses") + F("draws"))

    @admin.display(description=_("games"), ordering="played")
    def played(self, record: PlayerRecord) -> int:
        return record.played
