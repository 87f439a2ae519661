// The dialog over a board that asks which piece a pawn becomes
// (templates/games/_promotion.html): the game's board and the conditional moves' board.
export class PromotionPicker {
  constructor(element) {
    this.element = element;
    this.close = null; // closes the open dialog as if cancelled; null while none is open
  }

  get open() {
    return this.close !== null;
  }

  cancel() {
    if (this.close) this.close();
  }

  // Resolves with "q", "r", "b" or "n", or null when cancelled (button, Escape, cancel()).
  choose(colour) {
    const picker = this.element;
    picker.querySelectorAll("piece").forEach((p) => {
      p.classList.remove("white", "black");
      p.classList.add(colour);
    });
    picker.classList.remove("d-none");
    picker.querySelector(".promotion-choice").focus();
    return new Promise((resolve) => {
      const done = (letter) => {
        this.close = null;
        picker.classList.add("d-none");
        picker.removeEventListener("click", onClick);
        document.removeEventListener("keydown", onKey, true);
        resolve(letter);
      };
      this.close = () => done(null);
      const onClick = (e) => {
        const button = e.target.closest("button[data-piece]");
        if (button) done(button.dataset.piece || null);
      };
      const onKey = (e) => {
        if (e.key === "Escape") done(null);
      };
      picker.addEventListener("click", onClick);
      document.addEventListener("keydown", onKey, true);
    });
  }
}

export const PROMOTION_ROLES = { q: "queen", r: "rook", b: "bishop", n: "knight" };
