// The official MCP TypeScript SDK's client against Taskchat's /mcp (streamable HTTP): it lists the
// tools and calls them as the token's user; another user's token reaches none of those tasks.
// Run by tests/clients/test_node_clients.py (TASKCHAT_URL, TASKCHAT_TOKEN, TASKCHAT_OTHER_TOKEN).
import assert from "node:assert/strict";
import { test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const { TASKCHAT_URL: url, TASKCHAT_TOKEN: token, TASKCHAT_OTHER_TOKEN: otherToken } = process.env;

async function connect(bearer) {
  const client = new Client({ name: "taskchat-node-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${bearer}` } },
  });
  await client.connect(transport);
  return client;
}

// A tool's result as the JSON the tool returned (its text content).
function payload(result) {
  const [content] = result.content;
  assert.equal(content.type, "text");
  return JSON.parse(content.text);
}

test("lists the task tools with their input schemas", async () => {
  const client = await connect(token);
  try {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const name of ["add_task", "list_tasks", "complete_task", "delete_task", "update_task"]) {
      assert.ok(names.includes(name), `${name} in ${names}`);
    }
    const add = tools.find((t) => t.name === "add_task");
    assert.equal(add.inputSchema.type, "object");
    assert.ok(add.inputSchema.required.includes("title"));
  } finally {
    await client.close();
  }
});

test("calls the tools as the token's user, and another user reaches none of it", async () => {
  const alice = await connect(token);
  let taskId;
  try {
    const added = payload(await alice.callTool({ name: "add_task", arguments: { title: "Water the plants" } }));
    assert.equal(added.success, true);
    taskId = added.data.id;
    const listed = payload(await alice.callTool({ name: "list_tasks", arguments: {} }));
    assert.deepEqual(
      listed.data.tasks.map((t) => t.title),
      ["Water the plants"],
    );
    const refused = await alice.callTool({ name: "add_task", arguments: { title: "" } });
    assert.equal(refused.isError, true);
    assert.equal(payload(refused).code, "INVALID_ARGUMENTS");
  } finally {
    await alice.close();
  }

  const bob = await connect(otherToken);
  try {
    assert.deepEqual(payload(await bob.callTool({ name: "list_tasks", arguments: {} })).data.tasks, []);
    for (const name of ["complete_task", "delete_task"]) {
      const result = await bob.callTool({ name, arguments: { task_id: taskId } });
      assert.equal(result.isError, true);
      assert.equal(payload(result).code, "NOT_FOUND");
    }
  } finally {
    await bob.close();
  }

  const again = await connect(token);
  try {
    const [task] = payload(await again.callTool({ name: "list_tasks", arguments: {} })).data.tasks;
    assert.deepEqual([task.id, task.title, task.status], [taskId, "Water the plants", "pending"]);
  } finally {
    await again.close();
  }
});

test("a client without a valid token cannot connect", async () => {
  await assert.rejects(connect("not-a-jwt"), (error) => {
    assert.match(String(error), /401|UNAUTHORIZED|Unauthorized/);
    return true;
  });
});
