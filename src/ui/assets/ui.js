// leadsync ui: the little that plain HTML does not do. Every page works without it.
"use strict";

// A large upload or a check takes a while: say so on the button pressed (or the form's first),
// and keep the form from being sent twice.
document.addEventListener("submit", (event) => {
  const form = event.target;
  const button = event.submitter || form.querySelector("button[type=submit]");
  const busy = (button && button.dataset.busy) || form.dataset.busy;
  if (!busy) return;
  if (button) {
    button.disabled = true;
    button.textContent = busy;
  }
  form.setAttribute("aria-busy", "true");
});

// A check or a send under way: the server pushes its status as it goes, rendered, and says
// when it is done, then the page loads its finished state. Where the stream cannot be had, the
// page looks again shortly (and has a Refresh link for those without script). Nothing is
// computed here.
const refresh = document.querySelector("[data-refresh]");
const reload = () => window.location.reload();
if (refresh && refresh.dataset.live && window.EventSource) {
  const stream = new EventSource(refresh.dataset.live);
  stream.onmessage = (event) => {
    refresh.innerHTML = event.data;
  };
  stream.addEventListener("done", () => {
    stream.close();
    reload();
  });
  stream.onerror = () => {
    stream.close();
    setTimeout(reload, Number(refresh.dataset.refresh) || 1000);
  };
} else if (refresh) {
  setTimeout(reload, Number(refresh.dataset.refresh) || 1000);
}
