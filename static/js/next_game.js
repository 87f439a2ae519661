// A player's game page: "Next game where it is my move" shows while another of their
// games waits for them (the count every page keeps in <body data-awaiting>, less this
// game if it waits too), and, with the preference "after my move, go to the next game",
// the page goes there once the move it sent is played (lichess's "next game").
(() => {
  "use strict";

  const link = document.getElementById("next-game");
  const bar = document.getElementById("next-game-bar");
  const data = JSON.parse(document.getElementById("game-data")?.textContent || "null");
  if (!link || !bar || !data) return;
  const me = data.me.colour;
  const jump = Boolean(data.prefs.nextGameAfterMove);
  let game = data.game;
  let sentAt = null; // the move number this page sent, until it is played

  // The same rule as the server's list "your move": a draw offer to answer, or the move.
  function waitsForMe(g) {
    if (!g || g.status !== "active") return false;
    if (g.draw_offer_by) return g.draw_offer_by !== me;
    return g.turn === me;
  }

  function show() {
    const awaiting = Number(document.body.dataset.awaiting || 0);
    const others = awaiting - (waitsForMe(game) ? 1 : 0);
    bar.hidden = !(others > 0);
  }

  async function goToNext() {
    try {
      const reply = await fetch(link.dataset.jsonUrl, {
        headers: { Accept: "application/json" },
        credentials: "same-origin",
      });
      if (!reply.ok) return;
      const { url } = await reply.json();
      if (url) window.location.assign(url);
    } catch {
      // Offline for a moment: the player stays on this game, as without the preference.
    }
  }

  document.addEventListener("game:move-sent", (event) => {
    sentAt = event.detail.number;
  });
  document.addEventListener("game:changed", (event) => {
    game = event.detail.game;
    show();
    if (jump && sentAt !== null && game.next_move_number > sentAt && game.turn !== me) {
      sentAt = null;
      goToNext();
    }
  });
  new MutationObserver(show).observe(document.body, {
    attributes: true,
    attributeFilter: ["data-awaiting"],
  });
  show();
})();
