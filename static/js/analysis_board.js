// The analysis board: a board (chessground) and the moves played on it as a tree, the
// main line and its variations, from a game's position, a FEN or a PGN. chessops knows
// the rules in the browser; the engine is the server's, asked for one position at a
// time (and never for a game in progress: the server refuses, and a board opened from
// such a game has no engine button).
import { Chessground } from "../vendor/chessground/dist/chessground.js";
import { Chess, normalizeMove } from "../vendor/chessops/dist/chess.js";
import { chessgroundDests } from "../vendor/chessops/dist/compat.js";
import { INITIAL_FEN, makeBoardFen, makeFen, parseFen } from "../vendor/chessops/dist/fen.js";
import { parsePgn, startingPosition } from "../vendor/chessops/dist/pgn.js";
import { makeSanAndPlay, parseSan } from "../vendor/chessops/dist/san.js";
import { makeUci, parseSquare, parseUci } from "../vendor/chessops/dist/util.js";
import { PROMOTION_ROLES, PromotionPicker } from "./promotion.js";

const page = document.getElementById("analysis-board-page");
const data = JSON.parse(document.getElementById("analysis-board-data").textContent);
const S = data.strings;
const $ = (sel) => page.querySelector(sel);
const promotionPicker = new PromotionPicker($("#analysis-promotion"));
const POLL_MS = 1000;

// A node is a position: the move that led to it (none at the root), its SAN, its FEN,
// and the moves played from it, the first of them its main line.
let nextId = 0;
function makeNode(parent, pos, move, san) {
  return { id: nextId++, parent, fen: makeFen(pos.toSetup()), uci: move ? makeUci(move) : null, san, children: [] };
}

let root = null;
let current = null;
let orientation = "white";
let ground = null;
let pollTimer = null;

function positionOf(node) {
  return Chess.fromSetup(parseFen(node.fen).unwrap()).unwrap();
}

// Play ``move`` from ``node``: the existing child when it was played before, else a new
// variation (the main line when it is the first move from there).
function play(node, move) {
  const uci = makeUci(move);
  const existing = node.children.find((child) => child.uci === uci);
  if (existing) return existing;
  const pos = positionOf(node);
  const san = makeSanAndPlay(pos, move);
  const child = makeNode(node, pos, move, san);
  node.children.push(child);
  return child;
}

function load(fen, lines) {
  const setup = parseFen(fen || INITIAL_FEN);
  if (setup.isErr) return false;
  const pos = Chess.fromSetup(setup.value);
  if (pos.isErr) return false;
  root = makeNode(null, pos.value, null, null);
  current = root;
  for (const line of lines) line(root);
  return true;
}

// ------------------------------------------------------------------ moving through

function go(node) {
  if (!node) return;
  current = node;
  clearTimeout(pollTimer);
  render();
}

function mainlineEnd(node) {
  while (node.children.length) node = node.children[0];
  return node;
}

function sibling(offset) {
  if (!current.parent) return null;
  const siblings = current.parent.children;
  return siblings[siblings.indexOf(current) + offset] || null;
}

const KEYS = {
  ArrowLeft: () => current.parent,
  ArrowRight: () => current.children[0],
  ArrowUp: () => sibling(-1),
  ArrowDown: () => sibling(1),
  Home: () => root,
  End: () => mainlineEnd(current),
};

document.addEventListener("keydown", (e) => {
  const action = KEYS[e.key];
  if (!action || e.altKey || e.ctrlKey || e.metaKey || promotionPicker.open) return;
  const target = e.target;
  if (target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement) return;
  e.preventDefault();
  go(action());
});

page.querySelectorAll("[data-go]").forEach((button) => {
  button.addEventListener("click", () => {
    go({ first: () => root, prev: () => current.parent, next: () => current.children[0], last: () => mainlineEnd(current) }[button.dataset.go]());
  });
});

// ------------------------------------------------------------------ drawing

