// A minimal reproduction of d2ts 0.1.8's failure under the fixpoint area, on d2ts's API alone:
//   node engines/d2ts/repro.mjs --modules CACHE
// Reachability from R over the chain R -> A -> B -> C -> D -> E -> F, one version, computed by
// iterate(s => distinct(s ∪ succ(s))): every node should be reached.
import { importFrom, options } from "../protocol.mjs";

const d2 = await importFrom(options().modules || ".", "@electric-sql/d2ts");
const { D2, MultiSet, MessageType, iterate, filter, map, join, concat, distinct, output } = d2;

const graph = new D2({ initialFrontier: 0 });
const input = graph.newInput();  // ["node", x] for the root, ["edge", u, v] for the edges
const reached = [];
input.pipe(
  iterate((s) => {
    const edges = s.pipe(filter((r) => r[0] === "edge"), map((r) => [r[1], r[2]]));
    const next = s.pipe(filter((r) => r[0] === "node"), map((r) => [r[1], null]), join(edges),
      map(([, [, v]]) => ["node", v]));
    return s.pipe(concat(next), map((r) => [JSON.stringify(r), r]), distinct(), map(([, r]) => r));
  }),
  filter((r) => r[0] === "node"),
  output((m) => {
    if (m.type === MessageType.DATA) for (const [[, x], n] of m.data.collection.getInner()) if (n > 0) reached.push(x);
  }),
);
graph.finalize();
const chain = ["R", "A", "B", "C", "D", "E", "F"];
input.sendData(0, new MultiSet([[["node", "R"], 1], ...chain.slice(1).map((x, i) => [["edge", chain[i], x], 1])]));
input.sendFrontier(1);
graph.run();
const verdict = reached.length === chain.length ? "fixed" : "REPRODUCED";
console.log(`${verdict.padEnd(10)} index-compaction: reached ${reached.sort().join(", ")}; expected ${[...chain].sort().join(", ")}`);
