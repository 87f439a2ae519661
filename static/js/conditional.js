// Conditional moves on the game page: the player's own lines ("if they play X, I reply
// Y…"), and a small board beside them to explore a new one. chessops gives the legal
// moves and their SAN in the browser; the server judges every line again when it is
// saved (games/conditional.py), so nothing here decides what is kept.
import { Chessground } from "../vendor/chessground/dist/chessground.js";
import { Chess, normalizeMove } from "../vendor/chessops/dist/chess.js";
import { chessgroundDests } from "../vendor/chessops/dist/compat.js";
import { makeBoardFen, parseFen } from "../vendor/chessops/dist/fen.js";
import { makeSan } from "../vendor/chessops/dist/san.js";
import { makeUci, parseSquare } from "../vendor/chessops/dist/util.js";
import { PROMOTION_ROLES, PromotionPicker } from "./promotion.js";

const panel = document.getElementById("conditional");
const data = JSON.parse(document.getElementById("game-data").textContent);
const S = data.strings;
const me = data.me.colour;

const state = {
  game: data.game,
  lines: data.conditional ? data.conditional.lines : [],
  draft: [], // [{ uci, san }], from the game's position
  busy: false,
};

const $ = (sel) => panel.querySelector(sel);
const promotionPicker = new PromotionPicker($("#conditional-promotion"));
let ground = null;

function csrfToken() {
  const input = document.querySelector("[name=csrfmiddlewaretoken]");
  return input ? input.value : "";
}

function editable() {
  return state.game.status === "active" && state.game.turn !== me;
}

// The position after the draft's moves, as chessops reads it.
function positionAfter(moves) {
  const pos = Chess.fromSetup(parseFen(state.game.fen).unwrap()).unwrap();
  for (const move of moves) pos.play(move.move);
  return pos;
}

// "2… e5 3. Nf3": numbered from the game's next half-move.
// Numbered as chess numbers moves from the game's position (its FEN's side to move and
// move number), so a game begun from a position with Black to move reads "1… g1=N".
function lineText(moves) {
  const start = positionAfter([]);
  let number = start.fullmoves;
  let white = start.turn === "white";
  return moves
    .map((move, i) => {
      const text = white ? `${number}. ${move.san}` : i === 0 ? `${number}… ${move.san}` : move.san;
      if (!white) number += 1;
      white = !white;
      return text;
    })
    .join(" ");
}

function showError(message) {
  const box = $("#conditional-error");
  box.textContent = message || "";
  box.hidden = !message;
}

function renderLines() {
  const list = $("#conditional-lines");
  list.replaceChildren();
  for (const [index, line] of state.lines.entries()) {
    const item = document.createElement("li");
    item.className = "conditional-line d-flex align-items-center gap-2";
    const text = document.createElement("span");
    text.className = "font-monospace";
    text.textContent = lineText(line);
    const remove = document.createElement("button");
    remove.type = "button";
    remove.className = "btn btn-link btn-sm p-0 conditional-remove";
    remove.textContent = S.conditionalRemove;
    remove.setAttribute("aria-label", `${S.conditionalRemove}: ${text.textContent}`);
    remove.disabled = !editable();
    remove.addEventListener("click", () =>
      save(state.lines.filter((_, i) => i !== index).map((l) => l.map((m) => m.uci))),
    );
    item.append(text, remove);
    list.append(item);
  }
  $("#conditional-empty").hidden = state.lines.length > 0;
  $("#conditional-clear").disabled = !editable() || state.lines.length === 0;
}

function renderEditor() {
  const can = editable();
  $("#conditional-editor").hidden = !can;
  $("#conditional-wait").hidden = can || state.game.status !== "active";
  $("#conditional-suspended").hidden = !(can && state.game.draw_offer_by);
  if (!can) return;
  const pos = positionAfter(state.draft);
  const last = state.draft[state.draft.length - 1];
  ground.set({
    fen: makeBoardFen(pos.board),
    turnColor: pos.turn,
    check: pos.isCheck(),
    lastMove: last ? [last.uci.slice(0, 2), last.uci.slice(2, 4)] : undefined,
    movable: {
      color: pos.isEnd() ? undefined : pos.turn,
      dests: pos.isEnd() ? new Map() : chessgroundDests(pos),
    },
  });
  const whose = state.draft.length % 2 === 0 ? S.conditionalTheirMove : S.conditionalYourReply;
  $("#conditional-draft").textContent = state.draft.length
    ? `${lineText(state.draft)} · ${pos.isEnd() ? "" : whose}`
    : S.conditionalStart;
  const complete = state.draft.length >= 2 && state.draft.length % 2 === 0;
  $("#conditional-save").disabled = !complete || state.busy;
  $("#conditional-undo").disabled = state.draft.length === 0;
}

