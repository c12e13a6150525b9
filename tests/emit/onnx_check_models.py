"""Validates every model tc_onnx_fixtures wrote with the ONNX checker
(Debian's python3-onnx): onnx.checker.check_model(full_check=True), which
also runs strict shape inference, plus the interface the exporter promises
(opset, inputs, outputs by name and type, parameters as initializers).

usage: onnx_check_models.py DIR
exit: 0 all valid, 1 a model is invalid, 77 (SKIPPED) without python3-onnx.
"""
import json
import os
import sys

try:
    import onnx
    from onnx import TensorProto
except ImportError as e:  # SKIPPED at ctest level, never a pass
    print(f"skipped: python3-onnx is not installed ({e})")
    sys.exit(77)

MIN_MODELS = 300


def main(folder):
    manifest = json.load(open(os.path.join(folder, "manifest.json")))
    bad = 0
    for prog in manifest["programs"]:
        path = os.path.join(folder, prog["model"])
        try:
            model = onnx.load(path)
            onnx.checker.check_model(model, full_check=True)
        except Exception as e:  # the checker raises ValidationError, shape inference InferenceError
            bad += 1
            print(f"INVALID {prog['name']} ({prog['model']}): {e}".splitlines()[0])
            continue
        elem = TensorProto.FLOAT if prog["dtype"] == "float32" else TensorProto.DOUBLE
        graph = model.graph
        problems = []
        if [o.version for o in model.opset_import if o.domain in ("", "ai.onnx")] != [17]:
            problems.append("opset is not 17")
        if [i.name for i in graph.input] != prog["inputs"]:
            problems.append(f"inputs {[i.name for i in graph.input]}")
        want = [o["name"] for o in prog["outputs"]] + ["failed", "error_node"]
        if [o.name for o in graph.output] != want:
            problems.append(f"outputs {[o.name for o in graph.output]}, want {want}")
        types = [o.type.tensor_type.elem_type for o in graph.output]
        if types != [elem] * len(prog["outputs"]) + [TensorProto.BOOL, TensorProto.INT64]:
            problems.append(f"output types {types}")
        if any(i.type.tensor_type.elem_type != elem for i in graph.input):
            problems.append("an input is not in the program's dtype")
        if any(n.op_type == "MatMul" for n in graph.node):
            problems.append("uses MatMul")
        if problems:
            bad += 1
            print(f"INTERFACE {prog['name']}: {'; '.join(problems)}")
    n = len(manifest["programs"])
    print(f"onnx checker: {n - bad} of {n} models valid (full check), {len(manifest['refused'])} programs refused")
    if n < MIN_MODELS:
        print(f"FAIL: only {n} models (want at least {MIN_MODELS}): a broken exporter cannot pass by exporting nothing")
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
