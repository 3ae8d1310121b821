// Taskchat's try-it page: plain JavaScript, no build step, no dependencies.
// Everything the server or the model sends is inserted with textContent, never as HTML.
"use strict";

const $ = (id) => document.getElementById(id);
const state = { conversationId: null, busy: false };

function tokenSubject(token) {
  // Only to show who the token is for and to build /api/{user}/...; the server verifies the signature.
  try {
    const part = token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
    return JSON.parse(atob(part.padEnd(part.length + ((4 - (part.length % 4)) % 4), "="))).sub || null;
  } catch {
    return null;
  }
}

function token() {
  return $("token").value.trim();
}

function user() {
  return tokenSubject(token());
}

async function api(path, options = {}) {
  const headers = { "Content-Type": "application/json", ...(options.headers || {}) };
  if (token()) headers.Authorization = `Bearer ${token()}`;
  const response = await fetch(path, { ...options, headers });
  const body = await response.json().catch(() => null);
  if (!response.ok) {
    const error = new Error(body && body.detail ? `${body.error}: ${body.detail}` : `HTTP ${response.status}`);
    error.status = response.status;
    throw error;
  }
  return body;
}

function showWho() {
  const sub = user();
  $("who").textContent = token() ? (sub ? `Signed in as ${sub}.` : "That does not look like a JWT.") : "";
  if (sub) {
    $("user").value = sub;
    sessionStorage.setItem("taskchat.token", token());
  }
}

async function mint() {
  try {
    const body = await api("/dev/token", { method: "POST", body: JSON.stringify({ user_id: $("user").value.trim() }) });
    $("token").value = body.access_token;
    showWho();
    await refreshTasks();
  } catch (error) {
    $("who").textContent =
      error.status === 404 ? "/dev/token only exists when ENVIRONMENT=development; use `taskchat token USER_ID`."
                           : error.message;
  }
}

function addMessage(role, text) {
  const item = document.createElement("li");
  item.className = `message ${role}`;
  const bubble = document.createElement("div");
  bubble.className = "bubble";
  bubble.textContent = text;
  item.append(bubble);
  $("messages").append(item);
  item.scrollIntoView({ block: "end" });
  return item;
}

function renderToolCalls(item, calls) {
  if (!calls.length) return;
  const list = document.createElement("ul");
  list.className = "tool-calls";
  for (const call of calls) {
    const row = $("tool-call-template").content.firstElementChild.cloneNode(true);
    const ok = call.result && call.result.success;
    row.classList.add(ok ? "ok" : "failed");
    row.querySelector(".badge").textContent = ok ? "✓" : "✗";
    row.querySelector(".name").textContent = call.name + (call.retried ? " (guard retry)" : "");
    row.querySelector(".args").textContent = JSON.stringify(call.arguments);
    row.querySelector(".result").textContent = ok ? summarize(call.result.data) : call.result.error;
    list.append(row);
  }
  item.append(list);
}

function summarize(data) {
  if (data && Array.isArray(data.tasks)) return `${data.count} task(s)`;
  if (data && data.title) return `${data.title} — ${data.status}`;
  return JSON.stringify(data);
}

async function send(event) {
  event.preventDefault();
  const message = $("message").value.trim();
  if (!message || state.busy) return;
  if (!user()) {
    addMessage("error", "Get or paste a token first.");
    return;
  }
  state.busy = true;
  $("send").disabled = true;
  $("message").value = "";
  addMessage("user", message);
  const pending = addMessage("assistant pending", "…");
  try {
    const body = await api(`/api/${encodeURIComponent(user())}/chat`, {
      method: "POST",
      body: JSON.stringify({ message, conversation_id: state.conversationId }),
    });
    state.conversationId = body.conversation_id;
    pending.classList.remove("pending");
    pending.querySelector(".bubble").textContent = body.assistant_message;
    renderToolCalls(pending, body.tool_calls);
    await refreshTasks();
  } catch (error) {
    pending.className = "message error";
    pending.querySelector(".bubble").textContent = error.message;
  } finally {
    state.busy = false;
    $("send").disabled = false;
    $("message").focus();
  }
}

async function refreshTasks() {
  if (!user()) return;
  try {
    const tasks = await api(`/api/${encodeURIComponent(user())}/tasks?status=${$("status").value}`);
    const list = $("tasks");
    list.replaceChildren();
    for (const task of tasks) {
      const item = document.createElement("li");
      item.className = `task ${task.status} ${task.priority}`;
      const title = document.createElement("span");
      title.className = "title";
      title.textContent = task.title;
      const meta = document.createElement("span");
      meta.className = "meta";
      meta.textContent = [task.priority, task.due_date && `due ${task.due_date}`, ...task.tags.map((t) => `#${t}`)]
        .filter(Boolean)
        .join(" · ");
      item.append(title, meta);
      list.append(item);
    }
    $("tasks-empty").hidden = tasks.length > 0;
  } catch (error) {
    $("who").textContent = error.message;
  }
}

document.addEventListener("DOMContentLoaded", () => {
  $("token").value = sessionStorage.getItem("taskchat.token") || "";
  showWho();
  $("token").addEventListener("input", () => {
    showWho();
    refreshTasks();
  });
  $("mint").addEventListener("click", mint);
  $("composer").addEventListener("submit", send);
  $("status").addEventListener("change", refreshTasks);
  $("new-conversation").addEventListener("click", () => {
    state.conversationId = null;
    $("messages").replaceChildren();
  });
  refreshTasks();
});
