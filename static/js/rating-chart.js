// The rating chart on a player's profile: uPlot (static/vendor/uplot), the rating before
// the first rated game and after each one, game by game. The numbers come from the page
// (#rating-chart-data); the text under the chart says the same for screen readers and
// without scripts.
(() => {
  const figure = document.getElementById("rating-chart");
  const data = JSON.parse(document.getElementById("rating-chart-data").textContent);
  if (!figure || !window.uPlot || data.ratings.length === 0) return;
  const style = getComputedStyle(document.body);
  const text = style.color;
  const grid = style.getPropertyValue("--bs-border-color").trim() || "#dee2e6";
  const line = style.getPropertyValue("--bs-primary").trim() || "#0d6efd";
  const games = data.ratings.map((_, n) => n);
  const axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid } };
  const size = () => ({
    width: figure.clientWidth,
    height: Math.min(240, Math.max(160, figure.clientWidth / 3)),
  });
  const chart = new uPlot(
    {
      ...size(),
      legend: { show: false },
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: false } },
      axes: [
        // Whole games only: no tick between game 2 and game 3.
        { ...axis, incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500], values: (u, ticks) => ticks.map(String) },
        { ...axis, size: 50 },
      ],
      series: [
        {},
        {
          stroke: line,
          width: 2,
          points: { show: games.length < 60, size: 5, fill: line },
        },
      ],
    },
    [games, data.ratings],
    figure,
  );
  window.addEventListener("resize", () => chart.setSize(size()));
  figure.dataset.ready = "true";
})();
