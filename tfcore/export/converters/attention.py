"""MultiHeadAttention as projections, batch matmuls and a softmax (TF.js has no such layer)."""

import math

import numpy as np

from ...keras import layers as L
from .base import (
    converter,
    no_tfjs,
    unsupported,
    value,
)


# -- attention -------------------------------------------------------------------------------------------
def _mha_lower(layer, g, xs, out_shapes, node=None):
    """MultiHeadAttention on (batch, steps, features) inputs: projections, per-head scaled dot products
    (batch matmuls), softmax over the value steps, the output projection. Masks other than
    ``use_causal_mask`` are not exported."""
    kwargs = dict(node.call_kwargs) if node is not None else {}
    args = list(node.call_args) if node is not None else []
    extra = {k for k, v in kwargs.items() if v is not None and k not in ("key", "value", "use_causal_mask",
                                                                           "training", "query")}
    if extra or kwargs.get("return_attention_scores"):
        raise unsupported(layer, f"call arguments {sorted(extra) or ['return_attention_scores']}")
    if len(layer._attention_axes or ()) > 1 or len(g.shapes[xs[0]]) != 3:
        raise unsupported(layer, "inputs other than (batch, steps, features) or several attention axes")
    named = dict(zip(("query", "value", "key"), args))
    named.update({k: kwargs[k] for k in ("query", "value", "key") if kwargs.get(k) is not None})
    by_id = {id(kt): x for kt, x in zip(node.keras_inputs, xs)} if node is not None else {}
    query, value_in = by_id.get(id(named.get("query")), xs[0]), by_id.get(id(named.get("value")), xs[1])
    key_in = by_id.get(id(named["key"])) if named.get("key") is not None else value_in
    n, heads = layer.name, layer._num_heads
    kd, vd = layer._key_dim, layer._value_dim
    t, s = g.shapes[query][1], g.shapes[value_in][1]

    def project(x, dense, dim, hint, steps):
        w = value(dense.kernel)
        b = value(dense.bias) if dense.bias is not None else np.zeros(w.shape[1:], np.float32)
        y = g.op("matmul", [x, g.const(w.reshape(w.shape[0], -1), f"{n}/{hint}/kernel"),
                            g.const(b.reshape(-1), f"{n}/{hint}/bias")], (None, steps, heads * dim), f"{n}/{hint}")
        y = g.op("reshape", [y], (None, steps, heads, dim), f"{n}/{hint}/split", shape=(-1, steps, heads, dim))
        return g.op("transpose", [y], (None, heads, steps, dim), f"{n}/{hint}/heads", perm=(0, 2, 1, 3))

    q = project(query, layer._query_dense, kd, "query", t)
    q = g.op("mul", [q, g.const(np.float32(1.0 / math.sqrt(float(kd))), n + "/scale")], g.shapes[q], n + "/q_scaled")
    k = project(key_in, layer._key_dense, kd, "key", s)
    v = project(value_in, layer._value_dense, vd, "value", s)
    scores = g.op("batch_matmul", [q, k], (None, heads, t, s), n + "/scores", transpose_b=True)
    if kwargs.get("use_causal_mask"):
        mask = np.where(np.tril(np.ones((t, s), bool)), 0.0, -1e9).astype(np.float32)
        scores = g.op("add", [scores, g.const(mask, n + "/causal_mask")], (None, heads, t, s), n + "/masked")
    probs = g.op("softmax", [scores], (None, heads, t, s), n + "/probs")
    out = g.op("batch_matmul", [probs, v], (None, heads, t, vd), n + "/context")
    out = g.op("transpose", [out], (None, t, heads, vd), n + "/merge", perm=(0, 2, 1, 3))
    out = g.op("reshape", [out], (None, t, heads * vd), n + "/merged", shape=(-1, t, heads * vd))
    od = layer._output_dense
    w = value(od.kernel)
    b = value(od.bias) if od.bias is not None else np.zeros(w.shape[-1], np.float32)
    return [g.op("matmul", [out, g.const(w.reshape(heads * vd, -1), n + "/output/kernel"),
                            g.const(b, n + "/output/bias")], tuple(out_shapes[0]), n)]


_mha_lower.wants_node = True
converter(L.MultiHeadAttention, tfjs=no_tfjs("MultiHeadAttention"))(_mha_lower)
