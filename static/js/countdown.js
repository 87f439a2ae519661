// Live countdowns: every <time data-deadline="ISO UTC"> on the page counts down to its
// deadline each second, with no reload, and its tooltip shows the deadline in the
// reader's time zone (the page's: <html data-time-zone>), the zone named; with
// data-until="id", the element of that id shows it too ("until 27 Nov, 23:30 CET"). Elements are looked up on each tick, so parts of the page
// swapped in live (the dashboard) and deadlines changed by events (the game page)
// count down as soon as they appear. Durations are written by the browser's Intl in the
// page's language; the "time is up" text comes from the element (translated server-side).
(() => {
  "use strict";

  const lang = document.documentElement.lang || undefined;
  const LOW_MS = 24 * 3600 * 1000;
  const durationFormat =
    typeof Intl.DurationFormat === "function"
      ? new Intl.DurationFormat(lang, { style: "narrow" })
      : null;
  const zone = document.documentElement.dataset.timeZone || undefined;
  // dateStyle cannot be combined with timeZoneName: the parts are named one by one.
  const dateParts = {
    year: "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit",
    timeZoneName: "short",
  };
  let dateFormat;
  try {
    dateFormat = new Intl.DateTimeFormat(lang, { ...dateParts, timeZone: zone });
  } catch {
    // A zone this browser does not know: its own.
    dateFormat = new Intl.DateTimeFormat(lang, dateParts);
  }

  // The two largest units that matter: 2d 5h, 5h 12m, 12m 30s.
  function parts(ms) {
    let seconds = Math.floor(ms / 1000);
    const days = Math.floor(seconds / 86400);
    seconds -= days * 86400;
    const hours = Math.floor(seconds / 3600);
    seconds -= hours * 3600;
    const minutes = Math.floor(seconds / 60);
    seconds -= minutes * 60;
    if (days) return { days, hours };
    if (hours) return { hours, minutes };
    return { minutes, seconds };
  }

  function format(ms) {
    const p = parts(ms);
    if (durationFormat) return durationFormat.format(p);
    const unit = { days: "d", hours: "h", minutes: "m", seconds: "s" };
    return Object.entries(p).map(([k, v]) => `${v}${unit[k]}`).join(" ");
  }

  function tick() {
    const now = Date.now();
    for (const el of document.querySelectorAll("time[data-deadline]")) {
      const deadline = Date.parse(el.dataset.deadline);
      const until = el.dataset.until ? document.getElementById(el.dataset.until) : null;
      if (Number.isNaN(deadline)) {
        if (until) {
          until.textContent = "";
          until.dataset.writtenFor = "";
        }
        continue;
      }
      const left = deadline - now;
      el.textContent = left > 0 ? format(left) : el.dataset.expired || "0";
      el.classList.toggle("countdown-low", el.dataset.mine === "1" && left < LOW_MS);
      el.classList.toggle("countdown-over", left <= 0);
      const local = dateFormat.format(new Date(deadline));
      if (el.title !== local) el.title = local;
      // The server's own text stands until the deadline changes (its zone names, such
      // as "JST", are not always the browser's, which may say "GMT+9").
      if (until && until.dataset.writtenFor !== el.dataset.deadline) {
        until.textContent = (until.dataset.text || "%s").replace("%s", local);
        until.dataset.writtenFor = el.dataset.deadline;
      }
    }
  }

  tick();
  setInterval(tick, 1000);
  window.ajedrezCountdown = { tick };
})();
