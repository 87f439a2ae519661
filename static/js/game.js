// The game page: board (chessground), move list with replay, status bar, actions, and
// the live connection. The server is the only judge of chess: it sends the legal
// destinations with every state, and the board only offers those.
//
// Live protocol (games/consumers.py): the socket sends a "snapshot" on connect and on
// "sync"; then "event" frames, each with the game's version. An event is applied only
// when it is the next version; an older one is a copy and is dropped, a newer one means
// something was missed and the page asks for a sync. Without a socket the page polls the
// state URL and posts its actions over plain HTTP.
import { Chessground } from "../vendor/chessground/dist/chessground.js";
import { PROMOTION_ROLES, PromotionPicker } from "./promotion.js";
import { moveRows, resultText } from "./game_text.js";
import { removeChatLine, renderChatRooms, setUpChat, showChatLine } from "./game_chat.js";

const STARTING_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const POLL_MS = 5000;

const root = document.getElementById("game");
const data = JSON.parse(document.getElementById("game-data").textContent);
const S = data.strings;
const me = data.me.colour; // "white", "black", or null for a watcher

const state = {
  game: data.game,
  moves: data.moves,
  version: data.version,
  dests: data.dests,
  claimable: data.claimable,
  ratings: data.ratings,
  away: data.away, // { white, black }: which player is on vacation
  ply: data.moves.length, // the position shown; moves.length = live
  orientation: data.prefs.orientation,
  coordinates: data.prefs.coordinates,
  pending: false, // a move sent, not yet answered
  confirming: null, // a move shown on the board, waiting for Confirm or Cancel
  boardAhead: false, // the board shows the player's move, not yet in the game
  connection: "connecting",
};

let ws = null;
let reconnectAttempts = 0;
let reconnectTimer = null;
let pollTimer = null;
let stopped = false; // set for good when the session has ended or the game is gone

const $ = (sel) => document.querySelector(sel);

// ------------------------------------------------------------------ board

const boardElement = document.getElementById("board");
const ground = Chessground(boardElement, {
  fen: STARTING_FEN,
  orientation: state.orientation,
  coordinates: data.prefs.coordinates,
  autoCastle: true,
  highlight: { lastMove: true, check: true },
  animation: { enabled: true, duration: 180 },
  premovable: { enabled: false },
  draggable: { enabled: true, showGhost: true },
  selectable: { enabled: true },
  movable: {
    free: false,
    showDests: true,
    color: undefined,
    // The king dropped on its own rook castles, as on lichess: the server's destinations
    // list the rook's square beside the king's (games.rules.legal_moves), and it reads
    // the move sent (e1h1) as castling.
    rookCastle: true,
    events: { after: onBoardMove },
  },
  drawable: { enabled: true },
});

// How many watch the game, as the socket reports it (hidden while nobody does).
function showWatchers(count) {
  const badge = document.getElementById("watchers");
  if (!badge || !Number.isInteger(count)) return;
  badge.hidden = count < 1;
  badge.textContent = count === 1 ? badge.dataset.one : badge.dataset.many.replace("__n__", count);
}

// Chessground turns the pointer's position into a square with the board's place on the
// page, which it measures once and keeps until the page scrolls, the window is resized or
// the board changes size. Notices above the board (the error box, the message that a game
// has started, the draw and result banners) move the board without any of those: a drop
// then landed a rank off (d2–a5 was played as Qd1–a4+), or on no piece at all. Instead of
// telling it about each notice, present and future, the page drops that measure at every
// pointer event, in the capture phase on window, so before chessground's own listeners
// (on the board and the document) read it: the press, each step of a drag and the drop
// are each mapped with the board where it is then. Only chessground's pointer handling
// reads the board's place (drawing uses its size alone), and the cost is one
// getBoundingClientRect per event it handles.
function forgetBoardPlace() {
  ground.state.dom.bounds.clear(); // state.dom is rebuilt by redrawAll: look it up each time
}
for (const type of ["mousedown", "mousemove", "mouseup", "touchstart", "touchmove", "touchend"]) {
  window.addEventListener(type, forgetBoardPlace, { capture: true, passive: true });
}

function fenAt(ply) {
  if (ply > 0) return state.moves[ply - 1].fen_after;
  return (state.game && state.game.initial_fen) || STARTING_FEN;
}

function turnOf(fen) {
  return fen.split(" ")[1] === "w" ? "white" : "black";
}

function destsMap(dests) {
  return new Map(Object.entries(dests || {}));
}

