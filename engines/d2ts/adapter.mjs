// d2ts (@electric-sql/d2ts, differential dataflow in TypeScript) under the suite's fixpoint area.
//   node engines/d2ts/adapter.mjs --modules CACHE
// The live set is the least fixpoint of roots ∪ succ(live), one d2ts dataflow per case:
//   live = iterate(s => distinct(s ∪ {node v | node u ∈ s, edge (u, v) ∈ s}))
// over one input stream of tagged records, ["edge", u, v] and ["node", r] for a root (d2ts's
// iterate takes one stream, so the edges enter the loop beside the roots and pass through it).
// Each step is one version: the adapter sends the step's changes to the root and edge sets (set
// semantics, removals first: removing an absent root or edge, or adding a present one, changes
// nothing) and reads the step's added and removed elements from the dataflow's output delta.
// Elements are keyed by their canonical JSON, so true and 1 stay apart.
// zset: the suite's program (conformance/cases/zset/README.md) as a d2ts dataflow, one version per
// step; map, filter, join, distinct, reduce, plus/union and negate map onto d2ts's operators (keys
// as canonical JSON), iterate does not (d2ts's iterate takes one stream; a body reading an input
// would need it inside the loop): the features iterate and nested-iterate are not declared.
import { canon, EngineError, importFrom, installedVersion, options, serve } from "../protocol.mjs";

const opts = options();
const modules = opts.modules || ".";
const d2 = await importFrom(modules, "@electric-sql/d2ts");
const { D2, MultiSet, MessageType, iterate, filter, map, join, concat, distinct, output, negate, reduce } = d2;

// One step of the loop body: the records, plus a node record for each successor of a node.
function reachStep(s) {
  const edges = s.pipe(filter((r) => r[0] === "edge"), map((r) => [canon(r[1]), r[2]]));
  const next = s.pipe(
    filter((r) => r[0] === "node"),
    map((r) => [canon(r[1]), null]),
    join(edges),
    map(([, [, v]]) => ["node", v]),
  );
  return s.pipe(concat(next), map((r) => [canon(r), r]), distinct(), map(([, r]) => r));
}

class FixpointEngine {
  constructor() {
    this.graph = new D2({ initialFrontier: 0 });
    this.input = this.graph.newInput();
    this.delta = new Map();  // canonical element -> [element, multiplicity] of the current version
    this.input.pipe(
      iterate(reachStep),
      filter((r) => r[0] === "node"),
      output((message) => {
        if (message.type !== MessageType.DATA) return;
        for (const [[, x], m] of message.data.collection.getInner()) {
          const s = canon(x);
          const e = this.delta.get(s) || [x, 0];
          e[1] += m;
          this.delta.set(s, e);
        }
      }),
    );
    this.graph.finalize();
    this.version = 0;
    this.roots = new Map();
    this.edges = new Map();
    this.live = new Map();
  }

  async run(step) {
    if (step.op !== "make" && step.op !== "apply") throw new EngineError("malformed-input");
    const roots = step.op === "make" ? new Map() : new Map(this.roots);
    const edges = step.op === "make" ? new Map() : new Map(this.edges);
    for (const r of step.remove_roots || []) roots.delete(canon(r));
    for (const e of step.remove_edges || []) edges.delete(canon(e));
    for (const r of [...(step.roots || []), ...(step.add_roots || [])]) roots.set(canon(r), r);
    for (const e of [...(step.edges || []), ...(step.add_edges || [])]) edges.set(canon(e), e);
    const records = [
      ...changes(this.roots, roots, (r) => ["node", r]),
      ...changes(this.edges, edges, ([u, v]) => ["edge", u, v]),
    ];
    this.roots = roots;
    this.edges = edges;
    this.delta = new Map();
    this.input.sendData(this.version, new MultiSet(records));
    this.version += 1;
    this.input.sendFrontier(this.version);
    this.graph.run();
    const added = [], removed = [];
    for (const [s, [x, m]] of this.delta) {
      if (m > 0 && !this.live.has(s)) { this.live.set(s, x); added.push(x); }
      else if (m < 0 && this.live.has(s)) { this.live.delete(s); removed.push(x); }
      else if (m !== 0) throw new Error(`d2ts output multiplicity ${m} for ${s}, live: ${this.live.has(s)}`);
    }
    return { current: [...this.live.values()], added, removed };
  }
}

// --- zset -------------------------------------------------------------------------------------

