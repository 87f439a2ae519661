// The words of the game page that the server also writes on its first render: the move
// list's rows and the result banner. Pure functions, no page: games/state.py's
// move_rows and result_text follow the same rules, and a test holds the two together.

// One row per chess move, labelled "12." before White's move, or "12. …" when the row
// begins with Black's (the first move of a game begun with Black to move).
export function moveRows(moves) {
  const rows = [];
  for (const move of moves) {
    if (move.colour === "white" || rows.length === 0) {
      const label = move.colour === "white" ? `${move.move_number}.` : `${move.move_number}. …`;
      rows.push({ label, moves: [] });
    }
    rows[rows.length - 1].moves.push(move);
  }
  return rows;
}

// "1-0 · White wins · Checkmate · alice 1520 (+8), bob 1480 (−8)"; "" while in progress.
// ``strings``: the page's words (data.strings); ``terminations``: the endings' names.
export function resultText(game, ratings, strings, terminations) {
  if (game.status === "active") return "";
  if (game.result === "*") return strings.aborted;
  const who =
    game.result === "1-0" ? strings.whiteWins
    : game.result === "0-1" ? strings.blackWins
    : strings.draw;
  const named = terminations[game.termination] || game.termination;
  const how = named.charAt(0).toUpperCase() + named.slice(1); // as Django's capfirst
  const white = ratings.white;
  const black = ratings.black;
  let rated;
  if (ratings.rated) {
    rated = `${game.white} ${white.rating} (${white.change}), ${game.black} ${black.rating} (${black.change})`;
  } else if (ratings.why_unrated === "imported") {
    rated = strings.notRatedImported;
  } else if (ratings.why_unrated === "guest") {
    rated = strings.notRatedGuest;
  } else if (ratings.why_unrated === "early") {
    rated = strings.notRated;
  } else {
    // Rated, its change not yet written (the time ran out; the sweep records it).
    rated = `${game.white} ${white.rating}, ${game.black} ${black.rating}`;
  }
  return `${game.result_label} · ${who} · ${how} · ${rated}`;
}
