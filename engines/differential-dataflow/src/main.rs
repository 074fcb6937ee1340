//! differential-dataflow under the conformance suite, through the JSON-lines protocol: a skeleton.
//!
//!     incspec engines install differential-dataflow   # cargo build --release into .engines/differential-dataflow/
//!     .engines/differential-dataflow/release/incspec-differential-dataflow
//!
//! One request per line on stdin, one reply per line on stdout. The areas it would serve, each case
//! one timely worker's dataflow whose input's epochs are the case's steps:
//!
//! * zset: the program's nodes as collection operators (`map`, `filter`, `concat`, `negate`,
//!   `join` on the pair's key, `distinct`, `reduce`), `iterate` as `Collection::iterate` (nested
//!   iterates as nested scopes); a step's output is the output collection's updates at its epoch;
//! * fixpoint: the live set as `roots.iterate(|live| live.join(&edges).map(dst).concat(&roots).distinct())`;
//! * reduce: the collection keyed by `k`, the reducer a `reduce` whose output's updates at the
//!   step's epoch are the view's `changes` (a key retracted without a new value: `null`).
//!
//! Only the handshake is written: every case is answered `skipped` with the mapping it would use,
//! never with a result. differential-dataflow is linked (so its crate must resolve) though not used yet.

use std::io::{self, BufRead, Write};

use serde_json::{json, Value};

#[allow(unused_imports)]
use differential_dataflow as _;

fn plan(area: &str) -> &'static str {
    match area {
        "zset" => "the program's nodes as collection operators, iterate as Collection::iterate",
        "fixpoint" => "the live set as an iterate over the edges (join, concat, distinct)",
        "reduce" => "the collection keyed, the reducer a reduce read at the step's epoch",
        _ => "none",
    }
}

fn main() {
    let stdout = io::stdout();
    for line in io::stdin().lock().lines() {
        let line = line.expect("stdin");
        let message: Value = serde_json::from_str(&line).expect("a JSON line");
        let reply = match message["cmd"].as_str() {
            Some("start") => json!({"implementation": {
                "name": "differential-dataflow", "version": "0.15", "language": "rust",
                "areas": ["zset", "fixpoint", "reduce"], "features": [],
                "configuration": {"status": "skeleton: every case is skipped, its mapping not written yet"}}}),
            Some("run") => {
                let area = message["case"]["area"].as_str().unwrap_or("");
                json!({"seq": message["seq"], "skipped": {"message": format!(
                    "differential-dataflow skeleton: the {area} mapping ({}) is not written yet; \
                     see engines/differential-dataflow/README.md", plan(area))}})
            }
            _ => return,
        };
        let mut out = stdout.lock();
        writeln!(out, "{reply}").expect("stdout");
        out.flush().expect("stdout");
    }
}