function isLive() {
  return state.ply === state.moves.length;
}

function canMove() {
  const g = state.game;
  return (
    isLive() &&
    !stopped &&
    me !== null &&
    !state.pending &&
    !state.confirming &&
    g.status === "active" &&
    g.turn === me &&
    !g.draw_offer_by
  );
}

function renderBoard() {
  const fen = fenAt(state.ply);
  const last = state.ply > 0 ? state.moves[state.ply - 1] : null;
  const movable = canMove();
  // A move waiting for Confirm, or sent and not yet answered, stays where the player put
  // it: the stored position would take the piece back until the server's answer.
  const holding =
    isLive() && state.boardAhead && (state.pending || state.confirming !== null);
  if (!holding) state.boardAhead = false;
  const position = holding
    ? {}
    : {
        fen,
        turnColor: turnOf(fen),
        lastMove: last ? [last.uci.slice(0, 2), last.uci.slice(2, 4)] : undefined,
        check: last ? /[+#]$/.test(last.san) : false,
      };
  ground.set({
    ...position,
    orientation: state.orientation,
    movable: {
      color: movable ? me : undefined,
      dests: movable ? destsMap(state.dests) : new Map(),
    },
  });
  root.dataset.canMove = movable ? "true" : "false";
}

// ------------------------------------------------------------------ promotion

function isPromotion(orig, dest) {
  const piece = ground.state.pieces.get(dest);
  return piece && piece.role === "pawn" && (dest[1] === "8" || dest[1] === "1");
}

const promotionPicker = new PromotionPicker(document.getElementById("promotion"));

const PIECE_LETTERS = { king: "K", queen: "Q", rook: "R", bishop: "B", knight: "N", pawn: "" };

// Chessground moves the piece, and the rook when castling; the rest of a move is drawn
// here until the server's position replaces it: the pawn taken en passant goes, and a
// promoted pawn becomes the piece chosen.
function finishMoveOnBoard(orig, dest, promotion, enPassant) {
  state.boardAhead = true;
  const changes = new Map();
  if (enPassant) changes.set(dest[0] + orig[1], undefined);
  if (promotion) changes.set(dest, { role: PROMOTION_ROLES[promotion], color: me });
  if (changes.size) ground.setPieces(changes);
}

// The move in long algebraic notation (Ng1-f3, Bd2xa5, e7-e8=Q, O-O): what the player
// did, read from the board, without a chess engine on the page.
function longNotation(orig, dest, role, capture, promotion) {
  // Two files over (e1-g1), or onto its own rook (e1-h1): a king only moves so to castle.
  if (role === "king" && Math.abs(orig.charCodeAt(0) - dest.charCodeAt(0)) >= 2) {
    return dest[0] > orig[0] ? "O-O" : "O-O-O";
  }
  const suffix = promotion ? `=${promotion.toUpperCase()}` : "";
  return `${PIECE_LETTERS[role]}${orig}${capture ? "x" : "-"}${dest}${suffix}`;
}

async function onBoardMove(orig, dest, meta) {
  // Only castling onto the rook leaves the square dropped on empty: the king and the
  // rook then stand beside it.
  const piece = ground.state.pieces.get(dest) || { role: "king", color: me };
  const enPassant =
    piece && piece.role === "pawn" && orig[0] !== dest[0] && !(meta && meta.captured);
  let uci = orig + dest;
  let promotion = "";
  if (isPromotion(orig, dest)) {
    promotion = await promotionPicker.choose(me);
    if (!promotion) {
      render(); // cancelled: put the pawn back
      return;
    }
    uci += promotion;
  }
  finishMoveOnBoard(orig, dest, promotion, enPassant);
  if (data.prefs.confirmMoves) {
    const capture = Boolean(meta && meta.captured) || enPassant;
    askToConfirm(uci, longNotation(orig, dest, piece.role, capture, promotion), {
      returnFocus: boardElement,
    });
  } else {
    sendMove(uci);
  }
}

// ------------------------------------------------------------------ move confirmation

// With the confirm_moves preference a move is shown on the board and sent only once the
// player confirms it. Focus goes to Confirm (Enter confirms, Escape cancels anywhere);
// afterwards it goes back where the move was made (the board or the move box). ``typed``
// is the text a typed move came from, for the box to be emptied once it is played.
let previewSerial = 0; // a typed move being read by the server is stale once this moves on

function askToConfirm(uci, label, { returnFocus, typed = null }) {
  previewSerial += 1; // this move replaces one still being read
  state.confirming = { uci, returnFocus, typed };
  renderBoard(); // nothing else moves while this move waits
  $("#move-confirm-text").textContent = S.confirmMove.replace("%(move)s", label);
  $("#move-confirm").hidden = false;
  $("#btn-move-confirm").focus();
}

function closeConfirmation() {
  const pending = state.confirming;
  state.confirming = null;
  $("#move-confirm").hidden = true;
  if (pending.returnFocus) pending.returnFocus.focus({ preventScroll: true });
  return pending;
}

function confirmMove() {
  if (!state.confirming) return;
  const { uci, typed } = closeConfirmation();
  typedMove = typed;
  sendMove(uci);
}

// The move is not sent and the board shows the game's position again. A typed move
// stays in the box, to be corrected or sent again.
function cancelMove() {
  if (!state.confirming) return;
  closeConfirmation();
  renderBoard();
}

// The game changed (the opponent moved, offered a draw, resigned…): the move waiting
// was made on a position that is gone, so it is dropped and the player told why.
function dropMoveForUpdate() {
  if (!state.confirming) return;
  cancelMove();
  showError(S.moveNotSent);
}

document.addEventListener("keydown", (e) => {
  if (!state.confirming || e.altKey || e.ctrlKey || e.metaKey) return;
  if (e.key === "Escape") {
    e.preventDefault();
    cancelMove();
  } else if (e.key === "Enter") {
    // On Confirm or Cancel, Enter presses the button focused. On the board (clicked
    // again while the move waits) or on nothing it confirms; in a field or on another
    // control it keeps its usual meaning.
    const target = e.target;
    const onPage = target === document.body || target === document.documentElement;
    if (onPage || (target instanceof Element && target.closest("#board"))) {
      e.preventDefault();
      confirmMove();
    }
  }
});

$("#btn-move-confirm")?.addEventListener("click", confirmMove);
$("#btn-move-cancel")?.addEventListener("click", cancelMove);

function sendMove(text) {
  state.pending = true;
  renderBoard();
  const number = state.game.next_move_number;
  // For the page's other scripts (the jump to the next game once it is played).
  document.dispatchEvent(new CustomEvent("game:move-sent", { detail: { number } }));
  send("move", { number, move: text });
}

// ------------------------------------------------------------------ rendering

function formatSeconds(total) {
  if (total < 60) return `${total} s`;
  const minutes = Math.floor(total / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ${minutes % 60} min`;
  return `${Math.floor(hours / 24)} d ${hours % 24} h`;
}

function renderMoves() {
  const list = $("#move-list");
  // Rebuilding the list drops the focused move button; the focus then stays in the
  // list (on the current move), so the replay keys keep working.
  const hadFocus = list.contains(document.activeElement) && document.activeElement !== list;
  list.replaceChildren();
  for (const row of moveRows(state.moves)) {
    // A row starts with White's move, or with the first move when Black moved first (a
    // game started from a position): then "12. …" stands for White's move before it.
    const li = document.createElement("li");
    li.className = "move-pair";
    const no = document.createElement("span");
    no.className = "move-no";
    no.textContent = row.label;
    li.append(no);
    list.append(li);
    for (const move of row.moves) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "move" + (move.number === state.ply ? " current" : "");
      button.dataset.ply = move.number;
      button.textContent = move.san;
      if (move.number === state.ply) button.setAttribute("aria-current", "step");
      li.append(button);
    }
  }
  if (state.game.status !== "active") {
    const result = document.createElement("li");
    result.className = "move-result";
    result.textContent = state.game.result_label;
    list.append(result);
  }
  const current = list.querySelector(".current");
  if (current) current.scrollIntoView({ block: "nearest" });
  if (hadFocus) (current || list).focus({ preventScroll: true });
}

// The move list is not a live region (it is redrawn whole): the new move alone is said,
// as "12. Nf3" or "12… Nf6".
function announceMove(move) {
  $("#move-announcer").textContent =
    `${move.move_number}${move.colour === "white" ? "." : "…"} ${move.san}`;
}

// "on vacation" beside a player's name, while they are away (the vacation's start and
// end reach the page as events of the game).
function renderAway() {
  for (const colour of ["white", "black"]) {
    const badge = $(`#away-${colour}`);
    if (badge) badge.hidden = !(state.away && state.away[colour]);
  }
}

// Each player's rating beside their name; once a rated game ends, with its change.
function renderRatings() {
  for (const colour of ["white", "black"]) {
    const side = state.ratings[colour];
    const box = $(`#rating-${colour}`);
    box.textContent = side.rating;
    if (side.change) {
      const change = document.createElement("span");
      change.className = "rating-change";
      change.textContent = side.change;
      box.append(" ", change);
    }
  }
}

function renderPanels() {
  const g = state.game;
  const active = g.status === "active";
  const banner = $("#result-banner");
  banner.classList.toggle("d-none", active);
  banner.classList.toggle("alert-info", !active);
  if (!active) banner.textContent = resultText(g, state.ratings, S, data.terminations);

  const drawBanner = $("#draw-banner");
  const offerBy = active ? g.draw_offer_by : null;
  if (offerBy && offerBy === me) {
    drawBanner.textContent = S.youOffered;
  } else if (offerBy) {
    drawBanner.textContent = S.drawOffered.replace("%(player)s", g[offerBy]);
  }
  drawBanner.classList.toggle("d-none", !offerBy);

  const actions = $("#actions");
  if (actions) {
    actions.classList.toggle("d-none", !active);
    $("#draw-answer").classList.toggle("d-none", !(offerBy && offerBy !== me));
    $("#btn-draw-offer").closest("form").classList.toggle("d-none", Boolean(offerBy));
    $("#claim-form").classList.toggle("d-none", !state.claimable);
    $("#move-form [name=number]").value = g.next_move_number;
  }
  $("#fen").value = fenAt(state.ply);
}

// The running clock: whose it is and its deadline; countdown.js counts it down.
function renderClock() {
  const box = $("#game-clock");
  if (!box) return;
  const clock = state.game.clock || {};
  const active = state.game.status === "active";
  const running = active && Boolean(clock.deadline);
  box.hidden = !(running || (active && clock.paused));
  const countdown = $("#game-clock-countdown");
  if (!running) {
    countdown.dataset.deadline = "";
    if (active && clock.paused) countdown.textContent = S.clockPaused;
    if (box.hidden) return;
  }
  const mine = Boolean(me) && clock.colour === me;
  $("#game-clock-whose").textContent = mine
    ? box.dataset.yourTime
    : box.dataset.theirTime.replace("%(player)s", state.game[clock.colour]);
  if (!running) return;
  countdown.dataset.deadline = clock.deadline;
  countdown.dataset.mine = mine ? "1" : "0";
  window.ajedrezCountdown?.tick();
}

// A Fischer clock's two banks: the side on the clock counts down to its deadline, the
// other shows what its bank holds.
function renderBanks() {
  const clock = state.game.clock || {};
  if (!clock.fischer || !clock.banks) return;
  const running = state.game.status === "active" && Boolean(clock.deadline);
  for (const colour of ["white", "black"]) {
    const bank = $(`#bank-${colour}`);
    if (!bank) continue;
    if (running && clock.colour === colour) {
      bank.dataset.deadline = clock.deadline;
      bank.dataset.mine = me === colour ? "1" : "0";
    } else {
      delete bank.dataset.deadline;
      bank.classList.remove("countdown-low", "countdown-over");
      bank.textContent = bankText(clock.banks[colour] || 0);
    }
  }
  window.ajedrezCountdown?.tick();
}

// "30d 2h": the largest two units of a bank standing still, as countdown.js writes them.
function bankText(seconds) {
  const days = Math.floor(seconds / 86400);
  const hours = Math.floor((seconds % 86400) / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  if (days) return `${days}d ${hours}h`;
  if (hours) return `${hours}h ${minutes}m`;
  return `${minutes}m`;
}

function renderStatus() {
  const conn = $("#status-connection");
  conn.hidden = false;
  conn.dataset.state = state.connection;
  conn.querySelector(".conn-text").textContent = S[state.connection];
  const g = state.game;
  $("#status-colour").textContent = me ? S[me] : S.spectator;
  $("#status-players").textContent = `${g.white} – ${g.black}`;
  $("#status-move").textContent = `${S.moveNumber} ${g.move_number}`;
  const last = state.moves[state.moves.length - 1];
  $("#status-think").textContent = last
    ? `${S.lastMoveTook} ${formatSeconds(last.think_seconds)}`
    : "";
  const turn = $("#status-turn");
  if (g.status === "active" && me && g.draw_offer_by) {
    turn.textContent = S.drawPending;
    turn.classList.remove("my-turn");
  } else if (g.status === "active" && me) {
    turn.textContent = g.turn === me ? S.yourTurn : S.theirTurn;
    turn.classList.toggle("my-turn", g.turn === me);
  } else {
    turn.textContent = "";
  }
}

function render() {
  root.dataset.version = state.version; // the game's version the page shows
  renderBoard();
  renderMoves();
  renderPanels();
  renderStatus();
  renderClock();
  renderBanks();
  renderRatings();
  renderAway();
  renderChatRooms(state.game, me !== null);
  // For the page's other scripts (the conditional moves' panel).
  document.dispatchEvent(new CustomEvent("game:changed", { detail: { game: state.game } }));
}

// An error shows for a few seconds; a sticky one (the session has ended) stays, since
// nothing on the page can be done until it is reloaded.
let stickyError = false;

function showError(message, { sticky = false } = {}) {
  if (stickyError) return;
  const box = $("#game-error");
  box.textContent = message;
  box.classList.remove("d-none");
  clearTimeout(showError.timer);
  stickyError = sticky;
  if (!sticky) showError.timer = setTimeout(() => box.classList.add("d-none"), 6000);
}

function clearError() {
  if (!stickyError) $("#game-error").classList.add("d-none");
}

// The page cannot go on: the session has ended (the server closed the socket with 4401,
// or an HTTP action was answered by the login page) or the game no longer exists
// (4404). Reconnecting or polling would only be refused again, so both stop; the
// message stays until the page is reloaded.
function stopLive(message) {
  stopped = true;
  clearTimeout(reconnectTimer);
  stopPolling();
  if (ws) ws.close();
  setConnection("disconnected");
  state.pending = false;
  cancelMove();
  renderBoard(); // no more moves on a board the server will not take them from
  showError(message, { sticky: true });
}

function sessionEnded() {
  stopLive(S.sessionEnded);
}

// ------------------------------------------------------------------ applying server state

// A live update redraws the board: a promotion being chosen on the old position is
// cancelled (the pawn goes back), the player sees the new state and may try again.
function closePromotionForUpdate() {
  promotionPicker.cancel();
}

function applySnapshot(snap) {
  closePromotionForUpdate();
  if (snap.version > state.version || snap.moves.some((m) => m.number > state.moves.length)) {
    dropMoveForUpdate();
  }
  const wasLive = isLive();
  const had = state.moves.length;
  if (snap.after === 0) {
    state.moves = snap.moves;
  } else {
    for (const move of snap.moves) {
      if (move.number === state.moves.length + 1) state.moves.push(move);
    }
  }
  // Moves caught up after a gap (a reconnection, the HTTP fallback): the last is news.
  if (state.moves.length > had) announceMove(state.moves[state.moves.length - 1]);
  if (snap.version >= state.version) {
    state.version = snap.version;
    state.game = snap.game;
    state.dests = snap.dests;
    state.claimable = snap.claimable;
    state.ratings = snap.ratings;
    state.away = snap.away;
  }
  state.pending = false;
  if (wasLive || state.ply > state.moves.length) state.ply = state.moves.length;
  render();
}

function playSound() {
  if (!data.prefs.sound) return;
  const audio = new Audio(root.dataset.soundUrl);
  audio.volume = 0.6;
  audio.play().catch(() => {}); // autoplay may be refused before any click: no matter
}

function applyEvent(event) {
  if (event.version <= state.version) return; // a copy of something we have
  if (event.version > state.version + 1) {
    requestSync();
    return;
  }
  closePromotionForUpdate();
  dropMoveForUpdate();
  const wasLive = isLive();
  if (event.move) {
    if (event.move.number !== state.moves.length + 1) {
      requestSync();
      return;
    }
    state.moves.push(event.move);
    announceMove(event.move);
    if (me && event.move.colour !== me) playSound();
  }
  state.version = event.version;
  state.game = event.game;
  state.dests = event.dests;
  state.claimable = event.claimable;
  if (event.ratings) state.ratings = event.ratings;
  if (event.away) state.away = event.away;
  if (event.event === "move" || event.game.status !== "active") state.pending = false;
  if (wasLive) state.ply = state.moves.length;
  render();
}

function requestSync() {
  if (ws && ws.readyState === WebSocket.OPEN) {
    ws.send(JSON.stringify({ type: "sync", version: state.version, after: state.moves.length }));
  } else {
    poll();
  }
}

// ------------------------------------------------------------------ connection

function setConnection(name) {
  state.connection = name;
  root.dataset.connection = name;
  renderStatus();
}

function connect() {
  clearTimeout(reconnectTimer);
  if (stopped) return;
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  setConnection("connecting");
  // Say how many moves we hold: the snapshot then carries only the ones we lack.
  ws = new WebSocket(`${scheme}//${location.host}${data.urls.ws}?after=${state.moves.length}`);
  ws.addEventListener("open", () => {
    stopPolling();
    setConnection("connected");
  });
  ws.addEventListener("message", (e) => {
    let msg;
    try {
      msg = JSON.parse(e.data);
    } catch {
      return;
    }
    // The backoff restarts only once the server has spoken: a socket it accepts and
    // closes at once (a refusal) must not reconnect at full speed.
    if (msg.type === "snapshot") reconnectAttempts = 0;
    if (msg.type === "snapshot") applySnapshot(msg);
    else if (msg.type === "event") applyEvent(msg);
    else if (msg.type === "ack") {
      clearError();
      if (msg.action === "move") typedMoveAnswered(true);
    }
    else if (msg.type === "error") onActionError(msg);
    else if (msg.type === "watchers") showWatchers(msg.count);
    else if (msg.type === "chat") showChatLine(msg);
    else if (msg.type === "chat_deleted") removeChatLine(msg.id);
  });
  ws.addEventListener("close", (e) => {
    ws = null;
    if (stopped) return;
    if (e.code === 4401) {
      sessionEnded();
      return;
    }
    if (e.code === 4404) {
      stopLive(S.gameNotFound);
      return;
    }
    setConnection("offline");
    startPolling();
    // Back off 0.5 s, 1 s, 2 s … up to 30 s, with jitter so pages do not stampede.
    const delay = Math.min(30000, 500 * 2 ** reconnectAttempts) * (0.75 + Math.random() / 2);
    reconnectAttempts += 1;
    reconnectTimer = setTimeout(connect, delay);
  });
}

function startPolling() {
  if (!pollTimer) pollTimer = setInterval(poll, POLL_MS);
}

function stopPolling() {
  clearInterval(pollTimer);
  pollTimer = null;
}

async function poll() {
  try {
    const response = await fetch(`${data.urls.state}?after=${state.moves.length}`, {
      headers: { Accept: "application/json" },
      credentials: "same-origin",
    });
    if (stopped) return;
    if (response.redirected) sessionEnded(); // to the login page
    else if (response.status === 404) stopLive(S.gameNotFound);
    else if (response.ok) applySnapshot(await response.json());
  } catch {
    // offline: the next poll or the socket will catch up
  }
}

function onActionError(msg) {
  state.pending = false;
  if (!msg.action || msg.action === "move") typedMoveAnswered(false, msg.message);
  showError(msg.message);
  render(); // snaps a piece moved on the board back to the position we know
  if (msg.code === "wrong_move_number") requestSync();
}

function csrfToken() {
  const input = document.querySelector("[name=csrfmiddlewaretoken]");
  return input ? input.value : "";
}

const HTTP_ACTIONS = {
  move: "move",
  draw_offer: "drawOffer",
  draw_answer: "drawAnswer",
  resign: "resign",
  claim_draw: "claimDraw",
};

async function send(type, fields = {}) {
  clearError();
  if (ws && ws.readyState === WebSocket.OPEN) {
    ws.send(JSON.stringify({ type, ...fields }));
    return;
  }
  // No socket: the same action as a plain form post, answered with a snapshot.
  const body = new FormData();
  for (const [key, value] of Object.entries(fields)) {
    body.append(key, typeof value === "boolean" ? (value ? "yes" : "no") : value);
  }
  body.append("after", state.moves.length);
  let response;
  try {
    response = await fetch(data.urls[HTTP_ACTIONS[type]], {
      method: "POST",
      body,
      credentials: "same-origin",
      headers: { Accept: "application/json", "X-CSRFToken": csrfToken() },
    });
  } catch {
    onActionError({ message: S.offline });
    return;
  }
  // The actions answer JSON. Anything else is not from them: the login page after the
  // session expired (a redirect), Django's CSRF refusal (403, after logging out and in
  // elsewhere), or a server error page. None of them means "offline".
  const json = (response.headers.get("Content-Type") || "").includes("application/json");
  if (!json) {
    state.pending = false;
    render();
    if (response.redirected || response.status === 401 || response.status === 403) {
      sessionEnded();
    } else {
      showError(S.serverError);
    }
    return;
  }
  let payload;
  try {
    payload = await response.json();
  } catch {
    onActionError({ message: S.serverError });
    return;
  }
  if (response.ok) {
    applySnapshot(payload);
    if (type === "move") typedMoveAnswered(true);
  } else {
    onActionError({ action: type, ...payload });
  }
}

// ------------------------------------------------------------------ controls

function step(to) {
  cancelMove(); // the board is about to show another position
  const last = state.moves.length;
  const target = { first: 0, prev: state.ply - 1, next: state.ply + 1, last }[to] ?? to;
  state.ply = Math.max(0, Math.min(last, target));
  render();
}

document.querySelectorAll("[data-step]").forEach((button) => {
  button.addEventListener("click", () => step(button.dataset.step));
});

$("#move-list").addEventListener("click", (e) => {
  const button = e.target.closest("button[data-ply]");
  if (button) step(Number(button.dataset.ply));
});

// Where the replay keys step through the game: the board, the move list and the replay
// buttons. Anywhere else (a field, a link, another button) the keys keep their usual
// meaning. On the page itself (nothing focused) the arrows step too, but Home and End
// still scroll the page.
const REPLAY_KEYS = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last" };
const REPLAY_AREAS = "#board, #move-list, .replay-buttons";

document.addEventListener("keydown", (e) => {
  const to = REPLAY_KEYS[e.key];
  if (!to || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
  // The promotion picker is a dialog over the board; a move waiting for Confirm has the
  // keyboard's attention (Enter, Escape) until it is confirmed or cancelled.
  if (promotionPicker.open || state.confirming) return;
  const target = e.target;
  const onPage = target === document.body || target === document.documentElement;
  const inReplayArea = target instanceof Element && target.closest(REPLAY_AREAS);
  if (!inReplayArea && !(onPage && (to === "prev" || to === "next"))) return;
  e.preventDefault();
  step(to);
});

// Clicking the board does not focus it (chessground handles the pointer itself): focus
// it here, so the replay keys work after playing on it. Focused by the pointer, it
// shows no focus ring (the CSS reads data-pointer-focus).
boardElement.addEventListener("pointerdown", () => {
  boardElement.dataset.pointerFocus = "true";
  boardElement.focus({ preventScroll: true });
});
boardElement.addEventListener("blur", () => delete boardElement.dataset.pointerFocus);

$("#flip").addEventListener("click", () => {
  state.orientation = state.orientation === "white" ? "black" : "white";
  renderBoard();
});

// Chessground draws the coordinates when it builds the board: redraw it whole.
$("#toggle-coordinates").addEventListener("click", (e) => {
  state.coordinates = !state.coordinates;
  e.currentTarget.setAttribute("aria-pressed", String(state.coordinates));
  ground.set({ coordinates: state.coordinates });
  ground.redrawAll();
});

// A typed move stays in the box until the server has taken it: refused (illegal, out
// of turn, offline), it is still there to be corrected, with the reason under it.
const moveForm = $("#move-form");
const moveInput = $("#move-input");
let typedMove = null; // the text sent and not yet answered

function typedMoveAnswered(accepted, message = "") {
  if (!moveInput) return;
  if (typedMove === null) {
    // A move made on the board was played: a refused typed move still in the box (not
    // edited since: editing clears the mark) speaks of a position that is gone.
    if (accepted && moveInput.classList.contains("is-invalid")) {
      moveInput.value = "";
      showTypedMoveError("");
    }
    return;
  }
  if (accepted && moveInput.value.trim() === typedMove) moveInput.value = "";
  typedMove = null;
  showTypedMoveError(accepted ? "" : message);
}

function showTypedMoveError(message) {
  const box = $("#move-input-error");
  if (!box) return;
  box.textContent = message;
  box.hidden = !message;
  moveInput.classList.toggle("is-invalid", Boolean(message));
  if (message) moveInput.setAttribute("aria-invalid", "true");
  else moveInput.removeAttribute("aria-invalid");
}

if (moveForm) {
  moveInput.addEventListener("input", () => showTypedMoveError(""));
  moveForm.addEventListener("submit", (e) => {
    e.preventDefault();
    const text = moveInput.value.trim();
    if (!text) return;
    step("last"); // also cancels a move waiting for Confirm: this one replaces it
    showTypedMoveError("");
    if (data.prefs.confirmMoves) {
      previewTypedMove(text);
    } else {
      typedMove = text;
      sendMove(text);
    }
  });
}

// Reads a typed move through the server (the one place that reads SAN and UCI, with
// its refusal of ambiguous text) without playing it, shows it on the board and asks
// for confirmation. A refusal reads as it would after sending.
async function previewTypedMove(text) {
  const serial = ++previewSerial;
  const version = state.version;
  const refused = (message) => {
    showTypedMoveError(message);
    showError(message);
  };
  const query = new URLSearchParams({ number: state.game.next_move_number, move: text });
  let response;
  try {
    response = await fetch(`${data.urls.movePreview}?${query}`, {
      headers: { Accept: "application/json" },
      credentials: "same-origin",
    });
  } catch {
    if (serial === previewSerial) refused(S.offline);
    return;
  }
  if (serial !== previewSerial) return; // another move was made or typed meanwhile
  if (response.redirected) {
    sessionEnded(); // to the login page
    return;
  }
  let payload;
  try {
    payload = await response.json();
  } catch {
    refused(S.serverError);
    return;
  }
  if (!response.ok) {
    refused(payload.message);
    return;
  }
  if (state.version !== version || !canMove()) {
    // The game changed while the server read the move: it was read on a position gone.
    showError(S.moveNotSent);
    return;
  }
  const orig = payload.uci.slice(0, 2);
  const dest = payload.uci.slice(2, 4);
  const piece = ground.state.pieces.get(orig);
  const enPassant =
    piece.role === "pawn" && orig[0] !== dest[0] && !ground.state.pieces.has(dest);
  ground.move(orig, dest);
  finishMoveOnBoard(orig, dest, payload.uci[4], enPassant);
  askToConfirm(payload.uci, payload.san, { returnFocus: moveInput, typed: text });
}

document.querySelectorAll("form[data-action]").forEach((form) => {
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const type = form.dataset.action;
    if (type === "draw_answer") {
      send(type, { accept: e.submitter && e.submitter.value === "yes" });
    } else {
      send(type);
    }
    const details = form.closest("details");
    if (details) details.open = false;
  });
});

// Throws when neither the Clipboard API nor the old execCommand could copy.
async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return;
  } catch {
    // No permission or no secure context: try the old way.
  }
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.style.position = "fixed";
  area.style.opacity = "0";
  document.body.append(area);
  area.select();
  const copied = document.execCommand("copy");
  area.remove();
  if (!copied) throw new Error("copy refused");
}

