"""TF's public names that are Python builtins (``tf.tuple``, ``tf.range``, ``tf.abs``, ...) shadow the builtin
in the module that defines them: a call there means TF's op, never Python's.

Found on an H200 (docs/gpu-results/2026-11-27-h200.md): ``tuple(cols)`` in ``ops/misc_ops.py`` meant
Python's tuple but called ``tf.tuple``, which turned the CuPy index columns of TensorScatterMax into
tensors through NumPy; NumPy and the emulator accepted that, CuPy refuses it. Every such call in the
package is listed here, each one checked to mean TF's op; a new one fails until it is looked at.
"""

import ast
import builtins
import pathlib

import tfcore

PACKAGE = pathlib.Path(tfcore.__file__).parent

# (module path under tfcore/, name): the calls that mean TF's op (checked by reading each one).
MEANT_AS_TF_OP = {
    ("ops/spectral_ops.py", "complex"),        # tf.complex in the gradients of real/imag/abs and the FFTs
    ("ops/array_creation_ops.py", "range"),    # tf.range in sequence_mask
    ("ops/sparse_reshape_ops.py", "slice"),    # tf.sparse.slice in tf.sparse.split
    ("ops/math_ops.py", "pow"),                # tf.pow in its gradient, rsqrt's gradient and Tensor.__pow__
    ("ops/math_ops.py", "abs"),                # tf.abs in softsign's gradient
}


def _shadowing_calls():
    found = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        shadowed = {n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.ClassDef)
                    and hasattr(builtins, n.name)}
        if not shadowed:
            continue
        rel = path.relative_to(PACKAGE).as_posix()
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in shadowed:
                found.add((rel, node.func.id))
    return found


def test_every_call_of_a_shadowed_builtin_means_tfs_op():
    unexpected = sorted(_shadowing_calls() - MEANT_AS_TF_OP)
    assert not unexpected, (f"calls of a builtin's name in the module that defines TF's op of that name: "
                            f"{unexpected}; use builtins.<name> for Python's, or list the call above")

