"""Every ```python block of README.md runs as written, or is marked as a fragment.

The convention (README "Testing"): a block is a complete program (imports included) run here in a
fresh process, unless the line before its fence is ``<!-- fragment -->``. ``<!-- run: NAME=value -->``
before a block sets environment variables for its run; such a GPU recipe is also run without them
and must then exit cleanly (a message, no traceback) instead of failing with an IndexError.
Blocks that are verbatim copies of ``examples/*.py`` are run by tests/distribute/test_examples.py.
"""

import os
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
FRAGMENT = "<!-- fragment -->"
_RUN_RE = re.compile(r"<!--\s*run:\s*(.*?)\s*-->")


def readme_blocks():
    """``[(line, code, marker)]`` for each ```python block; ``marker`` is the comment line before it."""
    lines = (ROOT / "README.md").read_text().splitlines()
    blocks, i = [], 0
    while i < len(lines):
        if lines[i].strip() == "```python":
            start = i
            j = i + 1
            while j < len(lines) and lines[j].strip() != "```":
                j += 1
            marker = lines[start - 1].strip() if start and lines[start - 1].strip().startswith("<!--") else None
            blocks.append((start + 1, "\n".join(lines[start + 1:j]) + "\n", marker))
            i = j
        i += 1
    return blocks


def _example_bodies():
    return [p.read_text().split('"""', 2)[2].strip() for p in sorted((ROOT / "examples").glob("*.py"))]


def _env_of(marker):
    m = _RUN_RE.fullmatch(marker or "")
    return dict(item.split("=", 1) for item in m.group(1).split()) if m else {}


BLOCKS = readme_blocks()
PROGRAMS = [b for b in BLOCKS if b[2] != FRAGMENT and b[1].strip() not in _example_bodies()]


def _run(code, tmp_path, extra_env):
    """Run ``code`` as a script file, as a reader would (``inspect.getsource`` needs one: AutoGraph)."""
    env = {**os.environ, "TFCORE_EMULATED_GPUS": "0", **extra_env}
    script = tmp_path / "readme_block.py"
    script.write_text(code)
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, env=env,
                          cwd=tmp_path)


def test_readme_has_blocks_and_every_marker_is_known():
    assert len(BLOCKS) >= 5
    for line, _, marker in BLOCKS:
        assert marker in (None, FRAGMENT) or _RUN_RE.fullmatch(marker), f"README line {line}: unknown marker {marker}"


@pytest.mark.parametrize("line, code, marker", PROGRAMS, ids=[f"line{b[0]}" for b in PROGRAMS])
def test_readme_block_is_a_complete_program(line, code, marker, tmp_path):
    assert re.search(r"^import |^from ", code, re.M), f"README line {line}: no imports (mark it {FRAGMENT})"
    proc = _run(code, tmp_path, _env_of(marker))
    assert proc.returncode == 0, f"README block at line {line} failed:\n{proc.stdout[-1500:]}\n{proc.stderr[-3000:]}"
    if _env_of(marker).get("TFCORE_EMULATED_GPUS"):
        bare = _run(code, tmp_path, {})  # without a GPU: a clear message, never a traceback
        assert "Traceback" not in bare.stderr, f"README block at line {line} without a GPU:\n{bare.stderr[-3000:]}"
        assert bare.returncode == 0 or "GPU" in bare.stderr


def test_the_readme_block_detector_sees_fragments_and_run_markers():
    markers = [b[2] for b in BLOCKS]
    assert FRAGMENT in markers and any(_RUN_RE.fullmatch(m or "") for m in markers)


def readme_headings(text):
    """The ``## `` section headings of ``text``, outside code blocks, in order."""
    headings, in_code = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            in_code = not in_code
        elif not in_code and line.startswith("## "):
            headings.append(line[3:].strip())
    return headings


def github_anchor(heading):
    """GitHub's anchor for a heading: lower case, punctuation but ``-`` and ``_`` dropped, spaces to ``-``."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def contents_block(headings):
    return "\n".join(f"- [{h.replace('`', '')}](#{github_anchor(h)})" for h in headings)


def test_readme_contents_lists_every_section_in_order():
    """The table of contents after the two commands lists every ``## `` section, in order, with working
    anchors. On failure the expected list is printed: paste it under "Contents"."""
    text = (ROOT / "README.md").read_text()
    want = contents_block([h for h in readme_headings(text) if h != "Contents"])
    m = re.search(r"^## Contents\n\n(.*?)\n\n", text, flags=re.M | re.S)
    assert m, "README.md has no '## Contents' section"
    assert m.group(1) == want, "README.md's contents are out of date; they should be:\n" + want
    assert text.index("## Contents") < text.index("## " + readme_headings(text)[1])


def test_github_anchor_follows_githubs_rule():
    assert github_anchor("Devices and memory (tf.config)") == "devices-and-memory-tfconfig"
    assert github_anchor("Running unchanged TensorFlow programs (`import tensorflow as tf`)") == \
        "running-unchanged-tensorflow-programs-import-tensorflow-as-tf"
