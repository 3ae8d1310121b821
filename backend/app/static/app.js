// Taskchat's try-it page: plain JavaScript, no build step, no dependencies.
// Everything the server or the model sends is inserted with textContent, never as HTML.
"use strict";

const $ = (id) => document.getElementById(id);
const PAGE_SIZE = 50;
const MAX_PAGE = 200; // the server's largest `limit`
const SEARCH_DELAY_MS = 250;
const state = {
  conversationId: null,
  busy: false,
  tasks: new Map(), // id -> the task as last read; its `version` goes into If-Match
  nextCursor: null,
  listed: 0, // rows asked for by the pages loaded so far: a refresh asks for as many again
  listTicket: 0, // bumped by every list load, so a late answer to an older one is dropped
  searchTimer: null,
};

// --- Token -----------------------------------------------------------------------------------

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

function userPath(suffix) {
  return `/api/${encodeURIComponent(user())}${suffix}`;
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
    await reloadTasks();
  } catch (error) {
    $("who").textContent =
      error.status === 404 ? "/dev/token only exists when ENVIRONMENT=development; use `taskchat token USER_ID`."
                           : error.message;
  }
}

// --- HTTP ------------------------------------------------------------------------------------

function headersWith(extra = {}) {
  const headers = { "Content-Type": "application/json", ...extra };
  if (token()) headers.Authorization = `Bearer ${token()}`;
  return headers;
}

// Every error is JSON {"error": CODE, "detail": text}; the status and code stay on the Error.
function apiError(status, body) {
  const error = new Error(body && body.detail ? `${body.error}: ${body.detail}` : `HTTP ${status}`);
  error.status = status;
  error.code = body && body.error;
  return error;
}

async function request(path, options = {}) {
  const response = await fetch(path, { ...options, headers: headersWith(options.headers) });
  const body = response.status === 204 ? null : await response.json().catch(() => null);
  if (!response.ok) throw apiError(response.status, body);
  return { body, headers: response.headers };
}

async function api(path, options) {
  return (await request(path, options)).body;
}

// The version the page last read: the server refuses the change (412) if the task changed since.
function ifMatch(task) {
  return { "If-Match": `"${task.version}"` };
}

// --- Chat ------------------------------------------------------------------------------------

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

function toolList(item) {
  let list = item.querySelector(".tool-calls");
  if (!list) {
    list = document.createElement("ul");
    list.className = "tool-calls";
    item.querySelector(".bubble").after(list);
  }
  return list;
}

function renderToolCall(item, call) {
  const row = $("tool-call-template").content.firstElementChild.cloneNode(true);
  const ok = call.result && call.result.success;
  row.classList.add(ok ? "ok" : "failed");
  row.querySelector(".badge").textContent = ok ? "✓" : "✗";
  row.querySelector(".name").textContent = call.name + (call.retried ? " (guard retry)" : "");
  row.querySelector(".args").textContent = JSON.stringify(call.arguments);
  row.querySelector(".result").textContent = ok ? summarize(call.result.data) : call.result.error;
  toolList(item).append(row);
  row.scrollIntoView({ block: "end" });
}

function summarize(data) {
  if (data && Array.isArray(data.tasks)) return `${data.count} task(s)`;
  if (data && data.title) return `${data.title} — ${data.status}`;
  return JSON.stringify(data);
}

// The answers the server offers, written in the user's language: [label, message sent, extra body].
function answerChoices(confirmation) {
  return (confirmation.answers || []).map((a) => [a.label, a.message, a.confirm ? { confirm: a.confirm } : {}]);
}

function renderQuestion(item, confirmation, replyText) {
  const box = document.createElement("div");
  box.className = "confirmation";
  if (!replyText.includes(confirmation.question)) {
    const question = document.createElement("p");
    question.className = "question";
    question.textContent = confirmation.question;
    box.append(question);
  }
  for (const [label, message, extra] of answerChoices(confirmation)) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "answer";
    button.textContent = label;
    button.addEventListener("click", () => say(message, extra));
    box.append(button);
  }
  item.append(box);
}

