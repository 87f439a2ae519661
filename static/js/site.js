// Small behaviours shared by every page, driven by data attributes so that the
// templates stay plain HTML that also works without JavaScript.
(() => {
  "use strict";

  // data-confirm="Question?" on a form or on one of its submit buttons: ask before
  // sending a request that cannot be undone (declining a challenge, for instance).
  document.addEventListener("submit", (event) => {
    const question = event.submitter?.dataset.confirm ?? event.target.dataset?.confirm;
    if (question && !window.confirm(question)) {
      event.preventDefault();
    }
  });

  // data-enabled-by="id" on a fieldset: usable only while the checkbox with that id is
  // ticked (the kinds of e-mail, under "send me e-mail").
  for (const fieldset of document.querySelectorAll("fieldset[data-enabled-by]")) {
    const checkbox = document.getElementById(fieldset.dataset.enabledBy);
    if (!checkbox) continue;
    const follow = () => { fieldset.disabled = !checkbox.checked; };
    checkbox.addEventListener("change", follow);
    follow();
  }

  // The browser's time zone (Intl): pages are written in it for a reader who chose none
  // (the "tz" cookie, read by the server), and sign-up takes it as the player's first
  // choice (the hidden field of the form).
  let zone = "";
  try {
    zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "";
  } catch {
    zone = "";
  }
  if (/^[A-Za-z0-9_+\-/]{1,64}$/.test(zone)) {
    if (!document.cookie.split("; ").includes(`tz=${zone}`)) {
      document.cookie = `tz=${zone}; path=/; max-age=31536000; samesite=lax`;
    }
    for (const input of document.querySelectorAll('input[type="hidden"][name="time_zone"]')) {
      if (!input.value) input.value = zone;
    }
  }
})();
