"""SimpleRNN, LSTM and GRU unrolled over the static time steps, and their TF.js layers."""

import numpy as np

from ...keras import layers as L
from .base import (
    act_tfjs,
    activation_name,
    apply_activation,
    converter,
    unsupported,
    value,
)


# -- recurrent layers (unrolled over the static time steps) ------------------------------------------------
def _rnn_checks(layer, shape):
    if layer.stateful or getattr(layer, "time_major", False) or layer.cell.__class__ not in _CELLS:
        raise unsupported(layer, "stateful, time-major or custom-cell RNNs")
    if shape[1] is None:
        raise unsupported(layer, f"its input shape {tuple(shape)} has no static number of time steps")


def _slice_last(g, x, start, size, hint):
    """``x[..., start:start + size]`` of a rank-2 tensor."""
    return g.op("slice", [x], (g.shapes[x][0], size), hint, begin=(0, start), size=(-1, size))


def _rnn_lower(layer, g, xs, out_shapes):
    """SimpleRNN / LSTM / GRU as the cell's matmuls and gates, one step per time step (no masks).

    The input projection of all steps is one matmul; step 0 starts from zero states, so its recurrent
    terms are left out.
    """
    x, shape = xs[0], g.shapes[xs[0]]
    _rnn_checks(layer, shape)
    cell, n = layer.cell, layer.name
    u, steps = cell.units, shape[1]
    kind = type(cell).__name__
    gates = {"SimpleRNNCell": 1, "LSTMCell": 4, "GRUCell": 3}[kind]
    kernel, rec = value(cell.kernel), value(cell.recurrent_kernel)
    bias = value(cell.bias) if cell.bias is not None else None
    reset_after = kind == "GRUCell" and cell.reset_after
    b_in = (bias[0] if reset_after else bias) if bias is not None else np.zeros(gates * u, np.float32)
    b_rec = bias[1] if reset_after and bias is not None else None
    proj = g.op("matmul", [x, g.const(kernel, n + "/kernel"), g.const(b_in, n + "/bias")],
                (None, steps, gates * u), n + "/input_projection")
    act = activation_name(cell.activation)
    ract = activation_name(getattr(cell, "recurrent_activation", None))
    zero_bias = g.const(np.zeros(gates * u, np.float32), n + "/no_bias")
    rec_c = g.const(rec, n + "/recurrent_kernel")
    one = g.const(np.float32(1.0), n + "/one")
    h = c = None
    outputs = []
    order = range(steps - 1, -1, -1) if layer.go_backwards else range(steps)
    for i, t in enumerate(order):
        s = f"{n}/t{i}"
        xt = g.op("reshape", [g.op("slice", [proj], (None, 1, gates * u), s + "/slice", begin=(0, t, 0),
                                   size=(-1, 1, gates * u))], (None, gates * u), s + "/x", shape=(-1, gates * u))

        def act_on(name, v, hint):
            return apply_activation(g, layer, name, v) if name != "linear" else v

        if kind == "SimpleRNNCell":
            z = xt if h is None else g.op("add", [xt, g.op("matmul", [h, rec_c, zero_bias], (None, u), s + "/rec")],
                                          (None, u), s + "/z")
            h = act_on(act, z, s)
        elif kind == "LSTMCell":
            z = xt if h is None else g.op("add", [xt, g.op("matmul", [h, rec_c, zero_bias], (None, 4 * u),
                                                            s + "/rec")], (None, 4 * u), s + "/z")
            zi, zf, zc, zo = (_slice_last(g, z, k * u, u, f"{s}/{name}") for k, name in enumerate("ifco"))
            i_g, o_g = act_on(ract, zi, s), act_on(ract, zo, s)
            ic = g.op("mul", [i_g, act_on(act, zc, s)], (None, u), s + "/i_times_g")
            c = ic if c is None else g.op("add", [g.op("mul", [act_on(ract, zf, s), c], (None, u), s + "/f_times_c"),
                                                  ic], (None, u), s + "/c")
            h = g.op("mul", [o_g, act_on(act, c, s)], (None, u), s + "/h")
        else:  # GRU, gates z, r, h
            xz, xr, xh = (_slice_last(g, xt, k * u, u, f"{s}/x{name}") for k, name in enumerate("zrh"))
            if h is None:  # step 0: the recurrent term is the recurrent bias alone (reset_after) or nothing
                rz, rr, rh = (None, None, None) if b_rec is None else (
                    g.const(b_rec[:u], s + "/rb_z"), g.const(b_rec[u:2 * u], s + "/rb_r"),
                    g.const(b_rec[2 * u:], s + "/rb_h"))
            elif reset_after:
                mi = g.op("matmul", [h, rec_c, g.const(b_rec if b_rec is not None else np.zeros(3 * u, np.float32),
                                                       s + "/recurrent_bias")], (None, 3 * u), s + "/rec")
                rz, rr, rh = (_slice_last(g, mi, k * u, u, f"{s}/r{name}") for k, name in enumerate("zrh"))
            else:
                mi = g.op("matmul", [h, g.const(rec[:, :2 * u], n + f"/rk_zr{i}"),
                                     g.const(np.zeros(2 * u, np.float32), s + "/nb")], (None, 2 * u), s + "/rec")
                rz, rr = _slice_last(g, mi, 0, u, s + "/rz"), _slice_last(g, mi, u, u, s + "/rr")
                rh = None

            def plus(a, b, hint):
                return a if b is None else g.op("add", [a, b], (None, u), hint)

            zg = act_on(ract, plus(xz, rz, s + "/zsum"), s)
            r = act_on(ract, plus(xr, rr, s + "/rsum"), s)
            if reset_after:
                cand = xh if rh is None else g.op("add", [xh, g.op("mul", [r, rh], (None, u), s + "/r_rh")],
                                                  (None, u), s + "/hsum")
            elif h is None:
                cand = xh
            else:
                rh_in = g.op("mul", [r, h], (None, u), s + "/r_h")
                cand = g.op("add", [xh, g.op("matmul", [rh_in, g.const(rec[:, 2 * u:], n + f"/rk_h{i}"),
                                                        g.const(np.zeros(u, np.float32), s + "/nbh")],
                                             (None, u), s + "/rec_h")], (None, u), s + "/hsum")
            hh = act_on(act, cand, s)
            keep = g.op("sub", [one, zg], (None, u), s + "/one_minus_z")
            new = g.op("mul", [keep, hh], (None, u), s + "/new")
            h = new if h is None else g.op("add", [g.op("mul", [zg, h], (None, u), s + "/z_h"), new], (None, u),
                                           s + "/h")
        outputs.append(h)
    if layer.return_sequences:
        seq = [g.op("reshape", [o], (None, 1, u), f"{n}/seq{i}", shape=(-1, 1, u)) for i, o in enumerate(outputs)]
        out = seq[0] if len(seq) == 1 else g.op("concat", seq, (None, steps, u), n + "/sequences", axis=1)
    else:
        out = outputs[-1]
    if layer.return_state:
        return [out, h] + ([c] if kind == "LSTMCell" else [])
    return [out]


