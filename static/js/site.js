// Small behaviours shared by every page; each works from data attributes so the
// templates stay plain HTML that also works without JavaScript.
(() => {
  "use strict";

  // <form data-confirm="Are you sure?">: ask before sending a destructive request.
  document.addEventListener("submit", (event) => {
    const form = event.target;
    const question = form instanceof HTMLFormElement ? form.dataset.confirm : undefined;
    if (question && !window.confirm(question)) {
      event.preventDefault();
    }
  });

  // <select data-autosubmit>: send the form as soon as the choice changes.
  document.addEventListener("change", (event) => {
    const field = event.target;
    if (field instanceof HTMLSelectElement && field.hasAttribute("data-autosubmit") && field.form) {
      field.form.requestSubmit();
    }
  });
})();