function moveLabel(node, forceNumber) {
  const pos = positionOf(node.parent);
  if (pos.turn === "white") return `${pos.fullmoves}. `;
  return forceNumber ? `${pos.fullmoves}… ` : "";
}

function moveButton(node, forceNumber) {
  const fragment = document.createDocumentFragment();
  const label = moveLabel(node, forceNumber);
  if (label) {
    const number = document.createElement("span");
    number.className = "move-number";
    number.textContent = label;
    fragment.append(number);
  }
  const button = document.createElement("button");
  button.type = "button";
  button.className = "node" + (node === current ? " current" : "");
  button.dataset.node = node.id;
  button.textContent = node.san;
  if (node === current) button.setAttribute("aria-current", "step");
  fragment.append(button);
  return fragment;
}

// The main line from ``node`` on, each variation in brackets after the move it replaces.
function renderLine(node, container, forceNumber) {
  let here = node;
  let needNumber = forceNumber;
  const add = (...parts) => {
    if (container.childNodes.length) container.append(" ");
    container.append(...parts);
  };
  while (here.children.length) {
    const [main, ...others] = here.children;
    add(moveButton(main, needNumber));
    needNumber = false;
    for (const other of others) {
      const variation = document.createElement("span");
      variation.className = "variation";
      variation.append(moveButton(other, true));
      renderLine(other, variation, false);
      add(variation);
      needNumber = true;
    }
    here = main;
  }
}

const byId = new Map();
function index(node) {
  byId.set(node.id, node);
  node.children.forEach(index);
}

function renderTree() {
  const tree = $("#analysis-tree");
  tree.replaceChildren();
  byId.clear();
  index(root);
  renderLine(root, tree, true);
  const active = tree.querySelector(".current");
  if (active) active.scrollIntoView({ block: "nearest" });
}

function renderBoard() {
  const pos = positionOf(current);
  ground.set({
    fen: makeBoardFen(pos.board),
    orientation,
    turnColor: pos.turn,
    check: pos.isCheck(),
    lastMove: current.uci ? [current.uci.slice(0, 2), current.uci.slice(2, 4)] : undefined,
    movable: {
      color: pos.isEnd() ? undefined : pos.turn,
      dests: pos.isEnd() ? new Map() : chessgroundDests(pos),
    },
  });
  $("#analysis-fen").value = current.fen;
}

function render() {
  renderBoard();
  renderTree();
  $("#engine-line").textContent = "";
  page.dataset.fen = current.fen;
}

$("#analysis-tree").addEventListener("click", (e) => {
  const button = e.target.closest("button[data-node]");
  if (button) go(byId.get(Number(button.dataset.node)));
});

async function onBoardMove(orig, dest) {
  const pos = positionOf(current);
  const move = { from: parseSquare(orig), to: parseSquare(dest) };
  const piece = pos.board.get(move.from);
  if (piece && piece.role === "pawn" && (dest[1] === "8" || dest[1] === "1")) {
    const before = current;
    const letter = await promotionPicker.choose(pos.turn);
    if (!letter || current !== before) {
      renderBoard();
      return;
    }
    move.promotion = PROMOTION_ROLES[letter];
  }
  go(play(current, normalizeMove(pos, move)));
}

// ------------------------------------------------------------------ the engine

function csrfToken() {
  const input = document.querySelector("[name=csrfmiddlewaretoken]");
  if (input) return input.value;
  const cookie = document.cookie.split("; ").find((c) => c.startsWith("csrftoken="));
  return cookie ? cookie.slice("csrftoken=".length) : "";
}

function showEvaluation(result) {
  const line = $("#engine-line");
  if (result.status === "done") {
    const best = result.best_san ? ` · ${S.best} ${result.best_san}` : "";
    line.textContent = `${result.label}${best} · ${S.depth} ${result.depth}`;
    line.dataset.state = "done";
  } else if (result.status === "failed") {
    line.textContent = S.failed;
    line.dataset.state = "failed";
  } else {
    line.textContent = S.evaluating;
    line.dataset.state = "waiting";
  }
}

