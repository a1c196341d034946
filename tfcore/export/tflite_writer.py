"""Lower a format-neutral :class:`~.graph.Graph` to a TFLite flatbuffer with LiteRT's schema classes.

No TensorFlow and no ``flatc``: the object API of ``ai_edge_litert.schema_py_generated`` (the TFLite
schema compiled to Python) builds the model. TFLite is channels-last like Keras, so ops map one to one:
a Keras kernel [kh, kw, cin, cout] becomes CONV_2D's [cout, kh, kw, cin], a depthwise kernel
[kh, kw, cin, mult] DEPTHWISE_CONV_2D's [1, kh, kw, cin * mult], a Dense kernel FULLY_CONNECTED's
[out, in]. The batch dimension is 1 in ``shape`` and -1 in ``shape_signature`` (resize it with
``interpreter.resize_tensor_input``). With ``float16=True`` weights are stored float16 and a DEQUANTIZE
op widens each to float32 at load, as TensorFlow's float16 post-training quantization does.

TFLite has no hard-sigmoid op: it is lowered as ``relu6(x + 3) * (1/6)``; an exact GELU is its GELU op.
"""

import numpy as np

from .graph import Graph


def _schema():
    try:
        import flatbuffers
        from ai_edge_litert import schema_py_generated as schema
    except ImportError as e:  # pragma: no cover - depends on the install
        raise ImportError("TFLite export needs LiteRT's schema: pip install 'tfcore[export]' "
                          "(ai-edge-litert and flatbuffers)") from e
    return flatbuffers, schema


_TYPES = {np.dtype(np.float32): "FLOAT32", np.dtype(np.float16): "FLOAT16", np.dtype(np.int32): "INT32",
          np.dtype(np.int64): "INT64"}


class _Builder:
    """Tensors, buffers, operator codes and operators of one subgraph."""

    def __init__(self, schema, g: Graph, float16):
        self.s, self.g, self.float16 = schema, g, float16
        self.tensors, self.buffers, self.ops, self.codes = [], [schema.BufferT()], [], {}
        self.index = {}

    def buffer(self, arr):
        b = self.s.BufferT()
        b.data = np.frombuffer(np.ascontiguousarray(arr).tobytes(), np.uint8)
        self.buffers.append(b)
        return len(self.buffers) - 1

    def tensor(self, name, shape, dtype, data=None):
        t = self.s.TensorT()
        t.name = name
        t.shape = [1 if d is None else int(d) for d in shape]
        if any(d is None for d in shape):
            t.shapeSignature = [-1 if d is None else int(d) for d in shape]
        t.type = getattr(self.s.TensorType, _TYPES[np.dtype(dtype)])
        t.buffer = 0 if data is None else self.buffer(data)
        self.tensors.append(t)
        self.index[name] = len(self.tensors) - 1
        return self.index[name]

    def const(self, arr, name):
        """A constant input; float weights go through float16 + DEQUANTIZE when asked."""
        arr = np.ascontiguousarray(arr)
        if self.float16 and arr.dtype == np.float32 and arr.size > 1:
            half = self.tensor(name + "/float16", arr.shape, np.float16, arr.astype(np.float16))
            out = self.tensor(name, arr.shape, np.float32)
            self.operator("DEQUANTIZE", [half], [out])
            return out
        return self.tensor(name, arr.shape, arr.dtype, arr)

    def int_const(self, values, name):
        return self.tensor(name, np.shape(values), np.int32, np.asarray(values, np.int32))

    def operator(self, code, inputs, outputs, options=None, options_type=None):
        s = self.s
        builtin = getattr(s.BuiltinOperator, code)
        if code not in self.codes:
            oc = s.OperatorCodeT()
            oc.builtinCode, oc.deprecatedBuiltinCode, oc.version = builtin, min(builtin, 127), 1
            self.codes[code] = len(self.codes)
        op = s.OperatorT()
        op.opcodeIndex, op.inputs, op.outputs = self.codes[code], list(inputs), list(outputs)
        if options is not None:
            op.builtinOptionsType = getattr(s.BuiltinOptions, options_type or type(options).__name__[:-1])
            op.builtinOptions = options
        self.ops.append((code, op))

    def opts(self, cls, **fields):
        o = getattr(self.s, cls)()
        for k, v in fields.items():
            setattr(o, k, v)
        return o


_UNARY = {"relu": "RELU", "relu6": "RELU6", "sigmoid": "LOGISTIC", "tanh": "TANH", "exp": "EXP",
          "elu": "ELU", "hard_swish": "HARD_SWISH", "rsqrt": "RSQRT"}
_BINARY = {"add": ("ADD", "AddOptionsT"), "sub": ("SUB", "SubOptionsT"), "mul": ("MUL", "MulOptionsT"),
           "div": ("DIV", "DivOptionsT"), "maximum": ("MAXIMUM", None), "minimum": ("MINIMUM", None)}


