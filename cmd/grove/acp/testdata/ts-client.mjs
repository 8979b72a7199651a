// Drives `grove acp` with the official TypeScript ACP client
// (@agentclientprotocol/sdk). Run by TestACPWithTypeScriptClient:
//   node ts-client.mjs AGENT_BINARY CWD
// The agent binary is started twice (a session, then session/load). Prints
// "ok" and exits 0 when every check passed; otherwise prints why, exits 1.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { client, methods, ndJsonStream } from "@agentclientprotocol/sdk";

const [agentBin, cwd] = process.argv.slice(2);

function fail(msg) {
  console.log("FAIL: " + msg);
  process.exit(1);
}

// connect starts the agent and runs op with a connected client.
async function connect(state, op) {
  const child = spawn(agentBin, [], { stdio: ["pipe", "pipe", "inherit"], env: process.env });
  const stream = ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  const app = client({ name: "grove-ts-test" })
    .onRequest(methods.client.session.requestPermission, (ctx) => {
      state.asked.push(ctx.params);
      return { outcome: { outcome: "selected", optionId: state.answer } };
    })
    .onNotification(methods.client.session.update, (ctx) => {
      state.updates.push(ctx.params.update);
    });
  try {
    return await app.connectWith(stream, op);
  } finally {
    child.stdin.end();
    await new Promise((resolve) => child.on("exit", resolve));
  }
}

const text = (u) => (u.content && u.content.type === "text" ? u.content.text : "");

const state = { answer: "approved", asked: [], updates: [] };
const sessionId = await connect(state, async (ctx) => {
  const init = await ctx.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
  if (!init.agentCapabilities || !init.agentCapabilities.loadSession) fail("loadSession not advertised");
  const { sessionId } = await ctx.request(methods.agent.session.new, { cwd, mcpServers: [] });

  let r = await ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "write a" }] });
  if (r.stopReason !== "end_turn") fail("stop reason " + r.stopReason);
  if (!existsSync(join(cwd, "a.txt"))) fail("granted command did not run");

  state.answer = "denied";
  await ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "write b" }] });
  if (existsSync(join(cwd, "b.txt"))) fail("denied command ran");
  if (state.asked.length !== 2) fail("permission requests: " + state.asked.length);
  const kinds = state.asked[0].options.map((o) => o.kind).join(",");
  if (kinds !== "allow_once,allow_always,reject_once") fail("permission options " + kinds);

  // Cancel mid-turn: the prompt answers "cancelled".
  state.answer = "approved";
  const blocked = ctx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: "sleep" }] });
  while (!state.updates.some((u) => u.sessionUpdate === "tool_call" && u.toolCallId === "call-sleep")) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await ctx.notify(methods.agent.session.cancel, { sessionId });
  r = await blocked;
  if (r.stopReason !== "cancelled") fail("cancelled prompt stop reason " + r.stopReason);
  return sessionId;
});

const loaded = { answer: "approved", asked: [], updates: [] };
await connect(loaded, async (ctx) => {
  await ctx.request(methods.agent.initialize, { protocolVersion: 1, clientCapabilities: {} });
  await ctx.request(methods.agent.session.load, { sessionId, cwd, mcpServers: [] });
  const replay = loaded.updates.map(text).filter((s) => s !== "").join("|");
  if (!replay.includes("write a|wrote a")) fail("replay: " + replay);
});
console.log("ok");
