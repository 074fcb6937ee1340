// The released Skip runtime (@skipruntime/core + wasm) under the conformance suite's reduce area.
//   node engines/skip/adapter.mjs --modules CACHE [--mapping per-value|per-key]
// The suite's collection maps a key to a multiset of values; Skip's input collection maps a key to
// an array of values, and a reducer sees the values of its key. Two mappings:
//   per-value: one input key [k, n] per value occurrence, holding [v]; mapReduce gathers them under k;
//   per-key:   one input key k holding the array of k's values (an update replaces the array).
// The adapter keeps a copy of the collection to refuse a Δ⁻ that removes a value not present
// (invalid-delta: Skip does not check) and to turn deltas into Skip updates. The view is read back
// from Skip after each update; changes are the keys whose entry differs from the previous view.
// A case whose setup says {"observe": "changes"} (the feature changes-only: the suite's scaling
// probes) reads back only the keys an apply touched (getArray), and answers their changes; a load,
// which may touch every key, reads the view whole (getAll) as before. (Skip 0.0.15's getArray
// instantiates and closes a resource instance per call, and each call costs more than the last:
// about 1.5 ms for the first thousand, 14 ms after four thousand; repro.mjs shows it.)
import { canon, EngineError, importFrom, installedVersion, options, serve } from "../protocol.mjs";

const opts = options();
const modules = opts.modules || ".";
const mapping = opts.mapping || "per-value";
const { initService } = await importFrom(modules, "@skipruntime/wasm");

let calls = 0; // reducer calls, reported as the work counter reducer_calls

// The suite's named reducers (conformance/vocabulary/reducers.json), as Skip reducer classes.
// A declining remove returns null: Skip's "recompute this key from initial and add".
const min = (a, v) => (a === null || v < a ? v : a);
const max = (a, v) => (a === null || v > a ? v : a);
// Skip wants a named class (it checks constructor.name, "defined at top-level").
function reducer(name, initial, add, remove) {
  const cls = class {
    constructor(...params) { this.params = params; this.initial = initial; }
    add(a, v) { calls += 1; return add(a, v, ...this.params); }
    remove(a, v) { calls += 1; return remove(a, v, ...this.params); }
  };
  return Object.defineProperty(cls, "name", { value: name });
}
const REDUCERS = {
  sum: reducer("sum", 0, (a, v) => a + v, (a, v) => a - v),
  count: reducer("count", 0, (a) => a + 1, (a) => a - 1),
  xor: reducer("xor", 0, (a, v) => a ^ v, (a, v) => a ^ v),
  sum_monus_int: reducer("sum_monus_int", 0, (a, v) => a + v, (a, v) => Math.max(a - v, 0)),
  min: reducer("min", null, min, (a, v) => (v <= a ? null : a)),
  max: reducer("max", null, max, (a, v) => (v >= a ? null : a)),
  sum_bad_remove: reducer("sum_bad_remove", 0, (a, v) => a + v, (a, v) => a - 2 * v),
  min_never_declines: reducer("min_never_declines", null, min, (a) => a),
  min_declines_below: reducer("min_declines_below", null, min, (a, v) => (v < a ? null : a)),
  saturating_sum: reducer("saturating_sum", 0, (a, v, cap) => Math.min(cap, a + v), (a, v) => a - v),
};

class Gather {
  mapEntry(key, values) { return values.toArray().map((v) => [key[0], v]); }
}

class View {
  constructor() {}
  instantiate(collections) { return collections.view; }
}

function service(Reducer, params) {
  return {
    initialData: { input: [] },
    resources: { view: View },
    createGraph(inputs) {
      const view = mapping === "per-value"
        ? inputs.input.mapReduce(Gather)(Reducer, ...params)
        : inputs.input.reduce(Reducer, ...params);
      return { view };
    },
  };
}

// A multiset of JSON values: canonical spelling -> {v, n}.
function bag(values) {
  const m = new Map();
  for (const v of values) {
    const s = canon(v);
    const e = m.get(s) || { v, n: 0 };
    e.n += 1;
    m.set(s, e);
  }
  return m;
}

function grouped(pairs) {
  const out = new Map();
  for (const [k, vs] of pairs) {
    const s = canon(k);
    const e = out.get(s) || { key: k, values: [] };
    e.values.push(...vs);
    out.set(s, e);
  }
  return out;
}

class ReduceEngine {
  constructor(setup) {
    this.onlyChanges = Boolean(setup && setup.observe === "changes");
    this.instance = null;
    this.held = new Map();  // canonical key -> {key, slots: Map(slot id -> value)}
    this.view = new Map();  // canonical key -> {key, acc}
    this.nextSlot = 0;
  }

  async run(step) {
    if (step.op === "declare") return this.declare(step);
    if (!this.instance) throw new EngineError("malformed-input");
    calls = 0;
    if (step.op === "load") return this.update(this.loadEntries(grouped(step.collection)), true);
    if (step.op === "apply") return this.update(this.applyEntries(grouped(step.minus), grouped(step.plus)));
    throw new EngineError("malformed-input");
  }