def _rnn_tfjs(layer):
    cell = layer.cell
    if layer.stateful or layer.return_state or type(cell) not in _CELLS:
        return None
    act, ract = activation_name(cell.activation), activation_name(getattr(cell, "recurrent_activation", None))
    if act_tfjs(act) is None or (type(cell) is not L.SimpleRNNCell and act_tfjs(ract) is None):
        return None
    config = {"units": cell.units, "activation": act, "use_bias": bool(cell.use_bias),
              "return_sequences": bool(layer.return_sequences), "return_state": False,
              "go_backwards": bool(layer.go_backwards), "stateful": False, "unroll": False}
    if type(cell) is not L.SimpleRNNCell:
        config["recurrent_activation"] = ract
    if type(cell) is L.GRUCell:
        if cell.reset_after:
            raise unsupported(layer, "TF.js's GRU has no reset_after=True (Keras's default); build the GRU with "
                                     "reset_after=False to export it to TF.js")
        config["reset_after"] = False
    weights = [("kernel", cell.kernel), ("recurrent_kernel", cell.recurrent_kernel)]
    if cell.bias is not None:
        weights.append(("bias", cell.bias))
    return type(layer).__name__, config, weights


_CELLS = (L.SimpleRNNCell, L.LSTMCell, L.GRUCell)
converter(L.SimpleRNN, L.LSTM, L.GRU, tfjs=_rnn_tfjs)(_rnn_lower)
