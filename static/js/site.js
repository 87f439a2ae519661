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
})();
