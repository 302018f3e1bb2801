// The TypeScript SDK client (@modelcontextprotocol/sdk 1.32.2) as a baseline for `wharf bench calls`. `wharf bench`
// runs it with its own Node, so the client is measured in its own process, connected for the whole run, and drives it
// with one JSON line per batch on stdin:
//   node ts_client.mjs SDK_DIR stdio COMMAND [ARGS...]   |   node ts_client.mjs SDK_DIR http URL
//   stdout: {"ready":true,"era":"legacy"} once connected and an echo checked, then per stdin line
//   {"calls":N,"in_flight":K}: {"wall_s":…,"latencies_us":[…]}; any failure: {"error":"…"} and exit 1.
// SDK_DIR is the package's folder: the script is passed to `node --eval`, so a bare import would resolve from the
// working directory instead of the peers' node_modules.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createInterface } from 'node:readline';

const [sdkDir, transportKind, ...target] = process.argv.slice(1);
const load = (path) => import(pathToFileURL(join(sdkDir, 'dist/esm', path)).href);
const say = (value) => process.stdout.write(JSON.stringify(value) + '\n');
const fail = (error) => {
  say({ error: String(error?.stack ?? error) });
  process.exit(1);
};

async function connect() {
  const { Client } = await load('client/index.js');
  let transport;
  if (transportKind === 'stdio') {
    const { StdioClientTransport } = await load('client/stdio.js');
    transport = new StdioClientTransport({ command: target[0], args: target.slice(1), stderr: 'ignore' });
  } else if (transportKind === 'http') {
    const { StreamableHTTPClientTransport } = await load('client/streamableHttp.js');
    transport = new StreamableHTTPClientTransport(new URL(target[0]));
  } else {
    throw new Error(`unknown transport ${transportKind}`);
  }
  const client = new Client({ name: 'wharf-bench-ts', version: '0.0.0' }, { capabilities: {} });
  await client.connect(transport);
  return { client, transport };
}

async function echo(client) {
  const result = await client.callTool({ name: 'echo', arguments: { message: 'hello' } });
  if (result.isError) throw new Error(`echo answered isError: ${JSON.stringify(result)}`);
  return result;
}

// K workers each take the next call until N are done: at most K in flight, like the Rust side's JoinSet.
async function batch(client, calls, inFlight) {
  const latencies = new Array(calls);
  let next = 0;
  const worker = async () => {
    while (next < calls) {
      const i = next++;
      const sent = process.hrtime.bigint();
      await echo(client);
      latencies[i] = Number(process.hrtime.bigint() - sent) / 1000;
    }
  };
  const start = process.hrtime.bigint();
  await Promise.all(Array.from({ length: Math.max(1, inFlight) }, worker));
  const wall_s = Number(process.hrtime.bigint() - start) / 1e9;
  return { wall_s, latencies_us: latencies };
}

try {
  const { client, transport } = await connect();
  const first = await echo(client);
  if (!JSON.stringify(first).includes('hello')) throw new Error(`echo did not echo: ${JSON.stringify(first)}`);
  // SDK 1.x knows only the initialize handshake: its era is always legacy.
  say({ ready: true, era: 'legacy' });
  for await (const line of createInterface({ input: process.stdin })) {
    if (!line.trim()) continue;
    const { calls, in_flight } = JSON.parse(line);
    say(await batch(client, calls, in_flight));
  }
  await client.close();
  process.exit(0);
} catch (error) {
  fail(error);
}
