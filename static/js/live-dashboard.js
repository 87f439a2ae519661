// A page's live part (the dashboard, the live games): on any event its socket reports,
// fetch the page's "?partial=1" fragment (with the page's own filters) and swap it into
// #dashboard-live. The socket is the element's data-socket (the player's own by default).
// Reconnects by itself with backoff; events that arrive together cause a single refetch. The connection state
// shows in #live-connection; a refresh that cannot be done says why in #dashboard-error.
(() => {
  const target = document.getElementById("dashboard-live");
  if (!target || !("WebSocket" in window)) return;
  const indicator = document.getElementById("live-connection");
  const errorBox = document.getElementById("dashboard-error");

  let attempts = 0;
  let refreshing = false;
  let again = false;
  let stopped = false;
  let socket = null;
  let reconnectTimer = null;

  function setConnection(name) {
    document.body.dataset.live = name;
    if (!indicator) return;
    indicator.hidden = false;
    indicator.dataset.state = name;
    indicator.querySelector(".conn-text").textContent = indicator.dataset[name];
  }

  function showProblem(message) {
    if (!errorBox) return;
    errorBox.textContent = message;
    errorBox.classList.remove("d-none");
  }

  // After the session has ended every request would bring the login page back, and
  // every reconnection would be closed again with 4401: stop both.
  function sessionEnded() {
    stopped = true;
    clearTimeout(reconnectTimer);
    if (socket && socket.readyState <= WebSocket.OPEN) socket.close();
    setConnection("disconnected");
    showProblem(errorBox?.dataset.sessionEnded);
  }

  async function refresh() {
    if (stopped) return;
    if (refreshing) {
      again = true;
      return;
    }
    refreshing = true;
    try {
      const query = new URLSearchParams(location.search);
      query.set("partial", "1");
      const response = await fetch(`${location.pathname}?${query}`, {
        credentials: "same-origin",
        headers: { "X-Requested-With": "fetch" },
      });
      // login_required sends an expired session to the login page: that page must not
      // be pasted into the dashboard.
      if (response.redirected || response.status === 401 || response.status === 403) {
        sessionEnded();
      } else if (!response.ok) {
        showProblem(errorBox?.dataset.serverError);
      } else {
        const live = document.getElementById("dashboard-live");
        live.innerHTML = await response.text();
        errorBox?.classList.add("d-none");
        live.dispatchEvent(new CustomEvent("dashboard:refreshed", { bubbles: true }));
      }
    } catch {
      // Network down: the socket drops too, and its reconnection refreshes the page.
    } finally {
      refreshing = false;
      if (again) {
        again = false;
        refresh();
      }
    }
  }

  function connect() {
    if (stopped) return;
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const path = target.dataset.socket || "/ws/player/";
    socket = new WebSocket(`${scheme}//${location.host}${path}`);
    setConnection("connecting");
    socket.addEventListener("open", () => setConnection("connected"));
    socket.addEventListener("message", (e) => {
      let msg;
      try {
        msg = JSON.parse(e.data);
      } catch {
        return;
      }
      // The tab title's counter (awaiting.js) shares this socket instead of opening one.
      document.dispatchEvent(new CustomEvent("player:message", { detail: msg }));
      if (msg.type === "hello") {
        // Anything that happened while we were away is in the fresh fragment. The
        // backoff restarts only here, once the server has taken us: a socket it
        // accepts and closes at once must not reconnect at full speed.
        if (attempts > 0) refresh();
        attempts = 0;
      } else if (msg.type === "event") {
        refresh();
      }
    });
    socket.addEventListener("close", (e) => {
      if (stopped) return;
      if (e.code === 4401) {
        sessionEnded();
        return;
      }
      setConnection("offline");
      const delay = Math.min(30000, 500 * 2 ** attempts) * (0.75 + Math.random() / 2);
      attempts += 1;
      reconnectTimer = setTimeout(connect, delay);
    });
    window.ajedrezDashboardSocket = socket;
  }

  connect();
})();