function int(x) {
  if (typeof x !== "number" || !Number.isInteger(x)) throw new EngineError("malformed-input", `not an integer: ${canon(x)}`);
  return x;
}
function pair(x) {
  if (!Array.isArray(x) || x.length !== 2) throw new EngineError("malformed-input", `not a pair: ${canon(x)}`);
  return x;
}
const mod = (x, m) => ((x % m) + m) % m;  // the mathematical one: never negative for m > 0
const MAPS = {
  inc: (x) => int(x) + 1, double: (x) => 2 * int(x), neg: (x) => -int(x), mod3: (x) => mod(int(x), 3),
  key_mod3: (x) => [mod(int(x), 3), x], dup: (x) => [x, x], swap: (x) => [pair(x)[1], x[0]],
  fst: (x) => pair(x)[0], snd: (x) => pair(x)[1],
};
const FILTERS = {
  even: (x) => mod(int(x), 2) === 0, odd: (x) => mod(int(x), 2) === 1, positive: (x) => int(x) > 0,
  nonnegative: (x) => int(x) >= 0, small: (x) => int(x) >= 0 && x < 10,
  fst_even: (x) => mod(int(pair(x)[0]), 2) === 0, fst_lt_snd: (x) => int(pair(x)[0]) < int(x[1]),
};
const AGGREGATES = {  // over one key's values: [[value, weight], ...] with non-zero weights
  count: (vs) => vs.reduce((a, [, w]) => a + w, 0),
  sum: (vs) => vs.reduce((a, [v, w]) => a + w * int(v), 0),
  min: (vs) => Math.min(...vs.map(([v]) => int(v))),
  max: (vs) => Math.max(...vs.map(([v]) => int(v))),
};

// [[x, w], ...] with equal elements added up and zero weights dropped.
function consolidated(rows) {
  const m = new Map();
  for (const [x, w] of rows) {
    const e = m.get(canon(x)) || [x, 0];
    e[1] += w;
    m.set(canon(x), e);
  }
  return [...m.values()].filter(([, w]) => w !== 0);
}

function keyed(stream) {
  return stream.pipe(map((x) => [canon(pair(x)[0]), x]));
}

function named(table, name, what) {
  if (!Object.hasOwn(table, name)) throw new EngineError("malformed-input", `unknown ${what} ${canon(name)}`);
  return table[name];
}

function compile(node, inputs) {
  const arg = () => compile(node.arg, inputs);
  switch (node.op) {
    case "input": return named(inputs, node.name, "input");
    case "map": return arg().pipe(map(named(MAPS, node.fn, "map function")));
    case "filter": return arg().pipe(filter(named(FILTERS, node.pred, "filter predicate")));
    case "negate": return arg().pipe(negate());
    case "plus": case "union": return compile(node.left, inputs).pipe(concat(compile(node.right, inputs)));
    case "distinct": return arg().pipe(map((x) => [canon(x), x]), distinct(), map(([, x]) => x));
    case "join":
      return keyed(compile(node.left, inputs)).pipe(
        join(keyed(compile(node.right, inputs))),
        map(([, [[k, a], [, b]]]) => [k, [a, b]]),
      );
    case "reduce": {
      const aggregate = named(AGGREGATES, node.agg, "aggregate");
      return keyed(arg()).pipe(
        reduce((values) => {
          const group = consolidated(values.map(([[, v], w]) => [v, w]));
          return group.length ? [[[values[0][0][0], aggregate(group)], 1]] : [];
        }),
        map(([, r]) => r),
      );
    }
    default: throw new EngineError("unsupported", `node ${node.op}`);
  }
}

class ZSetEngine {
  constructor(setup) {
    const program = setup.program;
    this.graph = new D2({ initialFrontier: 0 });
    this.names = program.inputs;
    this.inputs = Object.fromEntries(this.names.map((name) => [name, this.graph.newInput()]));
    this.delta = [];
    this.failure = null;
    try {
      compile(program.output, this.inputs).pipe(output((message) => {
        if (message.type === MessageType.DATA) this.delta.push(...message.data.collection.getInner());
      }));
      this.graph.finalize();
    } catch (e) {
      this.failure = e;  // a program d2ts cannot take: its first step is refused
    }
    this.version = 0;
  }

  async run(step) {
    if (this.failure) throw this.failure instanceof EngineError ? this.failure : new EngineError("malformed-input");
    if (step.op !== "step") throw new EngineError("malformed-input");
    this.delta = [];
    for (const name of this.names) this.inputs[name].sendData(this.version, new MultiSet(step.inputs[name] || []));
    this.version += 1;
    for (const name of this.names) this.inputs[name].sendFrontier(this.version);
    this.graph.run();
    return { output: consolidated(this.delta) };
  }
}

// [record, ±1] for what is in `now` and not in `before`, and the other way round.
function changes(before, now, record) {
  const out = [];
  for (const [s, x] of now) if (!before.has(s)) out.push([record(x), 1]);
  for (const [s, x] of before) if (!now.has(s)) out.push([record(x), -1]);
  return out;
}

const implementation = {
  name: "d2ts",
  version: installedVersion(modules, "@electric-sql/d2ts"),
  language: "javascript",
  areas: ["fixpoint", "zset"],
  features: [],
  configuration: { live_set: "iterate over tagged roots and edges" },
};
await serve(implementation, { fixpoint: FixpointEngine, zset: ZSetEngine }, opts);
