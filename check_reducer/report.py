"""The verdict for people: a short table, the counterexamples, the Theorem 2
witness, and exactly what was searched. (Machines get the report dict as JSON.)"""

from __future__ import annotations

from typing import Any

#: what one engine did, in the "what was searched" list
ENGINE_WORDS = {"holds": "none found", "fails": "FOUND", "raised": "RAISED", "skipped": "skipped"}

STATUS_WORDS = {"holds": "holds within search", "fails": "FAILS", "error": "ERROR",
                "not checked": "not checked"}


def _status(line: dict[str, Any]) -> str:
    if line["status"] == "holds" and line["decided"]:
        return "holds (decided)"
    return STATUS_WORDS[line["status"]]


def _property(line: dict[str, Any]) -> str:
    return str(line["title"])


def render(report: dict[str, Any]) -> str:
    out: list[str] = [f"incspec check-reducer {report['target']}"]
    error = report.get("error")
    if error:
        out.append(f"error ({error['kind']}): {error['message']}")
        return "\n".join(out) + f"\nexit status 2: the check could not run ({error['kind']})\n"
    d = report["domains"]
    out += [
        f"  values:       {d['values']['spec']}  ({d['values']['description']})",
        f"  accumulators: {d['accumulators']['spec']}  ({d['accumulators']['description']})",
        f"  domains from: {d['how'] or 'the command line'}",
        f"  equality:     {report['equality']}",
        f"  engines:      {', '.join(report['engines'])}",
        "",
    ]
    rows = [("ID", "property", "verdict", "found by")]
    for line in report["lines"]:
        verdict = _status(line)
        if report["tolerance_mode"] and line["status"] == "holds":
            verdict += " UP TO TOLERANCE"
        if line["declined"]:
            searched = sum(e["cases"] for e in line["engines"])
            verdict += (f" VACUOUSLY (all {searched} declined)" if line["declined"] == searched
                        else f" ({line['declined']} declined)")
        rows.append((line["id"], _property(line), verdict, ", ".join(line["found_by"])))
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    for r in rows:
        out.append(("  " + "  ".join(c.ljust(w) for c, w in zip(r[:3], widths, strict=True))
                    + "  " + r[3]).rstrip())
    notes: dict[str, list[str]] = {}  # a note shared by several holding lines is shown once
    for line in report["lines"]:
        if line["status"] == "holds":
            for text in line["explanation"]:
                notes.setdefault(text, []).append(line["id"])
    for text, ids in notes.items():
        out += ["", f"  {', '.join(dict.fromkeys(ids))}: {text}"]
    bad = [line for line in report["lines"] if line["status"] in ("fails", "error")]
    if bad:
        out += ["", "Counterexamples (minimal: smallest-first enumeration or shrunk by Hypothesis)"]
    shown_notes: set[str] = set()
    for line in bad:
        ce = line["counterexample"]
        args = ", ".join(f"{k} = {v}" for k, v in ce["args"].items())
        out.append(f"  {line['id']} ({line['title']}): {line['statement']}")
        out.append(f"    at {args}")
        if ce["error"]:
            kind, _, message = ce["error"].partition(": ")
            out.append(f"    the reducer hung: {message}" if kind == "CallTimeout"
                       else f"    the reducer raised {ce['error']}")
        for name, value in (ce["sides"] or {}).items():
            out.append(f"    {name} = {value}")
        repeated = [text for text in line["explanation"] if text in shown_notes]
        out += [f"    note: {text}" for text in line["explanation"] if text not in shown_notes]
        if repeated:
            out.append(f"    note: {len(repeated)} more as above")
        shown_notes.update(line["explanation"])
    w = report.get("theorem2_witness")
    if w:
        out += ["", f"Theorem 2 witness (SKIP-THM-2; {w['source']}):",
                f"  C      = {_map(w['C'])}",
                f"  Δ⁻     = {_map(w['delta_minus'])}",
                f"  Δ⁺     = {_map(w['delta_plus'])}",
                f"  recompute   reduce_R(C • Δ)(k)             = {w['recomputed']}",
                f"  incremental update_R(reduce_R(C)(k), Δ, k) = {w['incremental']}"]
        back = w.get("inverse_law_fails_at")
        if back:
            out.append(f"  and back (1 ⇒ 2): the inverse law fails at the reachable a = fold_⊕(ι, "
                       f"{back['M']}) = {back['a']} with v = {back['v']}: (a ⊕ v) ⊖ v = {back['result']}")
    if any(line["status"] == "error" for line in report["lines"]):
        out += ["", "The reducer raised (or hung) on an input of the declared domains: fix it, or "
                "narrow the domain (--values/--acc) to the inputs it is meant for."]
    if report.get("partial"):
        out += ["", "remove declines on some inputs (partial reducer): a declined instance is "
                "recomputed by the runtime, so only the answers remove does give were checked."]
    out += ["", "What was searched (finding no counterexample is not a proof):"]
    for line in report["lines"]:
        out.append(f"  {line['id']} [{line['key']}]")
        for e in line["engines"]:
            counts = (f"{e['cases']} instances, " if e["engine"] != "crosshair" else "") + (
                f"{e['declined']} declined, " if e["declined"] else "")
            tag = "decided: " if e["decided"] else ""
            spent = "" if e["status"] == "skipped" and not e["cases"] else f" ({counts}{e['seconds']} s)"
            out.append(f"    {e['engine']:<10} {ENGINE_WORDS[e['status']]:<11} {tag}{e['searched']}{spent}")
            out += [f"                           {n}" for n in e["notes"]]
    out += ["", f"exit status {report['exit_status']}: {_exit_reason(report)}"]
    return "\n".join(out) + "\n"


def _exit_reason(report: dict[str, Any]) -> str:
    status = report["exit_status"]
    if status == 0:
        return "every property holds within the search" + (
            ", UP TO TOLERANCE (weaker than the spec's =)" if report["tolerance_mode"] else "")
    if status == 1:
        return "a counterexample was found"
    if any(line["status"] == "error" for line in report["lines"]):
        return "the reducer raised or hung on an input of its domains (shown above)"
    unchecked = [f"{line['id']} [{line['key']}]" for line in report["lines"]
                 if line["status"] == "not checked"]
    return (f"{len(unchecked)} of the properties could not be searched by the chosen engines "
            f"({', '.join(unchecked)}: see why above); a property nobody searched is not "
            "reported as holding. Add an engine (--engines) or choose other domains.")


def _map(m: dict[str, str]) -> str:
    return "{" + ", ".join(f"{k}: {v}" for k, v in m.items()) + "}" if m else "{} (empty everywhere)"
