"""AdmChess: games, their moves and PGN, challenges, and the "delete finished games" job;
tournaments have their pages in :mod:`games.tournament_admin`.

Game state is never edited here: the pages are read-only, and the maintenance job calls
:func:`games.services.delete_finished_games`, the same as ``manage.py purge_finished_games``.
The "Check that moves replay" action reads :func:`games.integrity.check_games`, the same
as ``manage.py check_games``. "Site rules" (how many games two players may have in
progress together) is saved through :func:`games.services.set_site_rules`.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import Q, QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from accounts.admin_mixins import ReadOnlyAdminMixin
from games import (
    chat,
    errors,
    integrity,
    services,
    state,
    tournament_admin,  # noqa: F401  (registers the tournaments' pages)
)
from games.models import (
    Challenge,
    ChatMessage,
    ChatMute,
    Game,
    Move,
    Notification,
    Seek,
    SiteRules,
    Vacation,
)


class MoveInline(ReadOnlyAdminMixin, admin.TabularInline):
    """The moves of a game, read-only: no add, change or delete, ever."""

    model = Move
    fields = ("number", "san", "uci", "played_at", "think_seconds", "reverse")
    readonly_fields = fields
    ordering = ("number",)
    extra = 0
    can_delete = False
    show_change_link = False


# Problems listed one message each; beyond them the message points to the command.
REPLAY_PROBLEMS_SHOWN = 20


class PurgeForm(forms.Form):
    days = forms.IntegerField(
        label=_("Delete games finished more than this many days ago"),
        min_value=0,
        initial=90,
    )


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = (
        "public_id",
        "white",
        "black",
        "status",
        "result",
        "termination",
        "moves_played",
        "days_per_move",
        "deadline",
        "updated_at",
    )
    list_select_related = ("white", "black")
    list_filter = ("status", "result", "termination", "days_per_move")
    search_fields = ("short_id", "white__username", "black__username")
    search_help_text = _("A game number (P0000042) or a player's name.")
    ordering = ("-updated_at", "-pk")
    fields = (
        "public_id",
        "white",
        "black",
        "status",
        "result",
        "termination",
        "days_per_move",
        "deadline",
        "time_left",
        "paused_at",
        "created_at",
        "updated_at",
        "finished_at",
        "draw_offer_by",
        "ended_by",
        "fen",
        "next_move_number",
        "version",
        "pgn",
    )
    readonly_fields = fields
    inlines = (MoveInline,)
    actions = ("check_replay",)

    # ---------------------------------------------------------------- permissions

    def has_add_permission(self, request: HttpRequest) -> bool:
        # Games start when a challenge is accepted, through the service layer.
        return False

    def has_change_permission(self, request: HttpRequest, obj: Game | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Game | None = None) -> bool:
        if obj is not None and (obj.is_active or obj.tournament_id is not None):
            return False
        return super().has_delete_permission(request, obj)

    def delete_view(
        self, request: HttpRequest, object_id: str, extra_context: dict | None = None
    ) -> HttpResponse:
        # Refused before Django's confirmation page, with the reason, rather than a bare
        # "permission denied": a game in progress, or any game of a tournament.
        found = Game.objects.filter(pk=object_id).values("status", "tournament_id").first()
        if found is not None and (
            found["status"] == Game.Status.ACTIVE or found["tournament_id"] is not None
        ):
            refusal = (
                errors.TournamentGameKept()
                if found["tournament_id"] is not None
                else errors.GameInProgress()
            )
            messages.error(request, refusal.message)
            return HttpResponseRedirect(reverse("admin:games_game_change", args=[object_id]))
        return super().delete_view(request, object_id, extra_context)

    def delete_model(self, request: HttpRequest, obj: Game) -> None:
        # Through the service layer like every other change to games; it refuses a game
        # in progress, which has_delete_permission already keeps off this page.
        services.delete_game(game_id=obj.pk)

    def get_actions(self, request: HttpRequest) -> dict:
        # Bulk deletion would bypass the one-by-one check above; old finished games go
        # through the maintenance job instead.
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)
        return actions

    @admin.action(description=_("Check that moves replay"))
    def check_replay(self, request: HttpRequest, queryset: QuerySet[Game]) -> None:
        """Replay the selected games' moves from the start (``manage.py check_games``)."""
        checked, failing = 0, []
        for report in integrity.check_games(queryset):
            checked += 1
            if report.problems:
                failing.append(report)
        if not failing:
            self.message_user(
                request,
                ngettext(
                    "%(count)d selected game replays from the start.",
                    "All %(count)d selected games replay from the start.",
                    checked,
                )
                % {"count": checked},
                messages.SUCCESS,
            )
            return
        for report in failing[:REPLAY_PROBLEMS_SHOWN]:
            self.message_user(
                request, f"{report.public_id}: {'; '.join(report.problems)}", messages.ERROR
            )
        summary = ngettext(
            "%(failing)d of the %(count)d selected games does not replay from the start.",
            "%(failing)d of the %(count)d selected games do not replay from the start.",
            len(failing),
        ) % {"failing": len(failing), "count": checked}
        if len(failing) > REPLAY_PROBLEMS_SHOWN:
            summary += " " + gettext(
                "Only the first %(shown)d are listed: manage.py check_games lists them all."
            ) % {"shown": REPLAY_PROBLEMS_SHOWN}
        self.message_user(request, summary, messages.WARNING)

    # ---------------------------------------------------------------- list and search

    @admin.display(description=_("game"), ordering="pk")
    def public_id(self, game: Game) -> str:
        return game.public_id

    @admin.display(description=_("moves"), ordering="next_move_number")
    def moves_played(self, game: Game) -> int:
        return game.next_move_number - 1

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet, search_term: str
    ) -> tuple[QuerySet, bool]:
        results, may_have_duplicates = super().get_search_results(
            request, queryset, search_term
        )
        game_pk = Game.pk_from_public_id(search_term) if search_term else None
        if game_pk is not None:
            results = queryset.filter(Q(pk=game_pk) | Q(pk__in=results.values("pk")))
        return results, may_have_duplicates

    # ---------------------------------------------------------------- change page

    @admin.display(description="PGN")
    def pgn(self, game: Game) -> str:
        url = reverse("admin:games_game_pgn", args=[game.pk])
        return format_html(
            '<pre class="pgn">{}</pre><a href="{}" download>{}</a>',
            state.game_pgn(game),
            url,
            gettext("Download PGN"),
        )

    # ---------------------------------------------------------------- extra views

    def changelist_view(
        self, request: HttpRequest, extra_context: dict | None = None
    ) -> HttpResponse:
        extra_context = {**(extra_context or {}), "can_purge": self.has_delete_permission(request)}
        return super().changelist_view(request, extra_context)

    def get_urls(self) -> list:
        info = self.opts.app_label, self.opts.model_name
        return [
            path(
                "purge/",
                self.admin_site.admin_view(self.purge_view),
                name="{}_{}_purge".format(*info),
            ),
            path(
                "<path:object_id>/pgn/",
                self.admin_site.admin_view(self.pgn_view),
                name="{}_{}_pgn".format(*info),
            ),
            *super().get_urls(),
        ]

    def pgn_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        if not self.has_view_permission(request):
            raise PermissionDenied
        try:
            pk = int(object_id)
        except ValueError as exc:
            raise Http404 from exc
        game = get_object_or_404(Game.objects.select_related("white", "black"), pk=pk)
        response = HttpResponse(
            state.game_pgn(game), content_type="application/x-chess-pgn; charset=utf-8"
        )
        response["Content-Disposition"] = f'attachment; filename="{game.public_id}.pgn"'
        return response

    def purge_view(self, request: HttpRequest) -> HttpResponse:
        if not self.has_delete_permission(request):
            raise PermissionDenied
        form = PurgeForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            days = form.cleaned_data["days"]
            deleted = services.delete_finished_games(older_than_days=days)
            self.message_user(
                request,
                ngettext(
                    "Deleted %(count)d game finished more than %(days)d days ago.",
                    "Deleted %(count)d games finished more than %(days)d days ago.",
                    deleted,
                )
                % {"count": deleted, "days": days},
                messages.SUCCESS,
            )
            return HttpResponseRedirect(reverse("admin:games_game_changelist"))
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": gettext("Delete finished games"),
            "form": form,
            "finished_count": Game.objects.filter(status=Game.Status.FINISHED).count(),
        }
        return TemplateResponse(request, "admin/games/game/purge.html", context)


