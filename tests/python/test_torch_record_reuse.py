"""The bridge's forward records and the buffers the core keeps between calls
(core/grad/batch_state.h: record blocks come back to a pool when a record is
freed, and the next forward of the same size takes them). A record that a
pending backward still needs must never be handed to another forward: two
forwards before their backwards, in either order, and a retained graph
differentiated twice, give exactly the gradients of separate calls."""
import struct

import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")

from tensorcode.program import Builder  # noqa: E402

N = 600  # three blocks of 256 cases, the last one partial


def bits(t):
    return struct.pack(f"<{t.numel()}d", *t.detach().reshape(-1).tolist())


def one(v):
    return struct.pack("<d", float(v))


def program():
    """w * x * x * y where x > 0, else y * y * 1e300: cases with x > 0 and a
    large y overflow only on the unchosen side, so the block kernels flag
    them and the per-case code gives their values and the rows the reverse
    pass reads (each case's own: d/dx = 2 w x y)."""
    b = Builder()
    x = b.input("x")
    y = b.input("y")
    w = b.parameter("w", 1.25)
    return b.build(b.select(x > 0.0, w * x * x * y, y * y * 1e300))


def columns(seed):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-2.0, 2.0, N)
    y = rng.uniform(-3.0, 3.0, N)
    big = [c for c in range(0, N, 7) if x[c] > 0]
    y[big] = rng.uniform(1e10, 1e12, len(big))  # the overflowing unchosen side
    g = rng.uniform(-1.0, 1.0, N)
    return x, y, g


def leaves(model, data):
    x, y, _ = data
    return (torch.tensor(x, requires_grad=True), torch.tensor(y, requires_grad=True))


def gradients(model, xt, yt):
    w = model.parameter("w")
    return [bits(xt.grad), bits(yt.grad), bits(w.grad)]


def alone(data):
    """Gradients of one forward and its backward, in a fresh module."""
    model = program().to_tensor_module()
    xt, yt = leaves(model, data)
    out = model({"x": xt, "y": yt})["result"]
    out.backward(torch.tensor(data[2]))
    return bits(out), gradients(model, xt, yt)


def test_torch_pending_records_are_not_reused_by_later_forwards():
    a, b = columns(1), columns(2)
    want_a, want_b = alone(a), alone(b)
    assert want_a != want_b
    # Both orders of the two backwards, after warm-up calls that leave
    # released buffers of this size in the pool.
    for first_a in (True, False):
        model = program().to_tensor_module()
        for data in (a, b, a):
            xt, yt = leaves(model, data)
            model({"x": xt, "y": yt})["result"].backward(torch.tensor(data[2]))
        for p in model.parameters():
            p.grad = None
        xa, ya = leaves(model, a)
        xb, yb = leaves(model, b)
        out_a = model({"x": xa, "y": ya})["result"]
        out_b = model({"x": xb, "y": yb})["result"]
        assert bits(out_a) == want_a[0] and bits(out_b) == want_b[0]
        w = model.parameter("w")
        order = ((out_a, a, xa, ya), (out_b, b, xb, yb)) if first_a else ((out_b, b, xb, yb), (out_a, a, xa, ya))
        seen = []
        for out, data, xt, yt in order:
            w.grad = None
            out.backward(torch.tensor(data[2]))
            seen.append(gradients(model, xt, yt))
        got_a, got_b = (seen[0], seen[1]) if first_a else (seen[1], seen[0])
        assert got_a == want_a[1]
        assert got_b == want_b[1]


def test_torch_a_retained_record_survives_other_forwards():
    a, b = columns(3), columns(4)
    want_a = alone(a)
    model = program().to_tensor_module()
    xa, ya = leaves(model, a)
    out_a = model({"x": xa, "y": ya})["result"]
    seed = torch.tensor(a[2])
    out_a.backward(seed, retain_graph=True)
    first = gradients(model, xa, ya)
    assert first == want_a[1]
    # Forwards and backwards of other batches in between, while out_a's
    # graph (and its record) is kept.
    for _ in range(3):
        xb, yb = leaves(model, b)
        model({"x": xb, "y": yb})["result"].backward(torch.tensor(b[2]))
    for t in (xa, ya, model.parameter("w")):
        t.grad = None
    out_a.backward(seed)
    assert gradients(model, xa, ya) == want_a[1]


def test_torch_cases_the_blocks_flag_keep_their_own_rows():
    """The flagged cases' rows (kept only for them) go to their own cases'
    reverse pass: equal bit for bit to the per-case tape, on 1 and 2
    threads."""
    p = program()
    x, y, _ = columns(5)
    slow = [c for c in range(0, N, 7) if x[c] > 0]
    assert len(slow) > 20
    want = [(p.run({"x": x[c], "y": y[c]})["result"], p.gradients({"x": x[c], "y": y[c]})) for c in range(N)]
    for threads in (1, 2):
        model = p.to_tensor_module(threads=threads)
        xt, yt = torch.tensor(x, requires_grad=True), torch.tensor(y, requires_grad=True)
        out = model({"x": xt, "y": yt})["result"]
        out.backward(torch.ones(N, dtype=torch.float64))
        w_sum = 0.0
        for c, (value, grads) in enumerate(want):
            assert one(out[c]) == one(value), c
            assert one(xt.grad[c]) == one(grads["x"]), c
            assert one(yt.grad[c]) == one(grads["y"]), c
            w_sum += grads["w"]
        assert one(model.parameter("w").grad) == one(w_sum)
