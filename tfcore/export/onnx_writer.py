"""Lower a format-neutral :class:`~.graph.Graph` to an ONNX model (opset 20) with the ``onnx`` package.

The model keeps Keras's channels-last interface (NHWC inputs and outputs, as ``tf2onnx`` does by
default); each convolution and pooling is wrapped in Transposes to ONNX's NCHW, which onnxruntime's
transpose optimizer cancels between consecutive layers. Weights are initializers, float32 or (with
``float16=True``) float16 followed by a Cast to float32, so compute stays float32.
"""

import math

import numpy as np

from .graph import same_padding

OPSET = 20

_UNARY = {"relu": "Relu", "sigmoid": "Sigmoid", "tanh": "Tanh", "exp": "Exp", "elu": "Elu",
          "hard_swish": "HardSwish", "softmax": "Softmax"}
_BINARY = {"add": "Add", "sub": "Sub", "mul": "Mul", "div": "Div", "maximum": "Max", "minimum": "Min"}


def _onnx():
    try:
        import onnx
    except ImportError as e:  # pragma: no cover - depends on the install
        raise ImportError("ONNX export needs the `onnx` package: pip install 'tfcore[export]'") from e
    return onnx


def to_onnx(g, float16=False, version=""):
    """The ``onnx.ModelProto`` of graph ``g``, checked with ``onnx.checker.check_model(full_check=True)``."""
    onnx = _onnx()
    from onnx import TensorProto, helper, numpy_helper

    nodes, inits, counter = [], [], [0]

    def fresh(base):
        counter[0] += 1
        return f"{base}__{counter[0]}"

    def node(op_type, inputs, outputs=None, name=None, **attrs):
        outputs = outputs or [fresh(name or op_type)]
        nodes.append(helper.make_node(op_type, inputs, outputs, name=fresh(name or op_type), **attrs))
        return outputs[0]

    def int_const(values, hint):
        name = fresh(hint)
        inits.append(numpy_helper.from_array(np.asarray(values, np.int64), name))
        return name

    def float_const(values, hint):
        name = fresh(hint)
        inits.append(numpy_helper.from_array(np.asarray(values, np.float32), name))
        return name

    def weight(arr, name):
        """An initializer ``name`` (float16 + Cast when asked and worth it)."""
        if float16 and arr.dtype == np.float32 and arr.size > 1:
            inits.append(numpy_helper.from_array(arr.astype(np.float16), name + "__f16"))
            node("Cast", [name + "__f16"], [name], name=name, to=TensorProto.FLOAT)
        else:
            inits.append(numpy_helper.from_array(arr, name))
        return name

    conv_kernels = {op.inputs[1] for op in g.ops if op.type in ("conv2d", "depthwise_conv2d", "conv2d_transpose")}
    used = {i for op in g.ops for i in op.inputs} | set(g.outputs)
    for name, arr in g.consts.items():
        if name in used and name not in conv_kernels:  # convolution kernels are stored once, in OIHW layout
            weight(arr, name)

    def nchw(x, hint):
        return node("Transpose", [x], name=hint + "/to_nchw", perm=[0, 3, 1, 2])

    def conv_pads(x, op):
        if op.attrs["padding"] == "VALID":
            return [0, 0, 0, 0]
        h, w = g.shapes[x][1:3]
        k = op.attrs.get("ksize") or g.consts[op.inputs[1]].shape[:2]
        d = op.attrs.get("dilations", (1, 1))
        (t, b), (lft, r) = (same_padding(h, k[0], op.attrs["strides"][0], d[0]),
                            same_padding(w, k[1], op.attrs["strides"][1], d[1]))
        return [t, lft, b, r]

    for op in g.ops:
        x, out, t, a = op.inputs[0] if op.inputs else None, op.outputs[0], op.type, op.attrs
        if t in ("conv2d", "depthwise_conv2d"):
            w = g.consts[op.inputs[1]]
            if t == "conv2d":
                wo, group = w.transpose(3, 2, 0, 1), a["groups"]
            else:
                kh, kw, cin, mult = w.shape
                wo, group = w.reshape(kh, kw, 1, cin * mult).transpose(3, 2, 0, 1), cin
            wname = weight(np.ascontiguousarray(wo), op.inputs[1])
            y = node("Conv", [nchw(x, out), wname, op.inputs[2]], name=out, strides=list(a["strides"]),
                     dilations=list(a["dilations"]), group=int(group), pads=conv_pads(x, op),
                     kernel_shape=list(w.shape[:2]))
            node("Transpose", [y], [out], name=out + "/to_nhwc", perm=[0, 2, 3, 1])
        elif t == "conv2d_transpose":
            w = g.consts[op.inputs[1]]  # (kh, kw, cout, cin) -> ONNX's (cin, cout, kh, kw)
            begins, ends, extra = [], [], []
            for size, out_size, k, s, d in zip(g.shapes[x][1:3], a["out_hw"], w.shape[:2], a["strides"],
                                               a["dilations"]):
                before = same_padding(out_size, k, s, d)[0] if a["padding"] == "SAME" else 0
                end = (size - 1) * s + (k - 1) * d + 1 - out_size - before
                begins.append(before)
                ends.append(max(end, 0))
                extra.append(max(-end, 0))  # output_padding: rows past the full transposed convolution
            wname = weight(np.ascontiguousarray(w.transpose(3, 2, 0, 1)), op.inputs[1])
            y = node("ConvTranspose", [nchw(x, out), wname, op.inputs[2]], name=out, strides=list(a["strides"]),
                     dilations=list(a["dilations"]), pads=begins + ends, output_padding=extra,
                     kernel_shape=list(w.shape[:2]))
            node("Transpose", [y], [out], name=out + "/to_nhwc", perm=[0, 2, 3, 1])
        elif t in ("max_pool", "avg_pool"):
            kw = {"count_include_pad": 0} if t == "avg_pool" else {}
            y = node("MaxPool" if t == "max_pool" else "AveragePool", [nchw(x, out)], name=out,
                     kernel_shape=list(a["ksize"]), strides=list(a["strides"]), pads=conv_pads(x, op), **kw)
            node("Transpose", [y], [out], name=out + "/to_nhwc", perm=[0, 2, 3, 1])
        elif t == "matmul":
            y = node("MatMul", [x, op.inputs[1]], name=out)
            node("Add", [y, op.inputs[2]], [out], name=out)
        elif t == "batch_matmul":
            b = op.inputs[1]
            if a.get("transpose_b"):
                rank = len(g.shapes[b])
                b = node("Transpose", [b], perm=list(range(rank - 2)) + [rank - 1, rank - 2])
            node("MatMul", [x, b], [out], name=out)
        elif t in _BINARY:
            node(_BINARY[t], op.inputs, [out], name=out)
        elif t in _UNARY:
            kw = {"axis": -1} if t == "softmax" else {}
            node(_UNARY[t], [x], [out], name=out, **kw)
        elif t == "relu6":
            node("Clip", [x, float_const(0.0, "zero"), float_const(6.0, "six")], [out], name=out)
        elif t == "hard_sigmoid":
            node("HardSigmoid", [x], [out], name=out, alpha=1.0 / 6.0, beta=0.5)
        elif t == "leaky_relu":
            node("LeakyRelu", [x], [out], name=out, alpha=float(a["alpha"]))
        elif t == "gelu":
            node("Gelu", [x], [out], name=out, approximate="tanh" if a["approximate"] else "none")
        elif t == "rsqrt":
            node("Reciprocal", [node("Sqrt", [x], name=out)], [out], name=out)
        elif t == "mean":
            node("ReduceMean", [x, int_const(list(a["axes"]), "axes")], [out], name=out,
                 keepdims=int(a["keepdims"]))
        elif t == "reshape":
            node("Reshape", [x, int_const(list(a["shape"]), "shape")], [out], name=out)
        elif t == "transpose":
            node("Transpose", [x], [out], name=out, perm=list(a["perm"]))
        elif t == "pad":
            pads = [p[0] for p in a["pads"]] + [p[1] for p in a["pads"]]
            node("Pad", [x, int_const(pads, "pads")], [out], name=out, mode="constant")
        elif t == "concat":
            node("Concat", op.inputs, [out], name=out, axis=int(a["axis"]))
        elif t == "gather":
            node("Gather", op.inputs, [out], name=out, axis=0)
        elif t == "slice":
            begin, size = list(a["begin"]), list(a["size"])
            end = [(b + s) if s >= 0 else 2**62 for b, s in zip(begin, size)]
            node("Slice", [x, int_const(begin, "starts"), int_const(end, "ends")], [out], name=out)
        else:
            raise ValueError(f"ONNX writer: no lowering for op '{t}' (tensor {out})")

    def value_info(name):
        shape = [("batch" if i == 0 else f"{name}_dim{i}") if d is None else int(d)
                 for i, d in enumerate(g.shapes[name])]  # unknown dims other than the batch are independent
        return helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(g.dtypes[name]), shape)

    graph = helper.make_graph(nodes, g.name, [value_info(n) for n in g.inputs], [value_info(n) for n in g.outputs],
                              initializer=inits)
    # IR version 9 is the one opset 20 shipped with (ONNX 1.15): the oldest runtime that runs opset 20 reads it.
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="tfcore",
                              producer_version=version, ir_version=9)
    onnx.checker.check_model(model, full_check=True)
    return model


def write_onnx(g, path, float16=False):
    """Write ``g`` as an ONNX file at ``path`` (the caller renames a temp file into place)."""
    from .._version import __version__

    model = to_onnx(g, float16=float16, version=__version__)
    with open(path, "wb") as f:
        f.write(model.SerializeToString())
    return math.fsum(len(i.raw_data) for i in model.graph.initializer)