// The next message answers (or cancels) a pending question: older answer buttons stop working.
function closeQuestions() {
  for (const button of document.querySelectorAll(".confirmation .answer")) button.disabled = true;
}

// The assistant message of one turn, filled in as the stream's events arrive.
function startReply() {
  const item = addMessage("assistant pending", "…");
  const bubble = item.querySelector(".bubble");
  let text = "";
  let tools = 0;
  let question = null;
  return {
    tool(call) {
      renderToolCall(item, call);
      tools += 1;
    },
    delta(piece) {
      text += piece;
      bubble.textContent = text;
    },
    reset() {
      // The words shown so far are not the reply (model mode: the model went on, or they were replaced).
      text = "";
      bubble.textContent = "…";
    },
    confirmation(asked) {
      question = asked;
    },
    done(body) {
      state.conversationId = body.conversation_id;
      if (!tools) for (const call of body.tool_calls || []) renderToolCall(item, call); // not streamed
      bubble.textContent = body.assistant_message; // the whole reply: the deltas joined
      question = question || body.confirmation;
      if (question) renderQuestion(item, question, body.assistant_message);
      item.classList.remove("pending");
      item.scrollIntoView({ block: "end" });
    },
    fail(message) {
      item.className = "message error";
      bubble.textContent = message;
    },
  };
}

// Server-sent events from a fetch body (EventSource cannot POST): blocks end with a blank line,
// each has an `event:` line and `data:` lines holding JSON.
async function* serverEvents(body) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer = (buffer + value).replace(/\r\n/g, "\n");
      let end;
      while ((end = buffer.indexOf("\n\n")) !== -1) {
        const parsed = parseEvent(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (parsed) yield parsed;
      }
    }
  } finally {
    reader.cancel().catch(() => {});
  }
}

function parseEvent(block) {
  let name = "message";
  const data = [];
  for (const line of block.split("\n")) {
    if (line.startsWith("event:")) name = line.slice(6).trim();
    else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
  }
  return data.length ? [name, JSON.parse(data.join("\n"))] : null;
}

async function streamChat(payload, reply) {
  const response = await fetch(userPath("/chat"), {
    method: "POST",
    headers: headersWith({ Accept: "text/event-stream" }),
    body: JSON.stringify(payload),
  });
  if (!(response.headers.get("Content-Type") || "").startsWith("text/event-stream")) {
    // An error before the first event keeps its status and JSON body (and a JSON reply is the same turn).
    const body = await response.json().catch(() => null);
    if (!response.ok) throw apiError(response.status, body);
    reply.done(body);
    return;
  }
  for await (const [name, data] of serverEvents(response.body)) {
    if (name === "tool") reply.tool(data);
    else if (name === "confirmation") reply.confirmation(data);
    else if (name === "delta") reply.delta(data.text);
    else if (name === "reset") reply.reset();
    else if (name === "error") throw apiError(response.status, data);
    else if (name === "done") return reply.done(data);
  }
  throw new Error("The connection closed before the reply was complete.");
}

async function say(message, extra = {}) {
  if (!message || state.busy) return;
  if (!user()) {
    addMessage("error", "Get or paste a token first.");
    return;
  }
  state.busy = true;
  $("send").disabled = true;
  $("message").value = "";
  closeQuestions();
  addMessage("user", message);
  const reply = startReply();
  try {
    await streamChat({ message, conversation_id: state.conversationId, ...extra }, reply);
  } catch (error) {
    reply.fail(error.message);
  } finally {
    state.busy = false;
    $("send").disabled = false;
    $("message").focus();
  }
  notify(""); // the chat made the latest change: an Undo offered for an earlier one would undo this
  await refreshTasks();
}

// --- Tasks -----------------------------------------------------------------------------------

function notify(text, { error = false, undo = false } = {}) {
  $("notice").hidden = !text;
  $("notice").classList.toggle("error", error);
  $("notice-text").textContent = text;
  $("undo").hidden = !undo;
}

