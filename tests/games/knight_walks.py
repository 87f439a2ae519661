"""Long runs of reversible moves for repetition and move-rule tests, built with python-chess.

Only knights move (no captures, no checks), so no move resets the halfmove clock and the
kings and castling rights stay put. python-chess replays the whole game to find these
sequences; the service layer must reach the same verdicts from its stored window.
"""

from __future__ import annotations

import heapq
import random
from collections import deque

import chess


def _key(board: chess.Board) -> object:
    return board._transposition_key()


def _quiet_knight_moves(board: chess.Board) -> list[chess.Move]:
    return sorted(
        (
            move
            for move in board.legal_moves
            if board.piece_type_at(move.from_square) == chess.KNIGHT
            and not board.is_capture(move)
            and not board.gives_check(move)
        ),
        key=chess.Move.uci,
    )


def _counts(board: chess.Board) -> dict[object, int]:
    replay = chess.Board()
    counts = {_key(replay): 1}
    for move in board.move_stack:
        replay.push(move)
        counts[_key(replay)] = counts.get(_key(replay), 0) + 1
    return counts


def knight_walk(
    prefix: list[str], plies: int, *, seed: int = 7, avoid: str | None = None
) -> list[str]:
    """``plies`` quiet knight moves (SAN) after ``prefix``; no position occurs a third time.

    ``avoid`` is a FEN whose position the walk must never reach.
    """
    board = chess.Board()
    for san in prefix:
        board.push_san(san)
    counts = _counts(board)
    avoided = _key(chess.Board(avoid)) if avoid else None
    rng = random.Random(seed)
    walked: list[str] = []
    while len(walked) < plies:
        candidates = []
        for move in _quiet_knight_moves(board):
            board.push(move)
            key = _key(board)
            board.pop()
            if counts.get(key, 0) < 2 and key != avoided:
                candidates.append(move)
        move = rng.choice(candidates)
        walked.append(board.san(move))
        board.push(move)
        counts[_key(board)] = counts.get(_key(board), 0) + 1
    return walked


def _knight_distances() -> list[list[int]]:
    """Knight moves between any two squares of an empty board."""
    table = []
    for origin in chess.SQUARES:
        dist = [-1] * 64
        dist[origin] = 0
        queue = deque([origin])
        while queue:
            square = queue.popleft()
            for target in chess.SquareSet(chess.BB_KNIGHT_ATTACKS[square]):
                if dist[target] < 0:
                    dist[target] = dist[square] + 1
                    queue.append(target)
        table.append(dist)
    return table


_DISTANCE = _knight_distances()


def _knights_apart(board: chess.Board, goal: chess.Board) -> int:
    total = 0
    for colour in chess.COLORS:
        here = list(board.pieces(chess.KNIGHT, colour))
        there = list(goal.pieces(chess.KNIGHT, colour))
        total += min(
            sum(_DISTANCE[a][b] for a, b in zip(here, order, strict=True))
            for order in (there, there[::-1])
        )
    return total


def path_back(moves: list[str], target_fen: str) -> list[str]:
    """A run of quiet knight moves from the end of ``moves`` back to ``target_fen``'s position.

    Best-first search on the knights' distance to their target squares; positions already
    seen twice in the game are not passed through again.
    """
    board = chess.Board()
    for san in moves:
        board.push_san(san)
    counts = _counts(board)
    goal_board = chess.Board(target_fen)
    goal = _key(goal_board)
    seen = {_key(board)}
    frontier: list[tuple[int, int, chess.Board, list[str]]] = [
        (_knights_apart(board, goal_board), 0, board.copy(stack=False), [])
    ]
    tie = 0
    while frontier:
        _, _, current, path = heapq.heappop(frontier)
        for move in _quiet_knight_moves(current):
            san = current.san(move)
            following = current.copy(stack=False)
            following.push(move)
            key = _key(following)
            if key == goal:
                return [*path, san]
            if key in seen or counts.get(key, 0) >= 2:
                continue
            seen.add(key)
            tie += 1
            score = _knights_apart(following, goal_board) + len(path) // 4
            heapq.heappush(frontier, (score, tie, following, [*path, san]))
    raise ValueError("no quiet knight path back")
