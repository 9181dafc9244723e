// leadsync ui: the little that plain HTML does not do. Every page works without it.
"use strict";

// A large upload takes a while: say so, and keep the form from being sent twice.
document.addEventListener("submit", (event) => {
  const form = event.target;
  const busy = form.dataset.busy;
  if (!busy) return;
  const button = form.querySelector("button[type=submit]");
  if (button) {
    button.disabled = true;
    button.textContent = busy;
  }
  form.setAttribute("aria-busy", "true");
});

// A check or a send under way: look again shortly (the page has a Refresh link for those
// without script). The server renders the new state; nothing is computed here.
const refresh = document.querySelector("[data-refresh]");
if (refresh) {
  setTimeout(() => window.location.reload(), Number(refresh.dataset.refresh) || 1000);
}