function rowOf(id) {
  return $("tasks").querySelector(`.task[data-id="${CSS.escape(id)}"]`);
}

function taskRow(task) {
  const row = $("task-template").content.firstElementChild.cloneNode(true);
  row.classList.add(task.status, task.priority);
  row.dataset.id = task.id;
  const done = row.querySelector(".done");
  done.checked = task.status === "completed";
  done.setAttribute("aria-label", `Done: ${task.title}`);
  row.querySelector(".title").textContent = task.title;
  row.querySelector(".meta").textContent = taskMeta(task);
  done.addEventListener("change", () => change(task.id, { status: done.checked ? "completed" : "pending" }));
  row.querySelector(".title").addEventListener("dblclick", () => startEdit(task.id));
  row.querySelector(".edit").addEventListener("click", () => startEdit(task.id));
  row.querySelector(".delete").addEventListener("click", () => removeTask(task.id));
  return row;
}

function taskMeta(task) {
  const due = task.due_date && `due ${task.due_date}`;
  return [task.priority, due, ...task.tags.map((t) => `#${t}`)].filter(Boolean).join(" · ");
}

// Lists the task, or redraws its row in place when it is already listed.
function showTask(task) {
  state.tasks.set(task.id, task);
  const row = taskRow(task);
  const old = rowOf(task.id);
  if (old) old.replaceWith(row);
  else $("tasks").append(row);
}

function dropTask(id) {
  state.tasks.delete(id);
  const row = rowOf(id);
  if (row) row.remove();
  showEmpty();
}

function showEmpty() {
  const filtered = $("search").value.trim() || $("status").value !== "all";
  $("tasks-empty").textContent = filtered ? "No matching tasks." : "No tasks yet.";
  $("tasks-empty").hidden = state.tasks.size > 0;
}

function clearTasks() {
  state.tasks.clear();
  state.nextCursor = null;
  $("tasks").replaceChildren();
  $("load-more").hidden = true;
  showEmpty();
}

function listQuery(paging) {
  const params = new URLSearchParams({ status: $("status").value, sort: $("sort").value, ...paging });
  const q = $("search").value.trim();
  if (q) params.set("q", q);
  return params;
}

async function loadTasks(paging, { append }) {
  if (!user()) return clearTasks();
  const ticket = ++state.listTicket;
  $("load-more").disabled = true;
  try {
    const { body, headers } = await request(userPath(`/tasks?${listQuery(paging)}`));
    if (ticket !== state.listTicket) return; // a newer load (another search, a reload) owns the list
    if (!append) clearTasks();
    for (const task of body) showTask(task);
    state.listed = (append ? state.listed : 0) + paging.limit;
    state.nextCursor = headers.get("X-Next-Cursor"); // absent on the last page
    $("load-more").hidden = !state.nextCursor;
    showEmpty();
  } catch (error) {
    if (ticket === state.listTicket) notify(error.message, { error: true });
  } finally {
    if (ticket === state.listTicket) $("load-more").disabled = false;
  }
}

// The first page, for a new filter, search, sort or user.
function reloadTasks() {
  return loadTasks({ limit: PAGE_SIZE }, { append: false });
}

// The list again after a change, with as many rows as the pages loaded so far ("Load more" stays done).
function refreshTasks() {
  return loadTasks({ limit: Math.min(MAX_PAGE, Math.max(PAGE_SIZE, state.listed)) }, { append: false });
}

function loadMore() {
  if (state.nextCursor) return loadTasks({ limit: PAGE_SIZE, cursor: state.nextCursor }, { append: true });
}

function searchSoon() {
  clearTimeout(state.searchTimer);
  state.searchTimer = setTimeout(reloadTasks, SEARCH_DELAY_MS);
}

// Disables a row's controls while its request runs, so a double click sends one change.
function lockRow(id) {
  const row = rowOf(id);
  if (row) for (const control of row.querySelectorAll("input, button")) control.disabled = true;
}