def to_tflite(g, float16=False):
    """The bytes of a TFLite model computing graph ``g``."""
    flatbuffers, s = _schema()
    b = _Builder(s, g, float16)
    padding = {"SAME": s.Padding.SAME, "VALID": s.Padding.VALID}
    consts = {}

    def inp(name):
        if name in b.index:
            return b.index[name]
        if name in g.consts:
            consts[name] = b.const(g.consts[name], name)
            return consts[name]
        raise ValueError(f"TFLite writer: tensor '{name}' is used before it is computed")

    for name in g.inputs:
        b.tensor(name, g.shapes[name], g.dtypes[name])
    for op in g.ops:
        t, a, out_name = op.type, op.attrs, op.outputs[0]
        x = inp(op.inputs[0])

        def out(name=out_name):
            return b.tensor(name, g.shapes[name], g.dtypes[name])

        if t == "conv2d":
            w = g.consts[op.inputs[1]]
            if a["groups"] != 1:
                raise ValueError(f"TFLite writer: grouped convolution ({out_name}) is not exported")
            wt = b.const(w.transpose(3, 0, 1, 2), op.inputs[1])
            b.operator("CONV_2D", [x, wt, inp(op.inputs[2])], [out()],
                       b.opts("Conv2DOptionsT", padding=padding[a["padding"]], strideH=a["strides"][0],
                              strideW=a["strides"][1], dilationHFactor=a["dilations"][0],
                              dilationWFactor=a["dilations"][1]))
        elif t == "depthwise_conv2d":
            w = g.consts[op.inputs[1]]
            kh, kw, cin, mult = w.shape
            wt = b.const(w.reshape(1, kh, kw, cin * mult), op.inputs[1])
            b.operator("DEPTHWISE_CONV_2D", [x, wt, inp(op.inputs[2])], [out()],
                       b.opts("DepthwiseConv2DOptionsT", padding=padding[a["padding"]], strideH=a["strides"][0],
                              strideW=a["strides"][1], depthMultiplier=int(mult),
                              dilationHFactor=a["dilations"][0], dilationWFactor=a["dilations"][1]))
        elif t == "conv2d_transpose":
            if tuple(a["dilations"]) != (1, 1):
                raise ValueError(f"TFLite writer: TRANSPOSE_CONV has no dilation ({out_name})")
            w = g.consts[op.inputs[1]]  # (kh, kw, cout, cin) -> TFLite's (cout, kh, kw, cin)
            wt = b.const(w.transpose(2, 0, 1, 3), op.inputs[1])
            # The output shape input holds the batch, so it is computed from the input: shape(x)[:1] ++ [h, w, c].
            full_shape = b.tensor(out_name + "/input_shape", (4,), np.int32)
            b.operator("SHAPE", [x], [full_shape], b.opts("ShapeOptionsT", outType=s.TensorType.INT32))
            batch = b.tensor(out_name + "/batch", (1,), np.int32)
            b.operator("STRIDED_SLICE", [full_shape, b.int_const([0], out_name + "/begin"),
                                         b.int_const([1], out_name + "/end"), b.int_const([1], out_name + "/step")],
                       [batch], b.opts("StridedSliceOptionsT"))
            out_shape = b.tensor(out_name + "/output_shape", (4,), np.int32)
            b.operator("CONCATENATION", [batch, b.int_const(list(a["out_hw"]) + [int(w.shape[2])],
                                                            out_name + "/hwc")], [out_shape],
                       b.opts("ConcatenationOptionsT", axis=0))
            conv = b.tensor(out_name + "/no_bias", g.shapes[out_name], np.float32)
            b.operator("TRANSPOSE_CONV", [out_shape, wt, x], [conv],
                       b.opts("TransposeConvOptionsT", padding=padding[a["padding"]], strideH=a["strides"][0],
                              strideW=a["strides"][1]))
            b.operator("ADD", [conv, inp(op.inputs[2])], [out()], b.opts("AddOptionsT"))
        elif t in ("max_pool", "avg_pool"):
            b.operator("MAX_POOL_2D" if t == "max_pool" else "AVERAGE_POOL_2D", [x], [out()],
                       b.opts("Pool2DOptionsT", padding=padding[a["padding"]], strideH=a["strides"][0],
                              strideW=a["strides"][1], filterHeight=a["ksize"][0], filterWidth=a["ksize"][1]))
        elif t == "matmul":
            w = b.const(g.consts[op.inputs[1]].T, op.inputs[1])
            b.operator("FULLY_CONNECTED", [x, w, inp(op.inputs[2])], [out()],
                       b.opts("FullyConnectedOptionsT", keepNumDims=True))
        elif t == "batch_matmul":
            b.operator("BATCH_MATMUL", [x, inp(op.inputs[1])], [out()],
                       b.opts("BatchMatMulOptionsT", adjY=bool(a.get("transpose_b"))))
        elif t in _BINARY:
            code, opt = _BINARY[t]
            b.operator(code, [x, inp(op.inputs[1])], [out()], b.opts(opt) if opt else None)
        elif t in _UNARY:
            b.operator(_UNARY[t], [x], [out()])
        elif t == "softmax":
            b.operator("SOFTMAX", [x], [out()], b.opts("SoftmaxOptionsT", beta=1.0))
        elif t == "gelu":
            b.operator("GELU", [x], [out()], b.opts("GeluOptionsT", approximate=bool(a["approximate"])))
        elif t == "leaky_relu":
            b.operator("LEAKY_RELU", [x], [out()], b.opts("LeakyReluOptionsT", alpha=float(a["alpha"])))
        elif t == "hard_sigmoid":  # Keras 3: clip(x / 6 + 0.5, 0, 1) == relu6(x + 3) / 6
            shape = g.shapes[out_name]
            plus3 = b.tensor(out_name + "/plus3", shape, np.float32)
            b.operator("ADD", [x, b.tensor(out_name + "/three", (), np.float32, np.float32(3))], [plus3],
                       b.opts("AddOptionsT"))
            r6 = b.tensor(out_name + "/relu6", shape, np.float32)
            b.operator("RELU6", [plus3], [r6])
            b.operator("MUL", [r6, b.tensor(out_name + "/sixth", (), np.float32, np.float32(1 / 6))], [out()],
                       b.opts("MulOptionsT"))
        elif t == "mean":
            b.operator("MEAN", [x, b.int_const(list(a["axes"]), out_name + "/axes")], [out()],
                       b.opts("ReducerOptionsT", keepDims=bool(a["keepdims"])))
        elif t == "reshape":
            b.operator("RESHAPE", [x, b.int_const(list(a["shape"]), out_name + "/shape")], [out()],
                       b.opts("ReshapeOptionsT", newShape=list(a["shape"])))
        elif t == "transpose":
            b.operator("TRANSPOSE", [x, b.int_const(list(a["perm"]), out_name + "/perm")], [out()],
                       b.opts("TransposeOptionsT"))
        elif t == "pad":
            b.operator("PAD", [x, b.int_const([list(p) for p in a["pads"]], out_name + "/paddings")], [out()],
                       b.opts("PadOptionsT"))
        elif t == "concat":
            b.operator("CONCATENATION", [inp(i) for i in op.inputs], [out()],
                       b.opts("ConcatenationOptionsT", axis=int(a["axis"])))
        elif t == "gather":
            b.operator("GATHER", [x, inp(op.inputs[1])], [out()], b.opts("GatherOptionsT", axis=0))
        elif t == "slice":
            b.operator("SLICE", [x, b.int_const(list(a["begin"]), out_name + "/begin"),
                                 b.int_const(list(a["size"]), out_name + "/size")], [out()],
                       b.opts("SliceOptionsT"))
        else:
            raise ValueError(f"TFLite writer: no lowering for op '{t}' (tensor {out_name})")

    sub = s.SubGraphT()
    sub.tensors, sub.name = b.tensors, "main"
    sub.inputs = [b.index[n] for n in g.inputs]
    sub.outputs = [b.index[n] for n in g.outputs]
    # DEQUANTIZE ops of float16 weights run first (they were appended where each weight was first used).
    sub.operators = [op for code, op in b.ops if code == "DEQUANTIZE"] + \
                    [op for code, op in b.ops if code != "DEQUANTIZE"]
    model = s.ModelT()
    model.version, model.description, model.subgraphs = 3, f"tfcore export of {g.name}", [sub]
    model.buffers = b.buffers
    model.operatorCodes = [None] * len(b.codes)
    for code, i in b.codes.items():
        oc = s.OperatorCodeT()
        builtin = getattr(s.BuiltinOperator, code)
        oc.builtinCode, oc.deprecatedBuiltinCode, oc.version = builtin, min(builtin, 127), 1
        model.operatorCodes[i] = oc
    sig = s.SignatureDefT()
    sig.signatureKey = "serving_default"
    sig.inputs = [_tensor_map(s, n, b.index[n]) for n in g.inputs]
    sig.outputs = [_tensor_map(s, f"output_{i}", b.index[n]) for i, n in enumerate(g.outputs)]
    sig.subgraphIndex = 0
    model.signatureDefs = [sig]
    fb = flatbuffers.Builder(1024)
    fb.Finish(model.Pack(fb), file_identifier=b"TFL3")
    return bytes(fb.Output())


def _tensor_map(s, name, index):
    m = s.TensorMapT()
    m.name, m.tensorIndex = name, index
    return m


def write_tflite(g, path, float16=False):
    data = to_tflite(g, float16=float16)
    with open(path, "wb") as f:
        f.write(data)
    return len(data)