async function evaluate(method) {
  const fen = current.fen;
  const line = $("#engine-line");
  try {
    const options =
      method === "POST"
        ? { method, headers: { Accept: "application/json", "X-CSRFToken": csrfToken() }, body: new URLSearchParams({ fen }) }
        : { headers: { Accept: "application/json" } };
    const url = method === "POST" ? data.urls.evaluation : `${data.urls.evaluation}?${new URLSearchParams({ fen })}`;
    const response = await fetch(url, options);
    const payload = await response.json();
    if (fen !== current.fen) return; // the board moved on meanwhile
    if (!response.ok) {
      line.textContent = payload.message || S.serverError;
      line.dataset.state = "refused";
      return;
    }
    showEvaluation(payload);
    if (payload.status === "queued") pollTimer = setTimeout(() => evaluate("GET"), POLL_MS);
  } catch {
    line.textContent = S.serverError;
  }
}

const evaluateButton = document.getElementById("btn-evaluate");
if (evaluateButton) {
  evaluateButton.addEventListener("click", () => {
    clearTimeout(pollTimer);
    $("#engine-line").textContent = S.queued;
    evaluate("POST");
  });
}

// ------------------------------------------------------------------ loading

function fromMoves(ucis) {
  return (node) => {
    let here = node;
    for (const uci of ucis) {
      const move = parseUci(uci);
      if (!move || !positionOf(here).isLegal(move)) return;
      here = play(here, move);
    }
  };
}

// The PGN's moves, its variations as variations.
function fromPgnNode(pgnNode) {
  return (node) => {
    for (const child of pgnNode.children) {
      const pos = positionOf(node);
      const move = parseSan(pos, child.data.san);
      if (!move) return;
      fromPgnNode(child)(play(node, move));
    }
  };
}

function loadPasted(text) {
  const trimmed = text.trim();
  if (!trimmed) return false;
  if (!trimmed.includes("[") && !/\d\./.test(trimmed) && trimmed.split(/\s+/).length <= 6) {
    if (!load(trimmed, [])) return S.invalidFen;
    return true;
  }
  const games = parsePgn(trimmed);
  if (!games.length) return S.invalidPgn;
  const start = startingPosition(games[0].headers);
  if (start.isErr) return S.invalidPgn;
  if (!load(makeFen(start.value.toSetup()), [fromPgnNode(games[0].moves)])) return S.invalidPgn;
  return true;
}

$("#analysis-load").addEventListener("submit", (e) => {
  e.preventDefault();
  const outcome = loadPasted($("#analysis-paste").value);
  $("#analysis-load-error").textContent = outcome === true ? "" : outcome || S.invalidFen;
  if (outcome === true) render();
});

$("#analysis-flip").addEventListener("click", () => {
  orientation = orientation === "white" ? "black" : "white";
  renderBoard();
});

function setUp() {
  const start = data.start;
  if (!load(start.fen, [fromMoves(start.moves.map((m) => m.uci))])) {
    load(null, []);
    $("#analysis-load-error").textContent = S.invalidFen;
  }
  // The half-move the page was opened at, along the main line.
  let node = root;
  for (let i = 0; i < (start.ply || 0) && node.children.length; i++) node = node.children[0];
  current = node;
  const board = document.getElementById("analysis-board");
  ground = Chessground(board, {
    coordinates: true,
    autoCastle: true,
    animation: { enabled: true, duration: 120 },
    premovable: { enabled: false },
    draggable: { enabled: true, showGhost: true },
    movable: { free: false, showDests: true, events: { after: onBoardMove } },
  });
  board.addEventListener("pointerdown", () => board.focus({ preventScroll: true }));
  render();
  page.dataset.ready = "true";
}

setUp();
