// Minimal reproductions of the released Skip runtime's failures under the suite, one per cause,
// straight on Skip's API (no suite involved):
//   node engines/skip/repro.mjs --modules CACHE
// Each prints what Skip gives and what the reduce semantics (SKIP-DEF-10, SKIP-DEC-VIEW) asks for.
import { canon, importFrom, options } from "../protocol.mjs";

const { initService } = await importFrom(options().modules || ".", "@skipruntime/wasm");

let adds = 0, removes = 0;
class Sum { constructor() { this.initial = 0; } add(a, v) { adds += 1; return a + v; } remove(a, v) { return a - v; } }
class Count { constructor() { this.initial = 0; } add(a) { return a + 1; } remove(a) { removes += 1; return a - 1; } }
class Min {
  constructor() { this.initial = null; }
  add(a, v) { return a === null || v < a ? v : a; }
  remove(a, v) { return v <= a ? null : a; }
}
class Gather { mapEntry(key, values) { return values.toArray().map((v) => [key[0], v]); } }
class View { instantiate(collections) { return collections.view; } }

// A service whose resource "view" is input.reduce(R), or input.mapReduce(Gather)(R) when gathered.
async function viewOf(R, gathered, initial, update) {
  const service = {
    initialData: { input: initial },
    resources: { view: View },
    createGraph: (inputs) => ({ view: gathered ? inputs.input.mapReduce(Gather)(R) : inputs.input.reduce(R) }),
  };
  const instance = await initService(service);
  await instance.instantiateResource("v", "view", {});
  if (update) await instance.update("input", update);
  const view = await instance.getAll("view");
  await instance.close();
  return canon(view);
}

const CASES = [
  ["emptied-key-stays", "a key whose values are all removed stays in the view with remove's residue",
    () => viewOf(Sum, false, [["k", [1]]], [["k", []]]), "[]"],
  ["null-remove", "remove returning null (recompute) leaves a null accumulator",
    () => viewOf(Min, true, [[["k", 0], [3]], [["k", 1], [5]]], [[["k", 0], []]]), '[["k",[5]]]'],
  ["null-value-ends-values", "a JSON null value ends a key's values: later values are never seen",
    () => viewOf(Count, true, [[["k", 0], [null]], [["k", 1], [7]]], null), '[["k",[2]]]'],
  ["true-read-as-one", "the key true comes back as the number 1",
    () => viewOf(Count, false, [[1, ["a"]], [true, ["b"]]], null), '[[1,[1]],[true,[1]]]'],
  ["add-called-twice", "each reducer call happens twice: add calls for one added value",
    async () => { adds = 0; await viewOf(Sum, false, [["k", []]], [["k", [1]]]); return String(adds); }, "1"],
  ["array-replaced-whole", "replacing a key's array [3, 1] by [3] calls remove on every old value",
    async () => { removes = 0; await viewOf(Count, false, [["k", [3, 1]]], [["k", [3]]]); return String(removes); },
    "1"],
  ["getarray-slows", "each getArray call costs more than the calls before it (it instantiates and closes a resource "
    + "instance per call): the first 300 calls against calls 2,000 to 2,300, on a view of one key",
    () => getArrayGrowth(), "flat (under 2x)"],
];

// The mean time of getArray calls 2,000 to 2,300 over that of the first 300, on a one-key view.
async function getArrayGrowth() {
  const service = { initialData: { input: [["k", [1]]] }, resources: { view: View },
                    createGraph: (inputs) => ({ view: inputs.input.reduce(Sum) }) };
  const instance = await initService(service);
  const mean = async (calls) => {
    const start = performance.now();
    for (let i = 0; i < calls; i++) await instance.getArray("view", "k");
    return (performance.now() - start) / calls;
  };
  const first = await mean(300);
  await mean(1700);
  const later = await mean(300);
  await instance.close();
  const growth = later / first;
  return growth < 2 ? "flat (under 2x)" : `${growth.toFixed(1)}x slower (${first.toFixed(2)} -> ${later.toFixed(2)} ms a call)`;
}

for (const [name, what, run, expected] of CASES) {
  let got;
  try { got = await run(); } catch (e) { got = `throws ${e}`; }
  const verdict = got === expected ? "fixed" : "REPRODUCED";
  console.log(`${verdict.padEnd(10)} ${name}: ${what}\n           Skip: ${got}   expected: ${expected}`);
}
