// The AI SDK's own client against a running Taskchat: the transport useChat uses by default
// (DefaultChatTransport, which validates every chunk against the SDK's schema) and its stream reader
// (readUIMessageStream, which builds the UI message the way useChat does). Run by
// tests/clients/test_node_clients.py, which serves Taskchat with a scripted model and sets
// TASKCHAT_URL, TASKCHAT_USER and TASKCHAT_TOKEN.
import assert from "node:assert/strict";
import { test } from "node:test";
import { DefaultChatTransport, lastAssistantMessageIsCompleteWithToolCalls, readUIMessageStream } from "ai";

const { TASKCHAT_URL: url, TASKCHAT_USER: user, TASKCHAT_TOKEN: token } = process.env;
const auth = { Authorization: `Bearer ${token}` };
const transport = new DefaultChatTransport({ api: `${url}/api/${user}/chat`, headers: auth });

let counter = 0;
function said(text) {
  counter += 1;
  return { id: `user-${counter}`, role: "user", parts: [{ type: "text", text }] };
}

// One turn as useChat runs it: the messages so far and the new one in, the assistant message out,
// with every error the reader reported.
async function turn(chatId, messages, { trigger = "submit-message", body } = {}) {
  const errors = [];
  const stream = await transport.sendMessages({
    chatId,
    messages,
    trigger,
    messageId: undefined,
    abortSignal: undefined,
    body,
  });
  let message;
  for await (const snapshot of readUIMessageStream({ stream, onError: (error) => errors.push(error) })) {
    message = snapshot;
  }
  return { message, errors };
}

const textOf = (message) => message.parts.filter((p) => p.type === "text").map((p) => p.text).join("");
const toolParts = (message) => message.parts.filter((p) => p.type.startsWith("tool-"));

async function tasks() {
  const response = await fetch(`${url}/api/${user}/tasks?status=all`, { headers: auth });
  assert.equal(response.status, 200);
  return (await response.json()).map((t) => t.title).sort();
}

test("a turn: a tool part with its input and output, the reply, the conversation id", async () => {
  const asked = said("add buy milk");
  const { message, errors } = await turn("chat-a", [asked]);

  assert.deepEqual(errors, []);
  assert.equal(message.role, "assistant");
  const [call] = toolParts(message);
  assert.equal(call.type, "tool-add_task");
  assert.equal(call.state, "output-available");
  assert.deepEqual(call.input, { title: "Buy milk" });
  assert.equal(call.output.success, true);
  assert.equal(call.output.data.title, "Buy milk");
  assert.equal(textOf(message), "Added: “Buy milk”.");
  assert.match(message.metadata.conversationId, /^[0-9a-f-]{36}$/);
  // The calls are a step and the reply another: a client that sends again while the last step is
  // complete tool calls (useChat's sendAutomaticallyWhen with this helper) sees a finished answer.
  assert.deepEqual(
    message.parts.map((p) => p.type),
    ["step-start", "tool-add_task", "step-start", "text"],
  );
  assert.equal(lastAssistantMessageIsCompleteWithToolCalls({ messages: [asked, message] }), false);
  assert.equal(message.metadata.action_metadata.action, "add_task");
  assert.equal((await tasks()).filter((t) => t === "Buy milk").length, 1);

  // The next message of the same chat continues its conversation; a failed tool is an output-error part.
  const next = said("complete walk the dog");
  const failed = await turn("chat-a", [asked, message, next]);
  assert.deepEqual(failed.errors, []);
  assert.equal(failed.message.metadata.conversationId, message.metadata.conversationId);
  const [attempt] = toolParts(failed.message);
  assert.equal(attempt.type, "tool-complete_task");
  assert.equal(attempt.state, "output-error");
  assert.match(attempt.errorText, /walk the dog/i);
  assert.match(textOf(failed.message), /Walk the dog/);
  assert.doesNotMatch(textOf(failed.message), /^Completed/);

  // A regenerate of the first message (useChat's regenerate(): the same user message, its answer
  // dropped) replays what that turn did: the task is not added twice.
  const again = await turn("chat-a", [asked], { trigger: "regenerate-message" });
  assert.equal(textOf(again.message), "Added: “Buy milk”.");
  assert.equal((await tasks()).filter((t) => t === "Buy milk").length, 1);
});

test("a confirmation is a data part whose answers are buttons; the yes runs the actions", async () => {
  const asked = said("delete taxes, bread, gym and laundry");
  const { message, errors } = await turn("chat-b", [asked]);

  assert.deepEqual(errors, []);
  const [part] = message.parts.filter((p) => p.type === "data-confirmation");
  assert.ok(part, JSON.stringify(message.parts));
  const confirmation = part.data;
  assert.equal(part.id, confirmation.id);
  assert.ok(confirmation.question.length > 0);
  assert.deepEqual(
    confirmation.actions.map((a) => a.name),
    ["delete_task", "delete_task"],
  );
  const yes = confirmation.answers.find((a) => a.confirm);
  assert.ok(yes, JSON.stringify(confirmation.answers));

  const answered = await turn("chat-b", [asked, message, said(yes.message)], { body: { confirm: yes.confirm } });
  assert.deepEqual(answered.errors, []);
  const deleted = toolParts(answered.message);
  assert.deepEqual(
    deleted.map((p) => [p.type, p.state, p.input.task_id]),
    confirmation.actions.map((a) => ["tool-delete_task", "output-available", a.arguments.task_id]),
  );
  assert.deepEqual(await tasks(), ["Buy milk"]); // the four were the only other tasks
});

test("a model that fails before anything ran: the transport throws the error JSON with its status", async () => {
  await assert.rejects(turn("chat-c", [said("what is on my list, model that fails")]), (error) => {
    const body = JSON.parse(error.message);
    assert.equal(body.error, "LLM_UNAVAILABLE");
    assert.ok(body.detail.length > 0);
    return true;
  });
});

test("a turn that fails once the stream began: an error part after the tool part", async () => {
  const { message, errors } = await turn("chat-d", [said("add a task that cannot be recorded")]);

  assert.equal(errors.length, 1);
  assert.deepEqual(JSON.parse(errors[0].message), {
    error: "INTERNAL_ERROR",
    detail: "An unexpected error occurred",
  });
  assert.deepEqual(
    toolParts(message).map((p) => p.type),
    ["tool-add_task"],
  );
  assert.equal(textOf(message), "");
});

test("another user's token is refused on this user's chat", async () => {
  const response = await fetch(`${url}/api/someone-else/chat`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({ id: "chat-e", messages: [said("add x")], trigger: "submit-message" }),
  });
  assert.equal(response.status, 403);
  assert.equal((await response.json()).error, "FORBIDDEN");
});
