"""Planted bugs in a copy of kernels/, keyed to markers in the source rather than to its exact text.

A statement a mutation test removes carries a marker comment on its line in kernels/*.cu / *.cuh::

    __syncthreads();  // scratch may be reused right away (mutant: rd-block-scratch-reuse)

:func:`mutant_dir` copies the kernel sources and blanks the code of each named marker's line (the
comment stays), so the real source may change around a marker (comments, neighbouring code, its own
wording) without breaking the test that plants the bug; a marker that disappears or appears twice fails
with a message saying so. The markers are plain comments: NVRTC and the kernels' numbers do not see them.
"""

import re
import shutil
from pathlib import Path

from tfcore.backend.kernel_library import kernels_dir

MARKER = re.compile(r"\(mutant: ([a-z0-9-]+)\)")


def marker_sites(src=None):
    """{marker name: [(file name, 0-based line index), ...]} over the kernel sources in ``src``."""
    src = Path(src or kernels_dir())
    sites = {}
    for p in sorted(src.iterdir()):
        if p.suffix not in (".cu", ".cuh"):
            continue
        for i, line in enumerate(p.read_text().splitlines()):
            for name in MARKER.findall(line):
                sites.setdefault(name, []).append((p.name, i))
    return sites


def mutant_dir(dest, names):
    """Copy kernels/*.cu, *.cuh into ``dest`` and remove the statement at each marker of ``names``."""
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    for p in kernels_dir().iterdir():
        if p.suffix in (".cu", ".cuh"):
            shutil.copy(p, dest / p.name)
    sites = marker_sites(dest)
    for name in names:
        where = sites.get(name, [])
        assert len(where) == 1, (f"mutation marker '(mutant: {name})' found {len(where)} times in kernels/ "
                                 f"(want exactly once, on the line of the statement the test removes): {where}")
        fname, index = where[0]
        path = dest / fname
        lines = path.read_text().split("\n")
        line = lines[index]
        code, sep, comment = line.partition("//")
        assert code.strip(), f"marker {name} in {fname}:{index + 1} is on a line without code: {line!r}"
        lines[index] = code[: len(code) - len(code.lstrip())] + "// MUTATED: " + code.strip() + " " + sep + comment
        path.write_text("\n".join(lines))
    return dest