@admin.register(Challenge)
class ChallengeAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """Challenges are made and answered by players: read-only here."""

    list_display = (
        "challenger", "challenged", "status", "days_per_move", "created_at", "decided_at",
        "game_link",
    )
    list_select_related = ("challenger", "challenged")
    list_filter = ("status",)
    search_fields = ("short_id", "challenger__username", "challenged__username")
    date_hierarchy = "created_at"

    @admin.display(description=_("game"), ordering="game")
    def game_link(self, challenge: Challenge) -> str:
        if challenge.game_id is None:
            return "—"
        url = reverse("admin:games_game_change", args=[challenge.game_id])
        return format_html('<a href="{}">{}</a>', url, Game.public_id_of(challenge.game_id))



@admin.register(Seek)
class SeekAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """Open challenges are offered, taken and cancelled by players: read-only here."""

    list_display = (
        "short_id", "maker", "status", "days_per_move", "colour", "rated", "rating_min",
        "rating_max", "created_at", "decided_at", "game_link",
    )
    list_select_related = ("maker",)
    list_filter = ("status", "rated")
    search_fields = ("short_id", "maker__username", "name")
    date_hierarchy = "created_at"

    @admin.display(description=_("game"), ordering="game")
    def game_link(self, seek: Seek) -> str:
        if seek.game_id is None:
            return "—"
        url = reverse("admin:games_game_change", args=[seek.game_id])
        return format_html('<a href="{}">{}</a>', url, Game.public_id_of(seek.game_id))


