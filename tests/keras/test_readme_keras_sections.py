"""The README's "Transformers and attention" and "Preprocessing layers and augmentation" programs run as
written (each in a fresh process, on the CPU) and print the accuracies they promise."""

import ast
import os
import pathlib
import re
import subprocess
import sys

import pytest

README = pathlib.Path(__file__).resolve().parents[2] / "README.md"


def section_program(heading):
    text = README.read_text()
    body = text.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    return re.search(r"```python\n(.*?)```", body, re.S).group(1)


def run(program):
    env = dict(os.environ, TFCORE_EMULATED_GPUS="0", CUDA_VISIBLE_DEVICES="")
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip().splitlines()


@pytest.mark.parametrize("heading,min_accuracy", [("Transformers and attention", 0.95),
                                                  ("Preprocessing layers and augmentation", 0.85)])
def test_readme_program_reaches_its_accuracy(heading, min_accuracy):
    lines = run(section_program(heading))
    loss, accuracy = ast.literal_eval(lines[0])
    assert accuracy >= min_accuracy, lines
    if heading.startswith("Transformers"):
        assert lines[1] == "[1 0]"
