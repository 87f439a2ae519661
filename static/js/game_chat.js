// The game's chat (templates/games/_chat.html), for game.js: the rooms this reader may
// read, the lines that arrive live, and the form that writes in the reader's room.
// Lines arrive over the socket (one's own too), as text, never as markup.
// Each carries its moment (<time datetime>, UTC from the server), shown here as a time
// of day in the reader's own time zone and language.
const chatBox = document.getElementById("chat");
const pageLanguage = document.documentElement.lang || undefined;
const chatTimeFormat = new Intl.DateTimeFormat(pageLanguage, { timeStyle: "short" });
const chatMomentFormat = new Intl.DateTimeFormat(pageLanguage, {
  dateStyle: "medium",
  timeStyle: "short",
});

function localiseChatTime(element) {
  const at = new Date(element.dateTime);
  if (Number.isNaN(at.getTime())) return;
  element.textContent = chatTimeFormat.format(at);
  element.title = chatMomentFormat.format(at);
}

export function showChatLine(line) {
  const list = document.querySelector(`.chat-lines[data-room="${line.room}"]`);
  if (!list || list.querySelector(`[data-id="${line.id}"]`)) return;
  list.querySelector(".chat-empty")?.remove();
  const item = document.createElement("li");
  item.dataset.id = line.id;
  const time = document.createElement("time");
  time.className = "chat-time text-body-secondary";
  time.dateTime = line.at;
  localiseChatTime(time);
  const author = document.createElement("strong");
  author.textContent = line.author;
  const text = document.createElement("span");
  text.className = "chat-text";
  text.textContent = line.text;
  item.append(time, " ", author, " ", text);
  list.append(item);
  list.scrollTop = list.scrollHeight;
}

// A chat opens at its latest lines, as the ones that arrive live are shown.
for (const list of document.querySelectorAll(".chat-lines")) {
  list.querySelectorAll("time[datetime]").forEach(localiseChatTime);
  list.scrollTop = list.scrollHeight;
}

// The players read the spectators' chat once the game is over: the note that it is
// hidden goes when the game ends, and the page fetches that room then (once).
let spectatorsChatAsked = false;

export function renderChatRooms(game, isPlayer) {
  if (!chatBox) return;
  const over = game.status !== "active";
  const note = document.getElementById("chat-spectators-hidden");
  if (note) note.hidden = over;
  const shown = chatBox.querySelector('.chat-lines[data-room="spectators"]');
  if (over && isPlayer && !shown && !spectatorsChatAsked) {
    spectatorsChatAsked = true;
    showSpectatorsChat();
  }
}

async function showSpectatorsChat() {
  let answer;
  try {
    const response = await fetch(chatBox.dataset.url, {
      headers: { Accept: "application/json" },
      credentials: "same-origin",
    });
    if (!response.ok) return;
    answer = await response.json();
  } catch {
    return; // offline: the room is there after a reload
  }
  const lines = answer.rooms && answer.rooms.spectators;
  if (!lines || chatBox.querySelector('.chat-lines[data-room="spectators"]')) return;
  const heading = document.createElement("h3");
  heading.className = "h6 small text-body-secondary mt-2";
  heading.textContent = chatBox.dataset.spectatorsHeading;
  const list = document.createElement("ol");
  list.className = "chat-lines list-unstyled small mb-2";
  list.dataset.room = "spectators";
  list.setAttribute("aria-live", "polite");
  const empty = document.createElement("li");
  empty.className = "chat-empty text-body-secondary";
  empty.textContent = chatBox.dataset.empty;
  list.append(empty);
  const rooms = chatBox.querySelectorAll(".chat-lines");
  rooms[rooms.length - 1].after(heading, list);
  for (const line of lines) showChatLine(line);
}

export function removeChatLine(id) {
  document.querySelector(`.chat-lines [data-id="${id}"]`)?.remove();
}

// ``csrfToken``: reads the page's token; ``serverError``: what to say when the post fails.
export function setUpChat({ csrfToken, serverError }) {
  const form = document.querySelector(".chat-form");
  if (!form) return;
  const input = form.querySelector("[name=text]");
  const problem = document.querySelector(".chat-error");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = new FormData(form);
    problem.hidden = true;
    try {
      const response = await fetch(form.action, {
        method: "POST",
        body,
        credentials: "same-origin",
        headers: { Accept: "application/json", "X-CSRFToken": csrfToken() },
      });
      const answer = await response.json();
      if (!response.ok) {
        problem.textContent = answer.message;
        problem.hidden = false;
        return;
      }
      showChatLine(answer);
      input.value = "";
    } catch {
      problem.textContent = serverError;
      problem.hidden = false;
    }
  });
}