@admin.register(Vacation)
class VacationAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """Players take and end vacations themselves: read-only here."""

    list_display = ("player", "started_at", "ends_by", "ended_at")
    list_select_related = ("player",)
    search_fields = ("player__username",)
    date_hierarchy = "started_at"


@admin.register(Notification)
class NotificationAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """What players were told: written by the services, read by their recipient only;
    read-only here."""

    list_display = ("recipient", "kind", "game", "actor", "created_at", "read_at")
    list_select_related = ("recipient", "game", "actor")
    list_filter = ("kind", ("read_at", admin.EmptyFieldListFilter))
    search_fields = ("recipient__username",)
    date_hierarchy = "created_at"
    # The game and challenge choosers would list every game on the change page.
    raw_id_fields = ("recipient", "game", "challenge", "actor")

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        # Deleting a game (or an account) deletes its notifications, and the admin refuses
        # a deletion whose cascade reaches a model its user may not delete.
        return admin.ModelAdmin.has_delete_permission(self, request, obj)


# --------------------------------------------------------------------------- chat


@admin.register(ChatMessage)
class ChatMessageAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """Every game's chat, to read and moderate: delete messages, mute their authors.
    Both actions call :mod:`games.chat`, which also takes a deleted line off the pages."""

    list_display = ("created_at", "game", "room", "author", "text")
    list_filter = ("room",)
    search_fields = ("text", "author__username")
    list_select_related = ("game", "author")
    actions = ("delete_messages", "mute_authors")

    def get_actions(self, request: HttpRequest) -> dict:
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)
        return actions

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        # Deleting goes through the action (which tells the pages), not Django's own.
        return False

    @admin.action(description=_("Delete the selected messages"), permissions=["change"])
    def delete_messages(self, request: HttpRequest, queryset: QuerySet) -> None:
        ids = list(queryset.values_list("pk", flat=True))
        for message_id in ids:
            chat.delete_message(message_id=message_id)
        self.message_user(
            request,
            ngettext("%(n)d message deleted.", "%(n)d messages deleted.", len(ids))
            % {"n": len(ids)},
            messages.SUCCESS,
        )

    @admin.action(description=_("Mute the authors in every chat"), permissions=["change"])
    def mute_authors(self, request: HttpRequest, queryset: QuerySet) -> None:
        authors = {message.author for message in queryset.select_related("author")}
        for author in authors:
            chat.mute(player=author, by=request.user)  # type: ignore[arg-type]
        self.message_user(
            request,
            ngettext("%(n)d player muted.", "%(n)d players muted.", len(authors))
            % {"n": len(authors)},
            messages.SUCCESS,
        )

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        # The actions need it; the messages themselves stay read-only (no change form
        # saves: every field is read-only).
        return bool(request.user.is_staff) and obj is None


