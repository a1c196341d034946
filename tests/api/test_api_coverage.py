"""The names ``bench/api_coverage.py`` counts as present are real.

- every name in ``present_names.txt`` (the snapshot the coverage numbers came from,
  regenerated with ``python bench/api_coverage.py --write-present``) still resolves:
  removing or renaming a counted name fails here;
- no counted function, and no counted class's constructor, is a stub whose body only
  raises ``NotImplementedError`` (the script does not count those);
- in the namespaces listed in ``TESTED_NAMESPACES`` every counted name is used by some
  test module (its name appears in the test sources), so each is backed by a test.
"""

import importlib.util
import os

import pytest

import tfcore

HERE = os.path.dirname(__file__)
TESTS = os.path.dirname(HERE)
_spec = importlib.util.spec_from_file_location(
    "api_coverage", os.path.join(TESTS, os.pardir, "bench", "api_coverage.py"))
api_coverage = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(api_coverage)

TESTED_NAMESPACES = ("keras.losses", "keras.metrics", "keras.optimizers", "linalg", "image", "sparse", "strings", "io",
                     "dtypes", "config", "config.experimental", "keras.applications", "keras.utils")


def _snapshot():
    with open(os.path.join(HERE, "present_names.txt")) as f:
        return [line.strip() for line in f if line.strip() and not line.startswith("#")]


def _table():
    return api_coverage.coverage(tfcore, api_coverage.load_names())


def test_every_counted_name_still_resolves():
    table = _table()
    have = {(ns, n) for ns, (present, _) in table.items() for n in present}
    lost = []
    for entry in _snapshot():
        ns, _, name = entry.rpartition(":")
        if (ns, name) not in have:
            lost.append(f"tf.{ns}.{name}" if ns else f"tf.{name}")
    assert not lost, f"names counted as present by the coverage snapshot are gone: {lost}"


def test_snapshot_is_current():
    """The snapshot lists every present name (regenerate it when coverage grows)."""
    table = _table()
    current = {f"{ns}:{n}" for ns, (present, _) in table.items() for n in present}
    assert current >= set(_snapshot())
    assert len(current) >= len(_snapshot())


def test_no_counted_name_is_a_stub():
    """The snapshot's names are not stubs today (the coverage count skips stubs, so one that became a stub
    also fails ``test_every_counted_name_still_resolves``)."""
    stubs = []
    for entry in _snapshot():
        ns, _, name = entry.rpartition(":")
        obj = getattr(api_coverage.resolve(tfcore, ns), name, None)
        if obj is not None and api_coverage.is_stub(obj):
            stubs.append(entry)
    assert not stubs, f"counted names that only raise NotImplementedError: {stubs}"


def test_stub_detection():
    def stub(x):
        """Doc."""
        raise NotImplementedError("later")

    class Stubby:
        def __init__(self):
            raise NotImplementedError

    def real(x):
        if x:
            raise NotImplementedError
        return x

    assert api_coverage.is_stub(stub) and api_coverage.is_stub(Stubby)
    assert not api_coverage.is_stub(real) and not api_coverage.is_stub(tfcore.keras.layers.Dense)


def _test_sources():
    chunks = []
    for root, _, files in os.walk(TESTS):
        for f in files:
            if f.endswith(".py") and f != os.path.basename(__file__):
                with open(os.path.join(root, f)) as fh:
                    chunks.append(fh.read())
    return "\n".join(chunks)


@pytest.mark.parametrize("namespace", TESTED_NAMESPACES)
def test_counted_names_are_used_by_tests(namespace):
    sources = _test_sources()
    present, _ = _table()[namespace]
    unused = [n for n in present if n not in sources]
    assert not unused, f"tf.{namespace}: counted names no test uses: {unused}"


def test_coverage_script_prints_every_namespace(capsys):
    assert api_coverage.main([]) == 0
    out = capsys.readouterr().out
    assert "tf.keras.layers" in out and "ALL" in out
