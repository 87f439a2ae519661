// Every page of a logged-in player: the tab title says how many games await them,
// "(2) My games · Ajedrez", and the bell how many notifications are unread, both kept up
// to date over the player's socket with no reload;
// and, with the player's permission, a desktop notification (the Notification API) when
// an opponent moves while the tab is in the background. Any button with
// data-enable-notifications asks for that permission (a browser asks only on a click).
(() => {
  "use strict";

  const body = document.body;
  const baseTitle = document.title;
  let socket = null;
  let attempts = 0;
  let fetching = false;
  let again = false;
  let seenHello = false;
  // Unread counts pushed by the socket so far. A count the socket pushed while a fetch of
  // the counts was on its way is newer than the fetch may be (the reply can be read
  // before the push's commit and arrive after it), and every later change pushes again.
  let pushes = 0;

  function showCount(count) {
    body.dataset.awaiting = String(count);
    document.title = count > 0 ? `(${count}) ${baseTitle}` : baseTitle;
  }

  const bell = document.getElementById("notification-bell");
  const bellLive = document.getElementById("notification-live");

  function showUnread(count) {
    if (!bell || !Number.isInteger(count) || count < 0) return;
    const before = Number(bell.dataset.unread || 0);
    bell.dataset.unread = String(count);
    const badge = bell.querySelector(".notification-count");
    badge.textContent = String(count);
    badge.hidden = count === 0;
    bell.setAttribute(
      "aria-label",
      count > 0
        ? bell.dataset.labelSome.replace("%(count)s", String(count))
        : bell.dataset.labelNone,
    );
    // Said once when news arrives, not at every drop (reading one is the reader's act).
    if (bellLive && count > before) {
      bellLive.textContent = bellLive.dataset.text.replace("%(count)s", String(count));
    }
  }

  async function refresh() {
    if (fetching) {
      again = true;
      return;
    }
    fetching = true;
    const pushesBefore = pushes;
    try {
      const response = await fetch(body.dataset.awaitingUrl, {
        headers: { Accept: "application/json" },
        credentials: "same-origin",
      });
      if (response.ok) {
        const counts = await response.json();
        showCount(counts.awaiting);
        if (pushes === pushesBefore) showUnread(counts.notifications);
      }
    } catch {
      // Offline: the socket drops too, and its reconnection asks again.
    } finally {
      fetching = false;
      if (again) {
        again = false;
        refresh();
      }
    }
  }

  function notifyMove(msg) {
    const game = msg.game;
    const me = body.dataset.user;
    if (!game || !msg.move || game.status !== "active") return;
    // My conditional reply was played at once: the event's position is before it, but
    // it is not my move.
    if (msg.replied) return;
    if (game[game.turn] !== me) return; // my own move, from another tab or door
    if (document.visibilityState !== "hidden") return;
    if (!("Notification" in window) || Notification.permission !== "granted") return;
    const opponent = game.turn === "white" ? game.black : game.white;
    const note = new Notification(
      body.dataset.notifyTitle.replace("%(player)s", opponent).replace("%(game)s", game.public_id),
      { body: `${msg.move.san} · ${body.dataset.notifyBody}`, tag: `game-${game.id}` },
    );
    note.addEventListener("click", () => {
      window.focus();
      location.href = `/games/${game.id}/`;
    });
  }

  // A notification about the game this page shows, while the player looks at it, is no
  // news: opening it (the link every notification has) marks it read, and the server
  // then sends the lower count to every page of the player.
  function readIfLookingAtIt(msg) {
    if (!Number.isInteger(msg.id) || !Number.isInteger(msg.game)) return;
    if (document.visibilityState === "hidden") return;
    if (location.pathname !== `/games/${msg.game}/`) return;
    fetch(`/notifications/${msg.id}/`, { credentials: "same-origin", redirect: "manual" })
      .catch(() => {});
  }

  function onMessage(msg) {
    if (msg.type === "hello") {
      // A reconnection: events may have been missed while the socket was down.
      if (seenHello) refresh();
      seenHello = true;
      attempts = 0;
    } else if (msg.type === "notifications") {
      pushes += 1;
      showUnread(msg.unread);
      readIfLookingAtIt(msg);
    } else if (msg.type === "event") {
      refresh();
      if (msg.kind === "game" && msg.event === "move") notifyMove(msg);
    }
  }

  function connect() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    socket = new WebSocket(`${scheme}//${location.host}/ws/player/`);
    socket.addEventListener("message", (e) => {
      let msg;
      try {
        msg = JSON.parse(e.data);
      } catch {
        return;
      }
      onMessage(msg);
    });
    socket.addEventListener("close", (e) => {
      if (e.code === 4401) return; // logged out: nothing to count
      const delay = Math.min(30000, 500 * 2 ** attempts) * (0.75 + Math.random() / 2);
      attempts += 1;
      setTimeout(connect, delay);
    });
  }

  document.addEventListener("click", async (event) => {
    const button = event.target.closest?.("[data-enable-notifications]");
    if (!button || !("Notification" in window)) return;
    const answer = await Notification.requestPermission();
    button.hidden = answer !== "default";
  });
  for (const button of document.querySelectorAll("[data-enable-notifications]")) {
    button.hidden = !("Notification" in window) || Notification.permission !== "default";
  }

  showCount(Number(body.dataset.awaiting || 0));
  const live = document.getElementById("dashboard-live");
  if (live && !live.dataset.socket) {
    // The dashboard has the player's socket already (live-dashboard.js): listen there.
    // (The live lobby's socket is the lobby's, which carries no one's counts.)
    document.addEventListener("player:message", (e) => onMessage(e.detail));
  } else {
    connect();
  }
})();
