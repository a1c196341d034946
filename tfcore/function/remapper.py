"""Pattern fusions on a traced graph's steps, as TF's grappler remapper does before a graph runs.

One pattern so far: ``ReluGrad(MaxPoolGrad(x, y, dy), x)`` -> ``_FusedMaxPoolGrad(x, y, dy)``, the gradient
of ``MaxPool(Relu(...))`` (or of a ReLU-fused convolution followed by max pooling: Keras'
``Conv2D(activation="relu")`` + ``MaxPooling2D``). The fused op masks each window's gradient with its pooled
value's sign instead of running ReluGrad over the whole input: one pass over the input-sized tensors fewer
per pooling layer in every training step. It fires only where the values are the same to the bit (disjoint
windows; see ``ops/pool_ops.py``), where the MaxPoolGrad result feeds nothing else, and where ReluGrad's
features are MaxPoolGrad's own input ``x`` (the ReLU's output that the pool read).
"""

from ..ops import nn_ops, pool_ops
from .func_graph import Node


def _max_pool_relu_grad(node, producer, uses, outputs):
    """The fused node replacing ``node`` (a ReluGrad) and its MaxPoolGrad input, or None."""
    g, features = node.inputs
    pool_grad = producer.get(g)
    if (pool_grad is None or pool_grad.kind != "op" or pool_grad.op is not pool_ops.MAX_POOL_GRAD
            or pool_grad.inputs[0] != features or uses.get(g, 0) != 1 or g in outputs or pool_grad.res_out
            or not pool_ops._disjoint(**pool_grad.attrs)):
        return None
    attrs = {**pool_grad.attrs, "fused_ops": pool_ops.FUSED_MAX_POOL_GRAD_OPS}
    return Node("op", pool_ops.FUSED_MAX_POOL_GRAD, list(pool_grad.inputs), list(node.outputs), attrs,
                name=node.name, device=node.device, res_in=pool_grad.res_in)


def remap(nodes, outputs):
    """``(nodes, count)``: the pruned plan's nodes with the patterns above fused (in program order: a fused
    node takes the place of the first of its nodes), and how many fusions were made."""
    producer, uses = {}, {}
    for n in nodes:
        for s in n.inputs:
            uses[s] = uses.get(s, 0) + 1
        if n.kind == "op":
            for s in n.outputs:
                producer[s] = n
    outputs = set(outputs)
    replaced = {}  # id(MaxPoolGrad node) -> fused node
    dropped = set()  # ids of the ReluGrad nodes folded away
    for n in nodes:
        if n.kind == "op" and n.op is nn_ops.RELU_GRAD and len(n.inputs) == 2:
            fused = _max_pool_relu_grad(n, producer, uses, outputs)
            if fused is not None:
                replaced[id(producer[n.inputs[0]])] = fused
                dropped.add(id(n))
    if not replaced:
        return nodes, 0
    return [replaced.get(id(n), n) for n in nodes if id(n) not in dropped], len(replaced)