function fitsFilter(task) {
  return $("status").value === "all" || task.status === $("status").value;
}

function describeChange(before, after) {
  if (after.status !== before.status) {
    return `${after.status === "completed" ? "Completed" : "Reopened"} “${after.title}”.`;
  }
  if (after.title !== before.title) return `Renamed “${before.title}” to “${after.title}”.`;
  return `Changed “${after.title}”.`;
}

async function change(id, fields) {
  const task = state.tasks.get(id);
  lockRow(id);
  try {
    const options = { method: "PATCH", headers: ifMatch(task), body: JSON.stringify(fields) };
    const updated = await api(userPath(`/tasks/${id}`), options);
    if (fitsFilter(updated)) showTask(updated);
    else dropTask(id);
    notify(describeChange(task, updated), { undo: true });
  } catch (error) {
    await failed(error, task);
  }
}

async function removeTask(id) {
  const task = state.tasks.get(id);
  lockRow(id);
  try {
    await request(userPath(`/tasks/${id}`), { method: "DELETE", headers: ifMatch(task) });
    dropTask(id);
    notify(`Deleted “${task.title}”.`, { undo: true });
  } catch (error) {
    await failed(error, task);
  }
}

// 412: the task changed since the page read it (the chat, another tab, the API); 404: it is gone.
// Either way the page's copy is stale, so the list is read again.
async function failed(error, task) {
  if (error.status === 412 || error.status === 404) {
    const why = error.status === 412 ? "changed elsewhere" : "no longer exists";
    notify(`“${task.title}” ${why}; reloaded.`, { error: true });
    await refreshTasks();
  } else {
    notify(error.message, { error: true });
    showTask(task); // the row as it was (unticks a checkbox the server did not tick)
  }
}

async function undo() {
  $("undo").hidden = true;
  try {
    const body = await api(userPath("/undo"), { method: "POST" });
    notify(`Undone: ${body.undone.map((u) => `${u.action} “${u.title}”`).join(", ")}.`);
  } catch (error) {
    notify(error.message, { error: true }); // 409 NOTHING_TO_UNDO or UNDO_CONFLICT
  }
  await refreshTasks();
}

// Inline title edit: Enter saves (PATCH with If-Match), Escape or leaving the field cancels.
function startEdit(id) {
  const task = state.tasks.get(id);
  const row = rowOf(id);
  if (!task || !row || row.classList.contains("editing")) return;
  const input = document.createElement("input");
  input.className = "title-input";
  input.value = task.title;
  input.maxLength = 500;
  input.setAttribute("aria-label", `Title of ${task.title}`);
  row.classList.add("editing");
  row.querySelector(".title").replaceWith(input);
  input.focus();
  input.select();
  let finished = false;
  const finish = (save) => {
    if (finished) return;
    finished = true;
    const title = input.value.trim();
    if (save && title && title !== task.title) change(id, { title });
    else showTask(task);
  };
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      event.preventDefault();
      finish(true);
    } else if (event.key === "Escape") {
      finish(false);
    }
  });
  input.addEventListener("blur", () => finish(false));
}

// --- Start -----------------------------------------------------------------------------------

document.addEventListener("DOMContentLoaded", () => {
  $("token").value = sessionStorage.getItem("taskchat.token") || "";
  showWho();
  $("token").addEventListener("input", () => {
    showWho();
    reloadTasks();
  });
  $("mint").addEventListener("click", mint);
  $("composer").addEventListener("submit", (event) => {
    event.preventDefault();
    say($("message").value.trim());
  });
  $("status").addEventListener("change", reloadTasks);
  $("sort").addEventListener("change", reloadTasks);
  $("search").addEventListener("input", searchSoon);
  $("load-more").addEventListener("click", loadMore);
  $("undo").addEventListener("click", undo);
  $("new-conversation").addEventListener("click", () => {
    state.conversationId = null;
    $("messages").replaceChildren();
  });
  reloadTasks();
});
