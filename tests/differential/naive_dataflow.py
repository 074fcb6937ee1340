"""An independent evaluator of the dataflow language (DD-DEC-DATAFLOW), for the tests:
plain dicts of weights and its own vocabulary, sharing no operator with
:mod:`reference.differential.operators`, so that an operator bug the reference's two
evaluations share is still seen. Programs are the reference's syntax trees."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from reference.differential.dataflow import (
    Distinct,
    Filter,
    Input,
    Iterate,
    Join,
    Map,
    Negate,
    Node,
    Plus,
    Reduce,
    Var,
)

Bag = dict[Any, int]


class NoFixpoint(Exception):
    pass


MAPS: dict[str, Callable[[Any], Any]] = {
    "inc": lambda x: x + 1, "double": lambda x: x + x, "neg": lambda x: 0 - x,
    "mod3": lambda x: x - 3 * (x // 3), "key_mod3": lambda x: (x - 3 * (x // 3), x),
    "dup": lambda x: (x, x), "swap": lambda x: (x[1], x[0]), "fst": lambda x: x[0], "snd": lambda x: x[1],
}
PREDS: dict[str, Callable[[Any], bool]] = {
    "even": lambda x: x % 2 == 0, "odd": lambda x: x % 2 != 0, "positive": lambda x: x > 0,
    "nonnegative": lambda x: x >= 0, "small": lambda x: x in range(10),
    "fst_even": lambda x: x[0] % 2 == 0, "fst_lt_snd": lambda x: x[0] < x[1],
}


def add(into: Bag, x: Any, w: int) -> None:
    into[x] = into.get(x, 0) + w
    if into[x] == 0:
        del into[x]


def _aggregate(agg: str, values: Bag) -> int:
    if agg == "count":
        return sum(values.values())
    if agg == "sum":
        return sum(v * w for v, w in values.items())
    return int((min if agg == "min" else max)(values))


def run(node: Node, inputs: Mapping[str, Bag], env: Mapping[str, Bag], bound: int) -> Bag:
    def ev(n: Node) -> Bag:
        return run(n, inputs, env, bound)

    out: Bag = {}
    if isinstance(node, Input):
        return dict(inputs.get(node.name, {}))
    if isinstance(node, Var):
        return dict(env[node.name])
    if isinstance(node, Map):
        for x, w in ev(node.arg).items():
            add(out, MAPS[node.fn](x), w)
    elif isinstance(node, Filter):
        out = {x: w for x, w in ev(node.arg).items() if PREDS[node.pred](x)}
    elif isinstance(node, Negate):
        out = {x: -w for x, w in ev(node.arg).items()}
    elif isinstance(node, Plus):
        out = ev(node.left)
        for x, w in ev(node.right).items():
            add(out, x, w)
    elif isinstance(node, Join):
        right = ev(node.right)
        for (k, a), w in ev(node.left).items():
            for (k2, b), v in right.items():
                if k2 == k:
                    add(out, (k, (a, b)), w * v)
    elif isinstance(node, Distinct):
        out = {x: 1 for x, w in ev(node.arg).items() if w > 0}
    elif isinstance(node, Reduce):
        groups: dict[Any, Bag] = {}
        for (k, v), w in ev(node.arg).items():
            add(groups.setdefault(k, {}), v, w)
        out = {(k, _aggregate(node.agg, g)): 1 for k, g in groups.items() if g}
    else:
        assert isinstance(node, Iterate)
        x = ev(node.seed)
        for _ in range(bound):  # at most ``bound`` applications of the body
            nxt = run(node.body, inputs, {**env, node.var: x}, bound)
            if nxt == x:
                return x
            x = nxt
        raise NoFixpoint(node.var)
    return out
