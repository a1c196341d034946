"""The op registry and the op-info table agree: every registered op has an entry (or a reasoned exemption),
every entry names a registered op and carries something the generic tests check."""

import tfcore as tf  # noqa: F401  (registers every op)
from tfcore.ops.registry import REGISTRY

from .core import OPS
from .exemptions import EXEMPT
from .table import _GRADIENTS  # noqa: F401  (fills OPS)


def _product_ops():
    """The registry's ops defined by tfcore: tests register throwaway ops of their own (kernels defined in a
    test module), which need no entry. ``CustomGradient`` is tfcore's only op without kernel candidates."""
    return sorted(name for name, op in REGISTRY.items() if name == "CustomGradient" or any(
        c.fn.__module__.startswith("tfcore.") for cands in op.candidates.values() for c in cands))


def test_every_registered_op_has_an_entry():
    assert len(_product_ops()) >= 250
    missing = [name for name in _product_ops() if name not in OPS and name not in EXEMPT]
    assert not missing, f"registered ops without an entry in tests/opinfo/table.py: {missing}"


def test_no_stale_entries_or_exemptions():
    assert not [n for n in OPS if n not in REGISTRY], "entries for ops that are not registered"
    assert not [n for n in EXEMPT if n not in REGISTRY], "exemptions for ops that are not registered"
    assert not EXEMPT & set(OPS), f"exempt ops with an entry: {sorted(EXEMPT & set(OPS))}"


def test_every_entry_is_checked_by_something():
    empty = [n for n, info in OPS.items() if not (info.samples or info.grad or info.ref)]
    assert not empty, f"entries with no sample, gradient case or reference: {empty}"


def test_every_differentiable_op_has_a_gradient_case():
    """A registered op with a gradient (other than TF's "no gradient" LookupError) needs a GradCase."""
    differentiable = [name for name in _product_ops() if REGISTRY[name].grad is not None
                      and not getattr(REGISTRY[name].grad, "raises_lookup_error", False)]
    missing = [n for n in differentiable if OPS.get(n) is None or OPS[n].grad is None]
    assert not missing, f"differentiable ops without a gradient case: {missing}"
    stale = [n for n, info in OPS.items() if info.grad is not None and REGISTRY[n].grad is None]
    assert not stale, f"gradient cases for ops registered without a gradient: {stale}"


def test_every_fusable_op_has_a_reference():
    """An op with a CUDA expression (fused by tf.function(jit_compile=True)) needs a float64 reference:
    test_references.py checks the expression against it on the emulated GPU."""
    missing = [n for n in _product_ops() if REGISTRY[n].cuda_expr is not None and (n not in OPS or OPS[n].ref is None)]
    assert not missing, f"ops with cuda_expr and no float64 reference: {missing}"
