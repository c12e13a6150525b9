"""The Python side of the TypeScript interop tests: reads one JSON request
on stdin, does the work with tensorcode.program, prints one JSON answer.

Request fields (all optional):
  compile:   [{name, source, inputs, function, dtype}] -> {name: artifact text or {"error"}}
  run:       [{name, artifact, cases}]  -> {name: [outputs or {"error"}]}
  gradients: [{name, artifact, cases, output}] -> {name: [gradients or {"error"}]}
  resume:    [{name, snapshot, events}] -> {name: {"records": [...], "failure", "snapshot"}}
  start:     [{name, artifact, max_steps, events}] -> same shape as resume
  batch:     [{name, artifact, cases}] -> {name: {"outputs": [...]} or {"error", "type", "case"}}
  replay:    [{name, artifact, events}] -> {name: {"records": [...]} or {"error", "type", "event", "records"}}
  load:      [{name, artifact}] -> {name: {"ok": true} or {"error", "type"}}
  restore:   [{name, snapshot}] -> {name: {"ok": true} or {"error", "type"}}
  emit:      [{name, artifact}] -> {name: {"onnx": hex, "c": {source, header}} or {"error", "type"}}
Floats travel as JSON numbers with repr precision (bit-exact).
"""
import json
import sys

import tensorcode.program as tp


def error(e):
    return {"error": str(e), "type": type(e).__name__}


def run_events(rt, events):
    records, failure = [], None
    for i, event in enumerate(events):
        try:
            outputs = rt.dispatch(event)
            records.append({"outputs": outputs, "state": rt.state, "steps": rt.steps})
        except Exception as e:  # noqa: BLE001 - reported to the test
            failure = {"index": i, **error(e)}
            break
    return {"records": records, "failure": failure, "snapshot": rt.snapshot(),
            "steps": rt.steps, "max_steps": rt.max_steps}


def main():
    req = json.load(sys.stdin)
    out = {}
    if "compile" in req:
        res = {}
        for item in req["compile"]:
            try:
                p = tp.compile(item["source"], inputs=item["inputs"], dtype=item.get("dtype") or "float64",
                               function=item.get("function"))
                res[item["name"]] = p.to_json()
            except Exception as e:  # noqa: BLE001
                res[item["name"]] = error(e)
        out["compile"] = res
    if "run" in req:
        res = {}
        for item in req["run"]:
            p = tp.Program.from_json(item["artifact"])
            rows = []
            for case in item["cases"]:
                try:
                    rows.append(p.run(case))
                except Exception as e:  # noqa: BLE001
                    rows.append(error(e))
            res[item["name"]] = rows
        out["run"] = res
    if "gradients" in req:
        res = {}
        for item in req["gradients"]:
            p = tp.Program.from_json(item["artifact"])
            rows = []
            for case in item["cases"]:
                try:
                    rows.append(p.gradients(case, output=item["output"]))
                except Exception as e:  # noqa: BLE001
                    rows.append(error(e))
            res[item["name"]] = rows
        out["gradients"] = res
    if "resume" in req:
        out["resume"] = {item["name"]: run_events(tp.Runtime.restore(item["snapshot"]), item["events"])
                         for item in req["resume"]}
    if "start" in req:
        out["start"] = {item["name"]: run_events(tp.Runtime(tp.Program.from_json(item["artifact"]),
                                                            max_steps=item["max_steps"]), item["events"])
                        for item in req["start"]}
    if "batch" in req:
        res = {}
        for item in req["batch"]:
            p = tp.Program.from_json(item["artifact"])
            try:
                res[item["name"]] = {"outputs": p.run_batch(item["cases"])}
            except Exception as e:  # noqa: BLE001
                res[item["name"]] = {**error(e), "case": getattr(e, "case", None)}
        out["batch"] = res
    if "replay" in req:
        res = {}
        for item in req["replay"]:
            rt = tp.Runtime(tp.Program.from_json(item["artifact"]))
            try:
                res[item["name"]] = {"records": rt.replay(item["events"])}
            except Exception as e:  # noqa: BLE001
                res[item["name"]] = {**error(e), "event": getattr(e, "event", None), "records": getattr(e, "records", None)}
        out["replay"] = res
    if "emit" in req:
        res = {}
        for item in req["emit"]:
            try:
                p = tp.Program.from_json(item["artifact"])
                res[item["name"]] = {"onnx": p.to_onnx().hex(), "c": p.to_c("tc_program", header_file="model.h")}
            except Exception as e:  # noqa: BLE001
                res[item["name"]] = error(e)
        out["emit"] = res
    for key, make in (("load", lambda item: tp.Program.from_json(item["artifact"])),
                      ("restore", lambda item: tp.Runtime.restore(item["snapshot"]))):
        if key in req:
            res = {}
            for item in req[key]:
                try:
                    make(item)
                    res[item["name"]] = {"ok": True}
                except Exception as e:  # noqa: BLE001
                    res[item["name"]] = error(e)
            out[key] = res
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
