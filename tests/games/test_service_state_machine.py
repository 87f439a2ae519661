"""Random sequences of everything players can do to a game keep every invariant.

A hypothesis state machine plays one game through the service layer: legal moves (and
moves out of turn, stale numbers, texts that are no move), draw offers and answers,
claims and resignations, by either player and by a stranger. After every step the stored
game must replay from the start (``games.integrity``), its version must have grown by
exactly one per change and not at all on a refusal, and a finished game must say how it
ended, with no offer left open.

The read model must say what is stored, and the ranking must count a finished game's
result exactly once. A player may also leave (their account closed: the game is lost by
abandonment), and a preview of a move must answer as the move would and change nothing.

The short run (a few dozen sequences) is part of every test run; ``pytest -m fuzz`` runs
many more.
"""

from __future__ import annotations

import chess
import pytest
from django.contrib.auth import get_user_model
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from accounts import services as account_services
from ajedrez.core.errors import DomainError
from games import errors, rules, services, state
from games.integrity import check_games
from games.models import Game, Move
from ranking.selectors import record_of

User = get_user_model()


class GameMachine(RuleBasedStateMachine):
    """One game between two players, driven only through games.services."""

    counter = 0
    # Steps checked, all machines together (for the long run's figures).
    checks = 0

    def __init__(self) -> None:
        super().__init__()
        GameMachine.counter += 1
        n = GameMachine.counter
        self.white = User.objects.create_user(f"w{n}", password="x")
        self.black = User.objects.create_user(f"b{n}", password="x")
        self.stranger = User.objects.create_user(f"s{n}", password="x")
        made = services.challenge(challenger=self.black, challenged=self.white)
        self.game = services.accept_challenge(
            challenge_id=made.pk, player=self.white, colour="white"
        )
        self.version = self.game.version
        self.someone_left = False

    # ------------------------------------------------------------------ helpers

    def fresh(self) -> Game:
        return Game.objects.select_related("white", "black").get(pk=self.game.pk)

    def player(self, colour: str):
        return self.white if colour == "white" else self.black

    def attempt(self, action, *refusals: type[DomainError]) -> bool:
        """Run ``action``; a refusal listed must leave the game unchanged."""
        try:
            action()
        except refusals:
            assert self.fresh().version == self.version, "a refusal changed the game"
            return False
        self.version += 1
        assert self.fresh().version == self.version
        return True

    # ------------------------------------------------------------------ rules

    @precondition(lambda self: self.fresh().is_active)
    @rule(data=st.data())
    def play_a_legal_move(self, data: st.DataObject) -> None:
        game = self.fresh()
        board = chess.Board(game.fen)
        move = data.draw(st.sampled_from(sorted(board.legal_moves, key=lambda m: m.uci())))
        text = data.draw(st.sampled_from([move.uci(), board.san(move)]))
        played = self.attempt(
            lambda: services.make_move(
                game_id=game.pk,
                player=self.player(game.colour_to_move),
                move_number=game.next_move_number,
                move=text,
            ),
            errors.DrawOfferPending,
        )
        assert played == (not game.draw_offer_by)

    @rule(
        text=st.sampled_from(["--", "Z0", "0000", "@@@@", "e2e5", "Ke9", "", "O-O-O-O", "Q@e4"])
    )
    def play_no_move(self, text: str) -> None:
        game = self.fresh()
        self.attempt(
            lambda: services.make_move(
                game_id=game.pk,
                player=self.player(game.colour_to_move),
                move_number=game.next_move_number,
                move=text,
            ),
            errors.InvalidMove,
            errors.IllegalMove,
            errors.GameFinished,
            errors.DrawOfferPending,
        )

    @rule(offset=st.sampled_from([-1, 1, 2]))
    def play_with_a_stale_number(self, offset: int) -> None:
        game = self.fresh()
        self.attempt(
            lambda: services.make_move(
                game_id=game.pk,
                player=self.player(game.colour_to_move),
                move_number=max(1, game.next_move_number + offset),
                move="e4",
            ),
            errors.WrongMoveNumber,
            errors.GameFinished,
            errors.DrawOfferPending,
            errors.IllegalMove,
        )

    @rule()
    def move_out_of_turn(self) -> None:
        game = self.fresh()
        waiting = "black" if game.colour_to_move == "white" else "white"
        board = chess.Board(game.fen)
        board.turn = not board.turn
        candidates = sorted(m.uci() for m in board.pseudo_legal_moves) or ["e2e4"]
        self.attempt(
            lambda: services.make_move(
                game_id=game.pk,
                player=self.player(waiting),
                move_number=game.next_move_number,
                move=candidates[0],
            ),
            errors.NotYourTurn,
            errors.GameFinished,
            errors.DrawOfferPending,
        )

    @rule(colour=st.sampled_from(["white", "black"]))
    def offer_a_draw(self, colour: str) -> None:
        self.attempt(
            lambda: services.offer_draw(game_id=self.game.pk, player=self.player(colour)),
            errors.DrawOfferPending,
            errors.GameFinished,
        )

    @rule(colour=st.sampled_from(["white", "black"]), accept=st.booleans())
    def answer_a_draw(self, colour: str, accept: bool) -> None:
        self.attempt(
            lambda: services.answer_draw(
                game_id=self.game.pk, player=self.player(colour), accept=accept
            ),
            errors.NoDrawOffer,
            errors.GameFinished,
        )

    @rule(colour=st.sampled_from(["white", "black"]))
    def claim_a_draw(self, colour: str) -> None:
        self.attempt(
            lambda: services.claim_draw(game_id=self.game.pk, player=self.player(colour)),
            errors.NothingToClaim,
            errors.GameFinished,
        )

    @rule(colour=st.sampled_from(["white", "black"]))
    def resign(self, colour: str) -> None:
        self.attempt(
            lambda: services.resign(game_id=self.game.pk, player=self.player(colour)),
            errors.GameFinished,
        )

    @rule(data=st.data())
    def preview_a_move(self, data: st.DataObject) -> None:
        """A preview answers as the move would, and changes nothing."""
        game = self.fresh()
        board = chess.Board(game.fen)
        legal = sorted(m.uci() for m in board.legal_moves) or ["e2e4"]
        text = data.draw(st.sampled_from([*legal, "--", "e2e5"]))
        colour = data.draw(st.sampled_from(["white", "black"]))
        try:
            played = services.preview_move(
                game_id=game.pk, player=self.player(colour),
                move_number=game.next_move_number, move=text,
            )
        except errors.DomainError:
            pass
        else:
            assert game.is_active and colour == game.colour_to_move
            assert played.uci == text
        assert self.fresh().version == self.version

    @precondition(lambda self: not self.someone_left)
    @rule(colour=st.sampled_from(["white", "black"]))
    def a_player_leaves(self, colour: str) -> None:
        """The account closes (unsubscribe, revocation): a game in progress is lost by
        abandonment, or aborted without a result if the player had not yet moved, and
        nothing the player had open may act on it afterwards."""
        before = self.fresh()
        # White's first move is move 1, Black's move 2.
        had_moved = before.next_move_number > (1 if colour == "white" else 2)
        account_services.revoke_access(player=self.player(colour))
        self.someone_left = True
        if before.is_active:
            self.version += 1
            game = self.fresh()
            if had_moved:
                assert game.termination == Game.Termination.ABANDONMENT
                assert game.result == ("0-1" if colour == "white" else "1-0")
            else:
                assert game.termination == Game.Termination.ABORTED
                assert game.result == rules.ABORTED.result

    @rule(action=st.sampled_from(["move", "offer", "resign", "claim"]))
    def a_stranger_acts(self, action: str) -> None:
        game = self.fresh()
        call = {
            "move": lambda: services.make_move(
                game_id=game.pk,
                player=self.stranger,
                move_number=game.next_move_number,
                move="e4",
            ),
            "offer": lambda: services.offer_draw(game_id=game.pk, player=self.stranger),
            "resign": lambda: services.resign(game_id=game.pk, player=self.stranger),
            "claim": lambda: services.claim_draw(game_id=game.pk, player=self.stranger),
        }[action]
        assert not self.attempt(call, errors.NotAPlayer)

    # ------------------------------------------------------------------ invariants

    @invariant()
    def the_game_replays_and_says_how_it_stands(self) -> None:
        GameMachine.checks += 1
        game = self.fresh()
        (report,) = check_games(Game.objects.filter(pk=game.pk))
        assert report.problems == (), report.problems
        assert game.next_move_number == Move.objects.filter(game=game).count() + 1
        assert game.version == self.version
        if game.is_active:
            assert (game.result, game.termination, game.ended_by) == ("*", "", "")
            assert game.finished_at is None
        else:
            # An aborted game (a player left before their first move) has no result.
            aborted = game.termination == Game.Termination.ABORTED
            assert game.result in (("*",) if aborted else ("1-0", "0-1", "1/2-1/2"))
            assert game.termination and game.finished_at is not None
            assert game.draw_offer_by == ""

    @invariant()
    def the_read_model_says_what_is_stored(self) -> None:
        game = self.fresh()
        seen = state.snapshot(game, viewer_id=self.white.pk)
        assert seen["version"] == game.version
        assert len(seen["moves"]) == game.next_move_number - 1
        if not game.is_active:
            assert seen["dests"] == {} and seen["claimable"] is None

    @invariant()
    def the_ranking_counts_the_result_once(self) -> None:
        game = self.fresh()
        white, black = record_of(self.white.pk), record_of(self.black.pk)
        counted = {
            "1-0": ((1, 0, 0), (0, 1, 0)),
            "0-1": ((0, 1, 0), (1, 0, 0)),
            "1/2-1/2": ((0, 0, 1), (0, 0, 1)),
            "*": ((0, 0, 0), (0, 0, 0)),
        }[game.result]
        assert ((white.wins, white.losses, white.draws),
                (black.wins, black.losses, black.draws)) == counted


MACHINE_SETTINGS = {
    "deadline": None,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
}


@pytest.mark.django_db
def test_random_sequences_keep_every_invariant_short_run():
    GameMachine.TestCase.settings = settings(
        max_examples=8, stateful_step_count=20, **MACHINE_SETTINGS
    )
    GameMachine.TestCase().runTest()


@pytest.mark.fuzz
@pytest.mark.django_db
def test_random_sequences_keep_every_invariant_long_run():
    GameMachine.TestCase.settings = settings(
        max_examples=150, stateful_step_count=60, **MACHINE_SETTINGS
    )
    games_before, checks_before = GameMachine.counter, GameMachine.checks
    GameMachine.TestCase().runTest()
    print(
        f"\nFIGURES service state machine: {GameMachine.counter - games_before} games, "
        f"{GameMachine.checks - checks_before} states checked"
    )
