"""Coverage of TensorFlow 2.21's public names by tfcore, per namespace.

The reference is a JSON file mapping a namespace (``""`` for top-level ``tf``,
``"keras.layers"``, ``"data.Dataset"`` ...) to the names ``dir()`` shows there in
TF 2.21 (default: ``tests/api/tf_api_names.json``, a copy of the team's list).
A name counts as present when ``tfcore.<namespace>.<name>`` resolves; the test
``tests/api/test_api_coverage.py`` makes sure no counted name is a stub.

Run ``python bench/api_coverage.py [--names FILE] [--missing NAMESPACE ...] [--write-present]``.
"""

import argparse
import ast
import inspect
import json
import os
import sys
import textwrap

_API_TESTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "tests", "api")
DEFAULT_NAMES = os.path.join(_API_TESTS, "tf_api_names.json")
PRESENT = os.path.join(_API_TESTS, "present_names.txt")


def resolve(root, namespace):
    """The object ``root.<namespace>`` (``None`` when any part is missing)."""
    obj = root
    for part in filter(None, namespace.split(".")):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def only_raises_not_implemented(fn):
    """True when ``fn``'s body (docstring aside) is a single ``raise NotImplementedError``."""
    try:
        source = textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError):
        return False
    tree = ast.parse(source)
    node = tree.body[0] if tree.body else None
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    body = [s for s in node.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if len(body) != 1 or not isinstance(body[0], ast.Raise) or body[0].exc is None:
        return False
    exc = body[0].exc.func if isinstance(body[0].exc, ast.Call) else body[0].exc
    return isinstance(exc, ast.Name) and exc.id == "NotImplementedError"


def is_stub(obj):
    """A function that only raises ``NotImplementedError``, or a class whose constructor does (or whose
    ``__call__`` does, for a class nothing derives from: abstract bases keep their abstract methods)."""
    if inspect.isclass(obj):
        methods = ["__init__", "__new__"] + ([] if obj.__subclasses__() else ["__call__"])
        return any(only_raises_not_implemented(obj.__dict__[m]) for m in methods if m in obj.__dict__)
    if inspect.isfunction(obj) or inspect.ismethod(obj):
        return only_raises_not_implemented(obj)
    return False


def coverage(root, names):
    """``{namespace: (present_names, missing_names)}`` for the reference ``names``; a name that resolves
    to a stub (:func:`is_stub`) counts as missing."""
    out = {}
    for namespace, wanted in names.items():
        obj = resolve(root, namespace)
        present = [n for n in wanted if obj is not None and hasattr(obj, n) and not is_stub(getattr(obj, n))]
        missing = [n for n in wanted if n not in set(present)]
        out[namespace] = (present, missing)
    return out


def load_names(path=DEFAULT_NAMES):
    with open(path) as f:
        return json.load(f)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--names", default=DEFAULT_NAMES, help="JSON {namespace: [names]} (TF's public names)")
    parser.add_argument("--missing", nargs="*", default=(), metavar="NAMESPACE",
                        help="also list the missing names of these namespaces ('tf' for the top level)")
    parser.add_argument("--write-present", action="store_true",
                        help=f"rewrite {os.path.relpath(PRESENT)} (the snapshot the coverage test checks)")
    args = parser.parse_args(argv)
    import tfcore

    table = coverage(tfcore, load_names(args.names))
    total_have = total = 0
    print(f"{'namespace':<24}{'present':>9}{'total':>7}{'coverage':>10}")
    for namespace, (present, missing) in table.items():
        n = len(present) + len(missing)
        total_have += len(present)
        total += n
        label = f"tf.{namespace}" if namespace else "tf"
        print(f"{label:<24}{len(present):>9}{n:>7}{100.0 * len(present) / max(n, 1):>9.1f}%")
    print(f"{'ALL':<24}{total_have:>9}{total:>7}{100.0 * total_have / max(total, 1):>9.1f}%")
    for wanted in args.missing:
        namespace = "" if wanted == "tf" else wanted.removeprefix("tf.")
        if namespace in table:
            print(f"\nmissing in {wanted}: {', '.join(table[namespace][1])}")
    if args.write_present:
        with open(PRESENT, "w") as f:
            f.write("# namespace:name of every name bench/api_coverage.py counts as present (--write-present)\n")
            for namespace, (present, _) in table.items():
                f.writelines(f"{namespace}:{n}\n" for n in present)
    return 0


if __name__ == "__main__":
    sys.exit(main())
