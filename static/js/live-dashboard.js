// The dashboard's live part: on any event of the player's games or challenges, fetch the
// page's "?partial=1" fragment and swap it into #dashboard-live. Reconnects by itself
// with backoff; events that arrive together cause a single refetch.
(() => {
  const target = document.getElementById("dashboard-live");
  if (!target || !("WebSocket" in window)) return;

  let attempts = 0;
  let refreshing = false;
  let again = false;

  async function refresh() {
    if (refreshing) {
      again = true;
      return;
    }
    refreshing = true;
    try {
      const response = await fetch(`${location.pathname}?partial=1`, {
        credentials: "same-origin",
        headers: { "X-Requested-With": "fetch" },
      });
      if (response.ok) {
        const live = document.getElementById("dashboard-live");
        live.innerHTML = await response.text();
        live.dispatchEvent(new CustomEvent("dashboard:refreshed", { bubbles: true }));
      }
    } finally {
      refreshing = false;
      if (again) {
        again = false;
        refresh();
      }
    }
  }

  function connect() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const socket = new WebSocket(`${scheme}//${location.host}/ws/player/`);
    document.body.dataset.live = "connecting";
    socket.addEventListener("open", () => {
      // Anything that happened while we were away is in the fresh fragment.
      if (attempts > 0) refresh();
      attempts = 0;
      document.body.dataset.live = "connected";
    });
    socket.addEventListener("message", (e) => {
      let msg;
      try {
        msg = JSON.parse(e.data);
      } catch {
        return;
      }
      if (msg.type === "event") refresh();
    });
    socket.addEventListener("close", (e) => {
      document.body.dataset.live = "offline";
      if (e.code === 4401) return; // logged out
      const delay = Math.min(30000, 500 * 2 ** attempts) * (0.75 + Math.random() / 2);
      attempts += 1;
      setTimeout(connect, delay);
    });
    window.ajedrezDashboardSocket = socket;
  }

  connect();
})();
