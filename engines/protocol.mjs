// The JSON-lines protocol of the conformance suite, shared by the Node adapters of engines/.
// An adapter gives its handshake and one engine class per area; serve() answers the suite.
// Each engine class has a constructor taking the case's setup and the adapter's options,
// an async run(step) returning the step's observation, and may throw EngineError.
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

// JSON values as map keys: a canonical spelling with sorted object keys.
export function canon(v) {
  if (Array.isArray(v)) return "[" + v.map(canon).join(",") + "]";
  if (v !== null && typeof v === "object")
    return "{" + Object.keys(v).sort().map((k) => JSON.stringify(k) + ":" + canon(v[k])).join(",") + "}";
  return JSON.stringify(v);
}

export class EngineError extends Error {
  constructor(errorClass, detail = "") { super(detail || errorClass); this.errorClass = errorClass; }
}

// The engine's packages live in a cache folder (--modules DIR), not beside the adapter.
export async function importFrom(modulesDir, name) {
  const require = createRequire(join(resolve(modulesDir), "package.json"));
  return import(pathToFileURL(require.resolve(name)).href);
}

export function installedVersion(modulesDir, name) {
  const file = join(resolve(modulesDir), "node_modules", ...name.split("/"), "package.json");
  return JSON.parse(readFileSync(file, "utf-8")).version;
}

// --name value pairs of the command line.
export function options(argv = process.argv.slice(2)) {
  const out = {};
  for (let i = 0; i + 1 < argv.length; i += 2) out[argv[i].replace(/^--/, "")] = argv[i + 1];
  return out;
}

async function runCase(engines, c, opts) {
  const Engine = engines[c.area];
  if (!Engine) return { skipped: { message: `area ${c.area} not implemented` } };
  const engine = new Engine(c.setup, opts);
  const observations = [];
  try {
    for (const step of c.steps) {
      try {
        observations.push(await engine.run(step));
      } catch (e) {
        if (!(e instanceof EngineError)) throw e;
        if (e.errorClass === "unsupported") return { skipped: { message: e.message } };
        observations.push({ error: e.errorClass });
        if (step.op === "declare") break;
      }
    }
  } catch (e) {
    return { errored: { message: String(e && e.stack ? e.stack.split("\n").slice(0, 3).join(" | ") : e), context: {} } };
  } finally {
    if (engine.close) await engine.close();
  }
  return { result: { observations } };
}

export async function serve(implementation, engines, opts) {
  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) {
    const msg = JSON.parse(line);
    if (msg.cmd === "start") {
      process.stdout.write(JSON.stringify({ implementation }) + "\n");
    } else if (msg.cmd === "run") {
      process.stdout.write(JSON.stringify({ seq: msg.seq, ...(await runCase(engines, msg.case, opts)) }) + "\n");
    } else if (msg.cmd === "stop") {
      break;
    }
  }
  // stdout to a pipe is written asynchronously: exiting at once would cut an answer still
  // queued (one of over 64 KiB, when the reader is slower than the engine); exit once the
  // queue is flushed.
  await new Promise((resolve) => process.stdout.write("", resolve));
  process.exit(0);
}
