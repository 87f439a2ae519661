// The computer analysis on a finished game's page: asks for it, follows its progress,
// and draws it: the evaluation graph (uPlot, White's winning chances after each move,
// the marked moves as dots), the accuracy and the marks of each side, each move's
// evaluation with the engine's move. A point of the graph, or a move of the list, shows
// that position on the page's board (through the move list game.js draws).
//
// The progress is polled (GET the analysis' JSON while it waits or runs): the page's
// socket belongs to game.js, and an analysis is asked for rarely (docs/analysis.md).
const panel = document.getElementById("analysis");
const data = JSON.parse(document.getElementById("analysis-data").textContent);
const S = data.strings;
const POLL_MS = 1500;
const $ = (sel) => panel.querySelector(sel);

let state = data.state;
let chart = null;
let pollTimer = null;

function csrfToken() {
  const input = panel.querySelector("[name=csrfmiddlewaretoken]");
  return input ? input.value : "";
}

function fill(text, values) {
  return text.replace(/%\((\w+)\)s/g, (_, key) => String(values[key] ?? ""));
}

function statusText() {
  if (panel.dataset.active === "true") return S.inProgress;
  switch (state.status) {
    case "queued":
      return fill(S.queued, { position: (state.queue_position ?? 0) + 1 });
    case "running":
      return fill(S.running, { done: state.evaluated, total: state.positions });
    case "done":
      return fill(S.done, { engine: state.engine });
    case "failed":
      return state.error || S.failed;
    default:
      return state.available ? S.none : S.unavailable;
  }
}

// ------------------------------------------------------------------ the board's ply

// The ply the page's board shows: game.js marks it in its move list.
function currentPly() {
  const current = document.querySelector("#move-list .current");
  return current ? Number(current.dataset.ply) : 0;
}

// Show the position after ``ply`` half-moves on the page's board, as a click on the
// move list does.
function showPly(ply) {
  const target =
    ply === 0
      ? document.querySelector('[data-step="first"]')
      : document.querySelector(`#move-list button[data-ply="${ply}"]`);
  if (target) target.click();
  markCurrent();
}

function markCurrent() {
  const ply = currentPly();
  panel.querySelectorAll("#analysis-moves li").forEach((item) => {
    const here = Number(item.dataset.ply) === ply;
    item.classList.toggle("current", here);
    if (here) item.querySelector("button").setAttribute("aria-current", "step");
    else item.querySelector("button").removeAttribute("aria-current");
  });
  if (chart) chart.redraw(false, false);
  const link = $("#analysis-board-link");
  const url = new URL(link.href, location.href);
  url.searchParams.set("ply", ply);
  link.href = url.pathname + url.search;
}

// ------------------------------------------------------------------ drawing

const MARK_COLOURS = { inaccuracy: "#56b4e9", mistake: "#e69f00", blunder: "#d55e00" };

function graphData(points) {
  const plies = points.map((p) => p.ply);
  const wins = points.map((p) => p.win);
  const marks = Object.keys(MARK_COLOURS).map((mark) =>
    points.map((p) => (p.judgement === mark ? p.win : null)),
  );
  return [plies, wins, ...marks];
}

function drawGraph() {
  const figure = $("#analysis-graph");
  figure.hidden = state.points.length === 0;
  if (figure.hidden || !window.uPlot) return;
  if (chart) {
    chart.setData(graphData(state.points));
    return;
  }
  const style = getComputedStyle(document.body);
  const text = style.color;
  const grid = style.getPropertyValue("--bs-border-color").trim() || "#dee2e6";
  const axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid } };
  const size = () => ({
    width: figure.clientWidth,
    height: Math.min(220, Math.max(150, figure.clientWidth / 2.5)),
  });
  const markSeries = Object.entries(MARK_COLOURS).map(([mark, colour]) => ({
    label: S[mark],
    stroke: colour,
    width: 0,
    paths: () => null,
    points: { show: true, size: 8, fill: colour, stroke: colour },
  }));
  chart = new uPlot(
    {
      ...size(),
      legend: { show: false },
      cursor: { drag: { x: false, y: false }, points: { show: false } },
      scales: { x: { time: false, range: (u, min, max) => [0, Math.max(max, state.positions - 1)] }, y: { range: [0, 100] } },
      axes: [
        { ...axis, values: (u, ticks) => ticks.map((t) => (Number.isInteger(t) ? String(Math.ceil(t / 2)) : "")) },
        { ...axis, size: 48, incrs: [25, 50], values: (u, ticks) => ticks.map((t) => `${t}%`) },
      ],
      series: [
        {},
        { stroke: text, width: 2, fill: "rgba(127,127,127,0.15)" },
        ...markSeries,
      ],
      hooks: {
        // The position on the board: a line at its ply; the even line at 50 %.
        draw: [
          (u) => {
            const ctx = u.ctx;
            ctx.save();
            ctx.strokeStyle = grid;
            ctx.setLineDash([4, 4]);
            const middle = u.valToPos(50, "y", true);
            ctx.beginPath();
            ctx.moveTo(u.bbox.left, middle);
            ctx.lineTo(u.bbox.left + u.bbox.width, middle);
            ctx.stroke();
            ctx.setLineDash([]);
            ctx.strokeStyle = style.getPropertyValue("--bs-primary").trim() || "#0d6efd";
            const x = u.valToPos(currentPly(), "x", true);
            ctx.beginPath();
            ctx.moveTo(x, u.bbox.top);
            ctx.lineTo(x, u.bbox.top + u.bbox.height);
            ctx.stroke();
            ctx.restore();
          },
        ],
      },
    },
    graphData(state.points),
    figure,
  );
  chart.over.addEventListener("click", () => {
    const idx = chart.cursor.idx;
    if (idx !== null && idx !== undefined) showPly(state.points[idx].ply);
  });
  window.addEventListener("resize", () => chart.setSize(size()));
  figure.dataset.ready = "true";
}

