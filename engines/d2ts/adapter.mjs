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
import { canon, EngineError, importFrom, installedVersion, options, serve } from "../protocol.mjs";

const opts = options();
const modules = opts.modules || ".";
const d2 = await importFrom(modules, "@electric-sql/d2ts");
const { D2, MultiSet, MessageType, iterate, filter, map, join, concat, distinct, output } = d2;

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
  areas: ["fixpoint"],
  features: [],
  configuration: { live_set: "iterate over tagged roots and edges" },
};
await serve(implementation, { fixpoint: FixpointEngine }, opts);
