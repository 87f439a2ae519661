"""The daily digest: for a player who chose it instead of a mail per move, one mail a
day, at the hour they chose in their zone, listing the games where it is their move
(lichess's daily correspondence mail). Nothing waits, no mail.

The sweep of ``manage.py serve`` (games.sweeper) looks for due digests about once a
minute; a deployment of several processes runs ``manage.py send_digests`` from cron
instead, every few minutes. A digest goes out during its hour only: a day whose hour
passed with the job down has none (the next day's comes as usual). The claim is a
:class:`~games.models.DailyDigest` row per player and day, written before the mail is
queued, so runs that overlap send it once; the mail itself is sent by the task worker.
"""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.db import IntegrityError, transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django_tasks import task

from accounts import time_zones
from accounts.models import Preferences
from accounts.templatetags.local_time import local_datetime
from games import clock, selectors
from games.mail import site_url
from games.mail_links import stop_token
from games.models import DailyDigest, Game
from games.state import game_row

logger = logging.getLogger("ajedrez.mail")

# At most this many games listed; the mail then says how many more wait.
GAMES_LISTED = 30


def queue_due_digests(now: dt.datetime | None = None) -> int:
    """Queue the digest of each player whose hour it is in their zone, who has none for
    their day yet and whose move some game awaits. Returns how many were queued."""
    now = now or timezone.now()
    queued = 0
    subscribers = (
        Preferences.objects.filter(mail=True, mail_digest=True, player__is_active=True)
        .exclude(player__email="")
        .select_related("player")
    )
    for preferences in subscribers:
        local = now.astimezone(time_zones.zone(preferences.time_zone))
        if local.hour != preferences.digest_hour:
            continue
        player = preferences.player
        day = local.date()
        if DailyDigest.objects.filter(recipient=player, day=day).exists():
            continue
        if not selectors.games_waiting_for(player).exists():
            continue
        try:
            with transaction.atomic():
                claim = DailyDigest.objects.create(recipient=player, day=day, queued_at=now)
        except IntegrityError:
            continue  # another run claimed it first
        try:
            send_digest_mail.enqueue(claim.pk)
        except Exception:
            logger.exception("could not queue the digest of %s for %s", player, day)
            claim.delete()
            continue
        queued += 1
    return queued


@task(queue_name="mail")
def send_digest_mail(digest_id: int, attempt: int = 1) -> str:
    """Send one claimed digest (:func:`deliver_digest`)."""
    return deliver_digest(digest_id, attempt=attempt)


def deliver_digest(digest_id: int, *, attempt: int = 1) -> str:
    """Send the digest ``digest_id`` if it still should go; says what was done. A failed
    send is tried again later, up to ``MAIL_SEND_ATTEMPTS`` in all."""
    claim = DailyDigest.objects.select_related("recipient").filter(pk=digest_id).first()
    if claim is None:
        return "skipped: the digest is gone"
    player = claim.recipient
    preferences = Preferences.objects.filter(player=player).first()
    if (
        preferences is None
        or not preferences.mail
        or not preferences.mail_digest
        or not player.is_active
        or not player.email
    ):
        return "skipped: not wanted"
    games = list(selectors.games_waiting_for(player)[: GAMES_LISTED + 1])
    if not games:
        return "skipped: nothing waits"
    language = preferences.language or settings.LANGUAGE_CODE
    with translation.override(language), timezone.override(
        time_zones.zone(preferences.time_zone)
    ):
        message = build_digest(player, games, waiting=selectors.games_waiting_for(player).count())
    try:
        message.send()
    except Exception as exc:
        if attempt >= settings.MAIL_SEND_ATTEMPTS:
            logger.error("digest %s to %s given up after %d attempts: %r",
                         digest_id, player.email, attempt, exc)
            raise
        retry_at = timezone.now() + dt.timedelta(
            seconds=settings.MAIL_RETRY_SECONDS * 2 ** (attempt - 1)
        )
        logger.warning("digest %s to %s failed (attempt %d), retrying at %s: %r",
                       digest_id, player.email, attempt, retry_at.isoformat(), exc)
        send_digest_mail.using(run_after=retry_at).enqueue(digest_id, attempt=attempt + 1)
        return f"failed (attempt {attempt}), retrying at {retry_at.isoformat()}"
    logger.info("mailed the digest of %s (%d games) to %s", claim.day, len(games), player.email)
    return "sent"


def build_digest(player: Any, games: list[Game], *, waiting: int) -> EmailMultiAlternatives:
    """The digest mail of ``player``, listing ``games`` (those waiting for them, at most
    ``GAMES_LISTED``; ``waiting`` counts them all), in the active language and zone."""
    now = timezone.now()
    rows = []
    for game in games[:GAMES_LISTED]:
        row = game_row(game, player)
        running = game.deadline is not None and game.paused_at is None
        rows.append(
            {
                "name": f"{game.public_id} · {game.white.get_username()} – "
                f"{game.black.get_username()}",
                "opponent": row.opponent.get_username(),
                "last_move": row.last_move_label,
                "time_left": clock.left_text(game.deadline - now)
                if running and game.deadline
                else "",
                "deadline": local_datetime(timezone.localtime(game.deadline))
                if running and game.deadline
                else "",
                "url": site_url(reverse("game_detail", args=[game.pk])),
            }
        )
    subject = ngettext(
        "%(count)d game waits for your move",
        "%(count)d games wait for your move",
        waiting,
    ) % {"count": waiting}
    stop_all = site_url(reverse("mail_stop", args=[stop_token(player.pk, None)]))
    context = {
        "subject": subject,
        "recipient": player,
        "rows": rows,
        "more": max(0, waiting - len(rows)),
        "dashboard": site_url(reverse("dashboard")),
        "stop_all": stop_all,
        "preferences": site_url(reverse("preferences")),
        "lead": _("Your daily e-mail of the games where it is your move."),
    }
    message = EmailMultiAlternatives(
        subject=f"[Ajedrez] {subject}",
        body=render_to_string("mail/digest.txt", context),
        to=[player.email],
        headers={
            "List-Unsubscribe": f"<{stop_all}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        },
    )
    message.attach_alternative(render_to_string("mail/digest.html", context), "text/html")
    return message
