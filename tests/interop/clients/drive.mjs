// Drive one MCP server with a real client and print what the client received, as JSON.
//
//   node drive.mjs SDK PLAN.json      SDK: ts1 (the TypeScript SDK 1.x) | ts2 (2.x)
//
// PLAN.json: {"nodeModules": DIR, "era": "legacy" | "2026-07-28", "transport": {"kind": "stdio",
// "command": ..., "args": [...], "env": {...}} | {"kind": "http", "url": ...}, "steps": [{"id",
// "tool", "arguments"}]}. A string argument "$ref:STEP:a.b.0" is replaced by that field of an
// earlier step's payload (its structuredContent, else its text parsed as JSON), so a plan can use
// an id or a confirm token the server handed out; {"$pick": {"from": STEP, "list": FIELD, "where":
// FIELD, "between": [LOW, HIGH], "take": FIELD}} takes a field of the first row in range. The packages are loaded from `nodeModules`
// (var/node, installed by scripts/ensure-node.sh), never from a path beside this script.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const [sdk, planPath] = process.argv.slice(2);
const plan = JSON.parse(readFileSync(planPath, "utf8"));
const require = createRequire(join(plan.nodeModules, "package.json"));

function versionOf(name) {
  // Not require(NAME/package.json): the 2.x packages do not export it.
  return JSON.parse(readFileSync(join(plan.nodeModules, name, "package.json"), "utf8")).version;
}

function load() {
  if (sdk === "ts1") {
    const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
    const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
    const { StreamableHTTPClientTransport } = require(
      "@modelcontextprotocol/sdk/client/streamableHttp.js",
    );
    const version = versionOf("@modelcontextprotocol/sdk");
    return { Client, StdioClientTransport, StreamableHTTPClientTransport, version };
  }
  if (sdk === "ts2") {
    const { Client, StreamableHTTPClientTransport } = require("@modelcontextprotocol/client");
    const { StdioClientTransport } = require("@modelcontextprotocol/client/stdio");
    const version = versionOf("@modelcontextprotocol/client");
    return { Client, StdioClientTransport, StreamableHTTPClientTransport, version };
  }
  throw new Error(`unknown sdk ${sdk}`);
}

function payloadOf(result) {
  if (result == null) return null;
  if (result.structuredContent != null) return result.structuredContent;
  const text = result.content?.[0]?.text;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function pick(spec, payloads) {
  const [low, high] = spec.between;
  const row = payloads.get(spec.from)[spec.list].find((r) => low <= r[spec.where] && r[spec.where] <= high);
  if (row === undefined) throw new Error(`nothing to pick from ${spec.from}`);
  return row[spec.take];
}

function resolve(value, payloads) {
  if (typeof value === "string" && value.startsWith("$ref:")) {
    const [, step, path] = value.split(":");
    let found = payloads.get(step);
    for (const part of path.split(".")) found = found?.[/^\d+$/.test(part) ? Number(part) : part];
    if (found === undefined) throw new Error(`unresolved ${value}`);
    return found;
  }
  if (Array.isArray(value)) return value.map((v) => resolve(v, payloads));
  if (value && typeof value === "object") {
    if (Object.keys(value).length === 1 && "$pick" in value) return pick(value.$pick, payloads);
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolve(v, payloads)]));
  }
  return value;
}

function thrown(error) {
  return { name: error?.name ?? null, code: error?.code ?? null, message: String(error?.message ?? error), data: error?.data ?? null };
}

const { Client, StdioClientTransport, StreamableHTTPClientTransport, version } = load();
const t = plan.transport;
const transport =
  t.kind === "stdio"
    ? new StdioClientTransport({ command: t.command, args: t.args, env: { ...process.env, ...t.env }, stderr: "ignore" })
    : new StreamableHTTPClientTransport(new URL(t.url));
const options = {};
if (sdk === "ts2" && plan.era !== "legacy") {
  options.versionNegotiation = { mode: { pin: plan.era } };
}
const client = new Client({ name: `drivable-interop-${sdk}`, version: "1.0.0" }, options);
const out = { sdk, version, era: plan.era, transport: t.kind, connect: null, tools: [], steps: [] };
try {
  await client.connect(transport);
  out.protocolVersion = client.protocolVersion ?? transport.protocolVersion ?? null;
  out.connect = { ok: true };
  out.tools = (await client.listTools()).tools.map((tool) => tool.name);
  const payloads = new Map();
  for (const step of plan.steps) {
    const entry = { id: step.id, tool: step.tool, threw: false, error: null, result: null };
    let args;
    try {
      args = resolve(step.arguments, payloads);
    } catch (error) {
      entry.unresolved = String(error.message); // the plan's fault, not the client's
      out.steps.push(entry);
      continue;
    }
    try {
      const result = await client.callTool({ name: step.tool, arguments: args });
      entry.result = result;
      payloads.set(step.id, payloadOf(result));
    } catch (error) {
      entry.threw = true;
      entry.error = thrown(error);
    }
    out.steps.push(entry);
  }
} catch (error) {
  out.connect = { ok: false, error: thrown(error) };
} finally {
  try {
    await client.close();
  } catch {
    // a transport already gone is what we wanted
  }
}
process.stdout.write(JSON.stringify(out) + "\n");
process.exit(0);
