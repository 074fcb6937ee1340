"""The verdict for people: a short table, the counterexamples, the Theorem 2
witness, and exactly what was searched. (Machines get the report dict as JSON.)"""

from __future__ import annotations

from typing import Any

#: what one engine did, in the "what was searched" list
ENGINE_WORDS = {"holds": "none found", "fails": "FOUND", "raised": "RAISED", "hung": "HUNG",
                "skipped": "skipped"}

STATUS_WORDS = {"holds": "holds within search", "fails": "FAILS", "error": "ERROR",
                "not checked": "not checked"}


def _status(line: dict[str, Any]) -> str:
    if line["status"] == "holds" and line["decided"]:
        return "holds (decided)"
    ce = line["counterexample"]
    warning = " (warning)" if not line["counts"] else ""
    if line["status"] == "error" and ce:
        word = "HUNG" if ce.get("hung") else "RAISED"
        return (f"{word} in {ce['call']['function']}" if ce.get("call") else word) + warning
    return STATUS_WORDS[line["status"]] + (warning if line["status"] == "fails" else "")


def _ids(report: dict[str, Any], keys: list[str]) -> str:
    by_key = {line["key"]: line for line in report["lines"]}
    return ", ".join(f"{by_key[k]['id']} [{k}]" for k in keys)


def verdict_text(report: dict[str, Any]) -> str:
    """The paper's verdict in one sentence (the report's first line after the domains)."""
    verdict, warnings = report["verdict"], report["warnings"]
    scope = "stronger laws and failures no runtime is shown to meet count (--strict)" \
        if report["strict"] else "within the search below"
    if verdict == "well-formed":
        text = (f"WELL-FORMED on reachable accumulators, and pure: incremental update = "
                f"recomputation (SKIP-THM-2), {scope}")
        if report["tolerance_mode"]:
            text += ", UP TO TOLERANCE (weaker than the spec's =)"
    elif verdict == "ill-formed":
        text = (f"NOT WELL-FORMED: {_ids(report, [report['witness_line']])} fails where a "
                "runtime goes; the witness is below")
        if report["strict"]:
            text = f"NOT WELL-FORMED under --strict: {_ids(report, [report['witness_line']])}"
    else:
        text = "NOT DECIDED: a property the verdict rests on could not be searched (see below)"
    if warnings:
        text += (f"; {len(warnings)} warning{'s' if len(warnings) > 1 else ''} "
                 f"({_ids(report, warnings)}; --strict counts them)")
    return text


def _error(ce: dict[str, Any]) -> str:
    """What the reducer did: ``remove(0, 0) raised ZeroDivisionError: ...``, or HUNG."""
    call = ce.get("call")
    where = f"{call['function']}({call['acc']}, {call['value']})" if call else "the reducer"
    if ce.get("hung"):
        _, _, message = ce["error"].partition(": ")
        return f"{where} HUNG: {message or ce['error']}"
    return f"{where} raised {ce['error']}"


#: the SKIP-DEF-11 instance's notation
D11_NOTATION = "(C(k) = M0 ⊎ D, Δ⁻(k) = D, Δ⁺(k) = P: M0 stays, D is removed, P is added)"


