// The rating chart on a player's profile: uPlot (static/vendor/uplot), the rating before
// the first rated game and after each one, by date. The numbers come from the page
// (#rating-chart-data: ratings, and the moment each was reached, in seconds since the
// epoch); the text under the chart says the same for screen readers and without scripts.
// Dates are written by the browser's Intl, in the page's language and the reader's own
// time zone.
(() => {
  const figure = document.getElementById("rating-chart");
  const data = JSON.parse(document.getElementById("rating-chart-data").textContent);
  if (!figure || !window.uPlot || data.ratings.length === 0) return;
  const style = getComputedStyle(document.body);
  const text = style.color;
  const grid = style.getPropertyValue("--bs-border-color").trim() || "#dee2e6";
  const line = style.getPropertyValue("--bs-primary").trim() || "#0d6efd";
  const lang = document.documentElement.lang || undefined;
  // Across more than about a year, the year tells the ticks apart; within one, the day.
  const span = data.times[data.times.length - 1] - data.times[0]; // seconds
  const dateFormat = new Intl.DateTimeFormat(
    lang,
    span > 330 * 86400 ? { month: "short", year: "numeric" } : { day: "numeric", month: "short" },
  );
  const dateTicks = (u, ticks) => {
    const labels = ticks.map((t) => dateFormat.format(new Date(t * 1000)));
    figure.dataset.xTicks = labels.join("|"); // what the axis says, for the tests
    return labels;
  };
  const axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid } };
  const size = () => ({
    width: figure.clientWidth,
    height: Math.min(240, Math.max(160, figure.clientWidth / 3)),
  });
  // The games' own span; a single day's games would make an empty one: a day either side.
  const first = data.times[0];
  const last = data.times[data.times.length - 1];
  const dayAround = () => (span < 86400 ? [first - 86400, last + 86400] : [first, last]);
  const chart = new uPlot(
    {
      ...size(),
      legend: { show: false },
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: true, range: dayAround } },
      axes: [{ ...axis, space: 70, values: dateTicks }, { ...axis, size: 50 }],
      series: [
        {},
        {
          stroke: line,
          width: 2,
          points: { show: data.ratings.length < 60, size: 5, fill: line },
        },
      ],
    },
    [data.times, data.ratings],
    figure,
  );
  window.addEventListener("resize", () => chart.setSize(size()));
  window.ajedrezRatingChart = chart; // for the console
  figure.dataset.ready = "true";
})();