function drawSummary() {
  const table = $("#analysis-summary");
  table.hidden = state.points.length === 0;
  for (const cell of table.querySelectorAll("td[data-side]")) {
    const { side, count } = cell.dataset;
    cell.textContent =
      count === "accuracy"
        ? state.accuracy
          ? `${state.accuracy[side]}%`
          : ""
        : String(state.counts[side][count]);
  }
}

function drawMoves() {
  const list = $("#analysis-moves");
  const moves = state.points.filter((p) => p.ply > 0);
  list.hidden = moves.length === 0;
  list.replaceChildren(
    ...moves.map((point) => {
      const item = document.createElement("li");
      item.dataset.ply = point.ply;
      if (point.judgement) item.className = `marked mark-${point.judgement}`;
      const button = document.createElement("button");
      button.type = "button";
      button.className = "btn btn-link btn-sm p-0 analysis-move";
      button.dataset.ply = point.ply;
      button.textContent = point.san + (point.glyph || "");
      const evaluation = document.createElement("span");
      evaluation.className = "analysis-eval font-monospace";
      evaluation.textContent = point.label;
      item.append(button, " ", evaluation);
      if (point.judgement) {
        const mark = document.createElement("span");
        mark.className = "analysis-mark";
        mark.textContent = S[point.judgement];
        item.append(" ", mark);
      }
      if (point.better_san) {
        const best = document.createElement("span");
        best.className = "analysis-best text-body-secondary";
        best.textContent = `(${S.best} ${point.better_san})`;
        item.append(" ", best);
      }
      return item;
    }),
  );
}

function render() {
  $("#analysis-status").textContent = statusText();
  const active = panel.dataset.active === "true";
  $("#analysis-request").hidden =
    active || !state.available || (state.status !== null && state.status !== "failed");
  drawGraph();
  drawSummary();
  drawMoves();
  markCurrent();
  panel.dataset.status = state.status || "";
}

// ------------------------------------------------------------------ asking and following

function following() {
  return state.status === "queued" || state.status === "running";
}

function schedulePoll() {
  clearTimeout(pollTimer);
  if (following()) pollTimer = setTimeout(poll, POLL_MS);
}

async function poll() {
  try {
    const response = await fetch(data.urls.analysis, { headers: { Accept: "application/json" } });
    if (response.ok) {
      state = await response.json();
      render();
    }
  } catch {
    // Offline for a moment: the next poll tries again.
  }
  schedulePoll();
}

$("#analysis-request").addEventListener("submit", async (e) => {
  e.preventDefault();
  const button = $("#btn-analysis");
  button.disabled = true;
  try {
    const response = await fetch(data.urls.analysis, {
      method: "POST",
      headers: { Accept: "application/json", "X-CSRFToken": csrfToken() },
    });
    const payload = await response.json();
    if (response.ok) {
      state = payload;
      render();
      schedulePoll();
    } else {
      $("#analysis-status").textContent = payload.message || S.serverError;
    }
  } catch {
    $("#analysis-status").textContent = S.serverError;
  } finally {
    button.disabled = false;
  }
});

$("#analysis-moves").addEventListener("click", (e) => {
  const button = e.target.closest("button[data-ply]");
  if (button) showPly(Number(button.dataset.ply));
});

// The board moved (a replay key, a click in game.js's list), or the game ended while the
// page was open: then the analysis may be asked for.
document.addEventListener("game:changed", (e) => {
  const active = e.detail && e.detail.game && e.detail.game.status === "active";
  if (panel.dataset.active === "true" && !active) {
    panel.dataset.active = "false";
    state = { ...state, allowed: true };
    render();
    return;
  }
  markCurrent();
});

// uPlot's script is deferred like this module; wait for the page's scripts to have run.
if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", () => {
    render();
    schedulePoll();
  });
} else {
  render();
  schedulePoll();
}