  async declare(step) {
    const Reducer = REDUCERS[step.reducer];
    if (!Reducer) throw new EngineError("unsupported", `reducer ${step.reducer}`);
    const params = step.reducer === "saturating_sum" ? [step.params.cap] : [];
    this.instance = await initService(service(Reducer, params));
    await this.instance.instantiateResource("v", "view", {});
    return {};
  }

  entry(s) {
    let e = this.held.get(s);
    if (!e) { e = { key: null, slots: new Map() }; this.held.set(s, e); }
    return e;
  }

  // Skip entries for the keys whose values changed (per value occurrence, or per key), and
  // those keys (canonical spelling -> key).
  entriesFor(touched) {
    const entries = [];
    const keys = new Map();
    for (const { key, slots, changed } of touched) {
      keys.set(canon(key), key);
      if (mapping === "per-key") entries.push([key, [...slots.values()]]);
      else for (const [slot, v] of changed) entries.push([[key, slot], v === undefined ? [] : [v]]);
    }
    return { entries, keys };
  }

  loadEntries(collection) {
    const touched = new Map();  // canonical key -> {key, slots, changed}
    for (const [s, e] of this.held) {
      const changed = [...e.slots.keys()].map((slot) => [slot, undefined]);
      e.slots = new Map();
      touched.set(s, { key: e.key, slots: e.slots, changed });
    }
    for (const [s, { key, values }] of collection) {
      const e = this.entry(s);
      e.key = key;
      const changed = values.map((v) => { const slot = this.nextSlot++; e.slots.set(slot, v); return [slot, v]; });
      const t = touched.get(s);
      if (t) { t.key = key; t.changed.push(...changed); } else touched.set(s, { key, slots: e.slots, changed });
    }
    return this.entriesFor([...touched.values()]);
  }

  applyEntries(minus, plus) {
    for (const [s, { values }] of minus) {  // Δ⁻(k) ⊆ C(k), checked before any change
      const have = bag(this.held.has(s) ? this.held.get(s).slots.values() : []);
      for (const [vs, { n }] of bag(values)) {
        if (!have.has(vs) || have.get(vs).n < n) throw new EngineError("invalid-delta");
      }
    }
    const touched = new Map();
    const touch = (s, key) => {
      const e = this.entry(s);
      e.key = key;
      if (!touched.has(s)) touched.set(s, { key, slots: e.slots, changed: [] });
      return touched.get(s);
    };
    for (const [s, { key, values }] of minus) {
      const t = touch(s, key);
      for (const v of values) {
        const slot = [...t.slots].find(([, w]) => canon(w) === canon(v))[0];
        t.slots.delete(slot);
        t.changed.push([slot, undefined]);
      }
    }
    for (const [s, { key, values }] of plus) {
      const t = touch(s, key);
      for (const v of values) { const slot = this.nextSlot++; t.slots.set(slot, v); t.changed.push([slot, v]); }
    }
    return this.entriesFor([...touched.values()]);
  }

  async update({ entries, keys }, load = false) {
    if (entries.length) await this.instance.update("input", entries);
    for (const s of keys.keys()) if (this.held.has(s) && this.held.get(s).slots.size === 0) this.held.delete(s);
    if (this.onlyChanges && !load) return this.changesOf(keys);
    const old = this.view;
    this.view = new Map();
    for (const [key, accs] of await this.instance.getAll("view")) {
      for (const acc of accs) this.view.set(canon(key), { key, acc });
    }
    const changes = [];
    for (const [s, { key, acc }] of this.view) {
      if (!old.has(s) || canon(old.get(s).acc) !== canon(acc)) changes.push([key, acc]);
    }
    for (const [s, { key }] of old) if (!this.view.has(s)) changes.push([key, null]);
    const work = { reducer_calls: calls };
    if (this.onlyChanges) return { changes, work };
    return { view: [...this.view.values()].map((e) => [e.key, e.acc]), changes, work };
  }

  // The view's changes at the touched keys alone, read from Skip key by key; the copy of the
  // view kept up to date at those keys.
  async changesOf(keys) {
    const changes = [];
    for (const [s, key] of keys) {
      const accs = await this.instance.getArray("view", key);
      const before = this.view.get(s);
      if (accs.length === 0) {
        if (before) { this.view.delete(s); changes.push([key, null]); }
        continue;
      }
      const acc = accs[accs.length - 1];  // as the whole view's reading keeps the last
      if (!before || canon(before.acc) !== canon(acc)) changes.push([key, acc]);
      this.view.set(s, { key, acc });
    }
    return { changes, work: { reducer_calls: calls } };
  }

  async close() {
    if (this.instance) await this.instance.close();
  }
}

const implementation = {
  name: "skip",
  version: installedVersion(modules, "@skipruntime/core"),
  language: "javascript",
  areas: ["reduce"],
  features: ["declining-remove", "ill-formed-reducers", "work-counters", "changes-only"],
  configuration: { mapping, reducers: "JavaScript classes" },
};
await serve(implementation, { reduce: ReduceEngine }, opts);
