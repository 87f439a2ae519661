"""AdmChess for tournaments: the administrator creates an event and edits it while it
takes players, starts it now or calls it off, and removes a player from it. Every change
goes through the services (:mod:`games.services.tournaments`); the players' entries are
read-only here but for the removal."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import Count, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from accounts.admin_mixins import ReadOnlyAdminMixin
from ajedrez.core.errors import DomainError
from games import clock, services
from games.models import Tournament, TournamentEntry
from games.services.tournaments import check_settings


class TournamentForm(forms.ModelForm):
    # Bounded here so that every database says the same of a number out of range.
    fischer_base_days = forms.IntegerField(
        label=_("Fischer base (days)"), required=False, min_value=1,
        max_value=clock.FISCHER_MAX_BASE_DAYS,
    )
    fischer_increment_days = forms.IntegerField(
        label=_("Fischer increment (days per move)"), required=False, min_value=0,
        max_value=clock.FISCHER_MAX_INCREMENT_DAYS,
    )
    fischer_cap_days = forms.IntegerField(
        label=_("Fischer cap (days)"), required=False, min_value=1,
        max_value=clock.FISCHER_MAX_CAP_DAYS,
    )

    class Meta:
        model = Tournament
        fields = (
            "name", "description", "kind", "cycles", "days_per_move", "fischer_base_days",
            "fischer_increment_days", "fischer_cap_days", "rated", "min_rating",
            "max_rating", "min_players", "max_players", "group_size", "advance",
            "registration_closes_at", "starts_at",
        )

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if self.errors:
            return cleaned
        # The service's own check, so the form says what the service would refuse: on
        # the settings as they will be (those read-only once it started are kept).
        candidate = Tournament(
            **{f: cleaned.get(f, getattr(self.instance, f)) for f in self.Meta.fields}
        )
        candidate.cycles = candidate.cycles or 0
        candidate.name = candidate.name or ""
        try:
            check_settings(candidate)
        except DomainError as exc:
            raise forms.ValidationError(exc.message) from exc
        return cleaned


class EntryInline(ReadOnlyAdminMixin, admin.TabularInline):
    model = TournamentEntry
    fields = ("player", "joined_at", "rating", "withdrawn_at", "withdrawn_by")
    readonly_fields = fields
    extra = 0
    can_delete = False


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    form = TournamentForm
    list_display = ("name", "kind", "status", "players", "max_players", "starts_at", "created_at")
    list_filter = ("status", "kind")
    search_fields = ("name",)
    readonly_fields = ("status", "current_round", "started_at", "finished_at", "created_by")
    inlines = (EntryInline,)
    actions = ("start_now", "call_off")
    fieldsets = (
        (None, {"fields": ("name", "description", "kind", "cycles", "group_size", "advance")}),
        (_("Games"), {
            "fields": ("days_per_move", "rated"),
        }),
        (_("Or a Fischer clock instead of days per move"), {
            "fields": ("fischer_base_days", "fischer_increment_days", "fischer_cap_days"),
            "description": _(
                "Each player's bank starts with the base; every move adds the increment, "
                "up to the cap. Leave days per move empty to use it."
            ),
        }),
        (_("Players"), {"fields": ("min_rating", "max_rating", "min_players", "max_players")}),
        (_("Dates"), {"fields": ("registration_closes_at", "starts_at")}),
        (_("State"), {"fields": readonly_fields}),
    )

    def get_queryset(self, request: HttpRequest) -> QuerySet[Tournament]:
        return super().get_queryset(request).annotate(player_count=Count("entries"))

    @admin.display(description=_("players"), ordering="player_count")
    def players(self, tournament: Tournament) -> int:
        return getattr(tournament, "player_count", 0)

    def get_readonly_fields(self, request: HttpRequest, obj: Tournament | None = None) -> Any:
        if obj is not None and obj.status != Tournament.Status.REGISTRATION:
            # Once it has started only its words change (the service keeps the rest).
            return [f for f in TournamentForm.Meta.fields if f not in ("name", "description")] + [
                *self.readonly_fields
            ]
        return self.readonly_fields

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        # Called off, never deleted: its players were told about it.
        return False

    def delete_view(
        self, request: HttpRequest, object_id: str, extra_context: dict | None = None
    ) -> HttpResponse:
        # Said in words rather than a bare "permission denied", with what to do instead.
        messages.error(
            request,
            gettext(
                "An event is never deleted, least of all one with games: its players were "
                "told of it. Call it off instead."
            ),
        )
        return HttpResponseRedirect(reverse("admin:games_tournament_changelist"))

    def save_model(self, request: HttpRequest, obj: Tournament, form: Any, change: bool) -> None:
        services.save_tournament(tournament=obj, by=request.user)  # type: ignore[arg-type]

    @admin.action(description=_("Start now"))
    def start_now(self, request: HttpRequest, queryset: QuerySet[Tournament]) -> None:
        for tournament in queryset:
            started = services.start_tournament(tournament_id=tournament.pk)
            if started.status == Tournament.Status.RUNNING:
                messages.success(request, gettext("%(name)s has started.") % {"name": started})
            elif started.status == Tournament.Status.CANCELLED:
                messages.warning(
                    request,
                    gettext("%(name)s was called off: too few players.") % {"name": started},
                )
            else:
                messages.error(
                    request, gettext("%(name)s was not taking players.") % {"name": started}
                )

    @admin.action(description=_("Call off"))
    def call_off(self, request: HttpRequest, queryset: QuerySet[Tournament]) -> None:
        for tournament in queryset:
            try:
                services.cancel_tournament(tournament_id=tournament.pk)
            except DomainError as exc:
                messages.error(request, f"{tournament}: {exc.message}")
            else:
                messages.success(
                    request, gettext("%(name)s was called off.") % {"name": tournament}
                )


@admin.register(TournamentEntry)
class TournamentEntryAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("player", "tournament", "joined_at", "rating", "withdrawn_at", "withdrawn_by")
    list_select_related = ("player", "tournament", "withdrawn_by")
    list_filter = ("tournament",)
    search_fields = ("player__username", "tournament__name")
    actions = ("remove",)

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        # The action needs it; every field stays read-only (no change form saves).
        return bool(request.user.is_staff) and obj is None

    @admin.action(description=_("Remove from the tournament"))
    def remove(self, request: HttpRequest, queryset: QuerySet[TournamentEntry]) -> None:
        removed = 0
        for entry in queryset.select_related("player", "tournament"):
            try:
                if entry.tournament.status == Tournament.Status.REGISTRATION:
                    services.leave_tournament(tournament_id=entry.tournament_id,
                                              player=entry.player)
                else:
                    services.withdraw(tournament_id=entry.tournament_id, player=entry.player,
                                      by=request.user)  # type: ignore[arg-type]
            except DomainError as exc:
                messages.error(request, f"{entry}: {exc.message}")
            else:
                removed += 1
        if removed:
            messages.success(
                request,
                ngettext("%(count)d player removed.", "%(count)d players removed.", removed)
                % {"count": removed},
            )