function exportFeedback(message, ok) {
  const box = $("#export-feedback");
  box.textContent = message;
  box.classList.toggle("is-ok", ok);
  box.classList.toggle("is-error", !ok);
  clearTimeout(exportFeedback.timer);
  if (ok) exportFeedback.timer = setTimeout(() => (box.textContent = ""), 4000);
}

async function copyWithFeedback(button, readText) {
  delete button.dataset.copied;
  let text;
  try {
    text = await readText();
  } catch (error) {
    exportFeedback(error.message || S.serverError, false);
    return;
  }
  try {
    await copyText(text);
  } catch {
    exportFeedback(S.copyFailed, false);
    return;
  }
  button.dataset.copied = "true";
  exportFeedback(S.copied, true);
}

$("#copy-pgn").addEventListener("click", (e) =>
  copyWithFeedback(e.currentTarget, async () => {
    let response;
    try {
      response = await fetch(data.urls.pgn, { credentials: "same-origin" });
    } catch {
      throw new Error(S.offline);
    }
    if (response.redirected) throw new Error(S.sessionEnded);
    if (!response.ok) throw new Error(S.serverError);
    return response.text();
  }),
);

$("#copy-fen").addEventListener("click", (e) =>
  copyWithFeedback(e.currentTarget, async () => fenAt(state.ply)),
);

// The FEN of the position shown, as a file: made here, the server is not asked.
const downloadFen = $("#download-fen");
downloadFen.hidden = false;
downloadFen.addEventListener("click", () => {
  const blob = new Blob([fenAt(state.ply) + "\n"], { type: "text/plain" });
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = downloadFen.dataset.filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
});

// A click (or tabbing in) selects the whole FEN, ready to copy by hand; dragging over
// part of it still selects just that part.
const fenInput = $("#fen");
const selectFen = () => {
  if (fenInput.selectionStart === fenInput.selectionEnd) fenInput.select();
};
fenInput.addEventListener("focus", selectFen);
fenInput.addEventListener("click", selectFen);

// Handles for the browser tests and for debugging from the console.
window.ajedrezGame = {
  state,
  get socket() {
    return ws;
  },
  reconnect: connect,
  boardFen: () => ground.getFen(),
  ground,
  confirmMove,
  cancelMove,
};

render();
setUpChat({ csrfToken, serverError: S.serverError });
if ("WebSocket" in window) {
  connect();
} else {
  setConnection("offline");
  startPolling();
}