function render() {
  // Conditional moves are for a game in progress: the panel goes when it ends.
  panel.hidden = state.game.status !== "active";
  renderLines();
  renderEditor();
}

async function onBoardMove(orig, dest) {
  const pos = positionAfter(state.draft);
  const from = parseSquare(orig);
  const to = parseSquare(dest);
  const piece = pos.board.get(from);
  const move = { from, to };
  if (piece && piece.role === "pawn" && (dest[1] === "8" || dest[1] === "1")) {
    // Either side's pawn: a line holds their moves and the player's replies.
    const before = state.draft.length;
    const letter = await promotionPicker.choose(pos.turn);
    // Undo, Start again or a new position while the dialog was open: that drag is gone.
    if (!letter || state.draft.length !== before || !editable()) {
      renderEditor(); // cancelled: the pawn goes back
      return;
    }
    move.promotion = PROMOTION_ROLES[letter];
  }
  const normal = normalizeMove(pos, move);
  state.draft.push({ move: normal, uci: makeUci(normal), san: makeSan(pos, normal) });
  showError("");
  renderEditor();
}

async function request(method, body) {
  state.busy = true;
  renderEditor();
  try {
    const response = await fetch(data.urls.conditional, {
      method,
      credentials: "same-origin",
      headers: {
        Accept: "application/json",
        "Content-Type": "application/json",
        "X-CSRFToken": csrfToken(),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const payload = await response.json().catch(() => ({ message: S.serverError }));
    if (!response.ok) {
      showError(payload.message || S.serverError);
      if (payload.code === "wrong_move_number") await refresh();
      return false;
    }
    showError("");
    state.lines = payload.lines || [];
    if (payload.move_number) state.game = { ...state.game, next_move_number: payload.move_number };
    return true;
  } catch {
    showError(S.serverError);
    return false;
  } finally {
    state.busy = false;
    render();
  }
}

function save(lines) {
  return request("POST", { move_number: state.game.next_move_number, lines });
}

async function refresh() {
  await request("GET");
}

function setUp() {
  ground = Chessground(document.getElementById("conditional-board"), {
    orientation: data.prefs.orientation,
    coordinates: false,
    autoCastle: true,
    animation: { enabled: true, duration: 120 },
    premovable: { enabled: false },
    draggable: { enabled: true, showGhost: true },
    movable: { free: false, showDests: true, events: { after: onBoardMove } },
  });
  $("#conditional-save").addEventListener("click", async () => {
    const current = state.lines.map((line) => line.map((m) => m.uci));
    if (await save([...current, state.draft.map((m) => m.san)])) {
      state.draft = [];
      render();
    }
  });
  $("#conditional-undo").addEventListener("click", () => {
    state.draft.pop();
    showError("");
    renderEditor();
  });
  $("#conditional-reset").addEventListener("click", () => {
    state.draft = [];
    showError("");
    renderEditor();
  });
  $("#conditional-clear").addEventListener("click", () => request("DELETE"));
  // Typed lines, for the keyboard: sent as typed, the server reads and judges them.
  $("#conditional-typed").addEventListener("submit", async (event) => {
    event.preventDefault();
    const input = $("#conditional-typed-line");
    // Move numbers as people write them ("2.", "1...", "2…Nc6") are not moves.
    const typed = input.value
      .trim()
      .split(/\s+/)
      .map((token) => token.replace(/^\d+(\.+|…)/, ""))
      .filter(Boolean);
    if (typed.length === 0) return;
    const current = state.lines.map((line) => line.map((m) => m.uci));
    if (await save([...current, typed])) input.value = "";
  });
  // game.js tells when the game has changed (a move, a reply, an offer, the end):
  // the lines are read again, since a move may have played a reply or dropped them.
  document.addEventListener("game:changed", (event) => {
    const game = event.detail.game;
    const moved =
      game.next_move_number !== state.game.next_move_number || game.status !== state.game.status;
    state.game = game;
    if (moved) {
      state.draft = [];
      if (game.status === "active") refresh();
      else state.lines = [];
    }
    render();
  });
  render();
}

if (panel && me) setUp();
