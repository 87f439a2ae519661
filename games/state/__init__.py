"""What clients see of games and challenges: the one read model.

Every front door builds its view of a game here and nowhere else: the game page and its
JSON (:mod:`games.views`), the WebSocket frames (:mod:`games.consumers`), the live events
(:mod:`games.events`), the lists of the lobby (:mod:`games.lobby`), the PGN (the page and
the admin), the mail (:mod:`games.mail`) and the gateways (:mod:`games.state.gateways`).
It turns stored state into plain data; it never writes. A game whose time has run out is
shown ended on time (:func:`games.selectors.effective`) before the sweep ends it.

What depends only on the game's state, not on who looks (legal destinations, the draw
that can be claimed), is computed once per event in :func:`event_message` and shared by
every socket, and so are the frames themselves: serialized once per event for each kind
of socket (players, watchers, dashboards), so that a socket only sends a ready text.

One module per role, each importing only the ones above it: ``text`` (the words pages
write), ``event_labels`` (a tournament game's event and round), ``game`` (a game's state
and snapshot), ``pgn``, ``frames`` (live events), ``lists`` (rows of lists),
``tournaments`` (events and their crosstables), ``notification_texts``, ``gateways`` and
``lichess`` (the lichess API's shapes, with ``lichess_reads``, its queries). Everything
public is named here too, so ``from games import state`` and ``state.snapshot`` keep
working (the tournaments' reads are used as ``state.tournaments``).
"""

from __future__ import annotations

from games.state import gateways, lichess, lichess_reads, tournaments
from games.state.frames import (
    DASHBOARD,
    PLAYER,
    WATCHER,
    dashboard_frame,
    event_message,
    frame_for,
    frame_text,
)
from games.state.game import (
    challenge_state,
    claimable_draw,
    clock_state,
    conditional_state,
    destinations,
    fullmove_number,
    game_ratings,
    game_state,
    move_state,
    moves_of,
    snapshot,
    vacation_state,
)
from games.state.lists import (
    GameLink,
    GameRow,
    LiveGame,
    Relation,
    awaiting_count,
    game_row,
    game_url,
    outcome_for,
    relations_of,
)
from games.state.notification_texts import (
    NotificationRow,
    game_over_text,
    notification_row,
    notification_subject,
    notification_target,
    notification_text,
)
from games.state.pgn import (
    game_pgn,
    pgn_elos,
    pgn_tags,
)
from games.state.text import (
    RESULT_LABELS,
    move_rows,
    result_label,
    result_strings,
    result_text,
    termination_labels,
)

__all__ = [
    "DASHBOARD",
    "PLAYER",
    "RESULT_LABELS",
    "WATCHER",
    "GameLink",
    "GameRow",
    "LiveGame",
    "NotificationRow",
    "Relation",
    "awaiting_count",
    "challenge_state",
    "claimable_draw",
    "clock_state",
    "conditional_state",
    "dashboard_frame",
    "destinations",
    "event_message",
    "frame_for",
    "frame_text",
    "fullmove_number",
    "game_over_text",
    "game_pgn",
    "game_ratings",
    "game_row",
    "game_state",
    "game_url",
    "gateways",
    "lichess",
    "lichess_reads",
    "move_rows",
    "move_state",
    "moves_of",
    "notification_row",
    "notification_subject",
    "notification_target",
    "notification_text",
    "outcome_for",
    "pgn_elos",
    "pgn_tags",
    "relations_of",
    "result_label",
    "result_strings",
    "result_text",
    "snapshot",
    "termination_labels",
    "tournaments",
    "vacation_state",
]