@admin.register(ChatMute)
class ChatMuteAdmin(admin.ModelAdmin):
    """Players muted in the chat; delete a row (or use the action) to let them speak."""

    list_display = ("player", "muted_by", "muted_at")
    search_fields = ("player__username",)
    actions = ("unmute",)
    readonly_fields = ("muted_by", "muted_at")
    autocomplete_fields = ("player",)

    def get_actions(self, request: HttpRequest) -> dict:
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)
        return actions

    @admin.action(description=_("Let them write again"))
    def unmute(self, request: HttpRequest, queryset: QuerySet) -> None:
        for mute in queryset.select_related("player"):
            chat.unmute(player=mute.player)

    def save_model(self, request: HttpRequest, obj: ChatMute, form: object, change: bool) -> None:
        chat.mute(player=obj.player, by=request.user)  # type: ignore[arg-type]

    def delete_model(self, request: HttpRequest, obj: ChatMute) -> None:
        chat.unmute(player=obj.player)


@admin.register(SiteRules)
class SiteRulesAdmin(admin.ModelAdmin):
    """"Site rules": one row, its page reached straight from the admin's index. Saved
    through :func:`games.services.set_site_rules`, which every door's checks read."""

    fields = ("games_per_pair",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        # Only the first save adds the row; every later one changes it.
        return super().has_add_permission(request) and not SiteRules.objects.exists()

    def has_delete_permission(self, request: HttpRequest, obj: SiteRules | None = None) -> bool:
        # Empty fields already mean "the environment's default".
        return False

    def changelist_view(
        self, request: HttpRequest, extra_context: dict | None = None
    ) -> HttpResponse:
        # A list of one row is a detour: straight to its form (to the empty one until the
        # administrator first saves it).
        if SiteRules.objects.filter(pk=SiteRules.SINGLETON).exists():
            target = reverse("admin:games_siterules_change", args=[SiteRules.SINGLETON])
        else:
            target = reverse("admin:games_siterules_add")
        return HttpResponseRedirect(target)

    def get_form(
        self, request: HttpRequest, obj: SiteRules | None = None, change: bool = False,
        **kwargs: Any,
    ) -> type[forms.ModelForm]:
        form = super().get_form(request, obj, change, **kwargs)
        field = form.base_fields["games_per_pair"]
        field.help_text = _(
            "How many games two players may have in progress together, at every door "
            "(web, WebSocket, ESPOL, the # protocol, chessirc). Empty: the default of the "
            "environment variable GAMES_PER_PAIR, now %(default)d. Lowering it ends no "
            "game."
        ) % {"default": settings.GAMES_PER_PAIR}
        return form

    def save_model(
        self, request: HttpRequest, obj: SiteRules, form: object, change: bool
    ) -> None:
        saved = services.set_site_rules(games_per_pair=obj.games_per_pair)
        obj.pk = saved.pk
