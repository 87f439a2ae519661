// A player's private note on the game page: saved without leaving the page (the form
// posts as is without scripts). Only its writer ever reads it.
const form = document.getElementById("note-form");
const feedback = document.getElementById("note-feedback");
const strings = JSON.parse(document.getElementById("analysis-data").textContent).strings;

form.addEventListener("submit", async (e) => {
  e.preventDefault();
  const button = form.querySelector("button[type=submit]");
  button.disabled = true;
  feedback.classList.remove("text-danger");
  try {
    const response = await fetch(form.action, {
      method: "POST",
      headers: { Accept: "application/json" },
      body: new FormData(form),
    });
    const payload = await response.json();
    if (!response.ok) throw new Error(payload.message || strings.serverError);
    feedback.textContent = strings.noteSaved;
  } catch (error) {
    feedback.textContent = error.message || strings.serverError;
    feedback.classList.add("text-danger");
  } finally {
    button.disabled = false;
  }
});