def _theorem2_applies(report: dict[str, Any]) -> bool:
    """SKIP-THM-2's hypothesis: ⊕ and ⊖ pairwise commutative (not refuted by the search)
    where a runtime goes (a failure that is only a warning is where none is shown to)."""
    return all(line["status"] == "holds" or not line["counts"] for line in report["lines"]
               if line["key"] in ("def2-add", "def2-remove"))


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
        *(f"  note:         {n}" for n in d.get("notes", [])),
        f"  equality:     {report['equality']}",
        f"  engines:      {', '.join(report['engines'])}",
        f"  verdict:      {verdict_text(report)}",
        "",
    ]
    rows = [("ID", "property", "verdict", "found by")]
    for line in report["lines"]:
        verdict = _status(line)
        if report["tolerance_mode"] and line["status"] == "holds" and line["key"] != "pure":
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
        out += ["", "Counterexamples"]
    noted: dict[str, str] = {}  # a note already printed -> the line it was printed under
    for line in bad:
        ce = line["counterexample"]
        name = f"{line['id']} [{line['key']}]"
        args = ", ".join(f"{k} = {v}" for k, v in ce["args"].items())
        out.append(f"  {name} {line['title']}: {line['statement']}")
        out.append(f"    at {args}" + (f"   {D11_NOTATION}" if line["key"] == "def11" else ""))
        if line.get("shown_by"):
            out.append(f"    ({line['shown_by']})")
        if ce["error"]:
            out.append(f"    {_error(ce)}")
        for side, value in (ce["sides"] or {}).items():
            out.append(f"    {side} = {value}")
        earlier = dict.fromkeys(noted[text] for text in line["explanation"] if text in noted)
        out += [f"    note: {text}" for text in line["explanation"] if text not in noted]
        if earlier:
            out.append(f"    note: the notes under {', '.join(earlier)} above apply here too")
        noted.update({text: name for text in line["explanation"] if text not in noted})
    w = report.get("theorem2_witness")
    if w:
        applies = _theorem2_applies(report)
        heading = (f"Theorem 2 witness (SKIP-THM-2; {w['source']}):" if applies else
                   f"An incorrect update ({w['source']}; SKIP-THM-2 does not apply: ⊕ or ⊖ is "
                   "not pairwise commutative, so R is not a reducer in the sense of SKIP-DEF-6):")
        out += ["", heading,
                f"  C      = {_map(w['C'])}",
                f"  Δ⁻     = {_map(w['delta_minus'])}",
                f"  Δ⁺     = {_map(w['delta_plus'])}",
                f"  recompute   reduce_R(C • Δ)(k)             = {w['recomputed']}",
                f"  incremental update_R(reduce_R(C)(k), Δ, k) = {w['incremental']}"]
        back = w.get("inverse_law_fails_at")
        if back and applies:
            out.append(f"  and back (1 ⇒ 2): the inverse law fails at the reachable a = fold_⊕(ι, "
                       f"{back['M']}) = {back['a']} with v = {back['v']}: (a ⊕ v) ⊖ v = {back['result']}")
    key = report.get("witness_line")
    if key and (key != "def11" or not w):
        out += ["", f"Witness: the counterexample under {_ids(report, [key])} above, an instance "
                "a runtime meets" + (" (or, under --strict, any instance)" if report["strict"]
                                     else "") + "."]
    if any(line["status"] == "error" for line in report["lines"]):
        out += ["", "The reducer raised or hung (RAISED/HUNG above, with the call of add or remove "
                "and its arguments): the note under each line says whether a runtime meets that "
                "instance and what to do."]
    if report.get("declined_everywhere"):
        out += ["", "remove declined on every instance searched: a declined instance is "
                "recomputed by the runtime, so the laws over ⊖ were never exercised."]
    elif report.get("partial"):
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
    warned = (f" ({len(report['warnings'])} warning{'s' if len(report['warnings']) > 1 else ''}"
              f" above: {_ids(report, report['warnings'])}; --strict counts them)"
              if report["warnings"] else "")
    if status == 0:
        return ("well-formed on reachable accumulators and pure, within the search" + (
            ", UP TO TOLERANCE (weaker than the spec's =)" if report["tolerance_mode"] else "")
            + warned)
    if status == 1:
        key = report["witness_line"]
        line = next(line for line in report["lines"] if line["key"] == key)
        what = ("the reducer raised or hung on an instance a runtime meets" if line["status"] ==
                "error" else "a counterexample a runtime meets was found")
        if report["strict"] and not (line["met"] or key in ("def7", "def11")):
            what = "a counterexample was found (--strict: every line counts)"
        return f"not well-formed: {what} ({_ids(report, [key])})" + warned
    counted = [line for line in report["lines"] if line["counts"]]
    memory = [f"{line['id']} [{line['key']}]" for line in counted if line["status"] == "error"]
    if memory:
        return (f"the reducer ran out of the search's memory limit ({', '.join(memory)}): raise "
                "--memory-mb to check it")
    unchecked = [f"{line['id']} [{line['key']}]" for line in counted
                 if line["status"] == "not checked"]
    return (f"{len(unchecked)} of the properties could not be searched by the chosen engines "
            f"({', '.join(unchecked)}: see why above); a property nobody searched is not "
            "reported as holding. Add an engine (--engines) or choose other domains.")


def _map(m: dict[str, str]) -> str:
    return "{" + ", ".join(f"{k}: {v}" for k, v in m.items()) + "}" if m else "{} (empty everywhere)"
