"""``tfcore info``: versions, physical and logical devices, CuPy/GPU/NCCL availability."""

import re

from tfcore import cli


def test_info_prints_versions_devices_and_gpu_stack(capsys):
    assert cli.main(["info"]) in (0, None)
    out = capsys.readouterr().out
    assert re.search(r"^tfcore \S+ +\(Python 3\.\d+\.\d+, NumPy \d+\.\d+", out, re.M)
    assert re.search(r"^CuPy: ", out, re.M) and re.search(r"^NCCL: ", out, re.M)
    assert re.search(r"^GPU found: (yes|no)", out, re.M)
    assert "/physical_device:CPU:0" in out[out.index("Physical devices:"):]
    assert "/job:localhost/replica:0/task:0/device:CPU:0" in out[out.index("Logical devices:"):]


def test_info_says_which_cuda_runtime_nvrtc_and_nccl_it_found(capsys):
    from tfcore.backend import cuda_stack

    cli.main(["info"])
    out = capsys.readouterr().out
    runtime = cuda_stack.cuda_runtime()
    if runtime is None:
        assert re.search(r"^CUDA runtime: not available \(no CuPy", out, re.M)
    else:
        assert re.search(rf"^CUDA runtime: {re.escape(runtime['runtime'])} \(CuPy's\), driver ", out, re.M)
    compiler = cuda_stack.nvrtc()
    if compiler is not None:  # the test extra installs NVRTC: its version and where it came from
        assert re.search(rf"^NVRTC: {re.escape(compiler['version'])} \(", out, re.M)
    assert re.search(r"^NCCL: (\d+\.\d+\.\d+|not available)", out, re.M)


def test_nvrtc_from_the_wheel_matching_cupys_cuda_comes_first(tmp_path, monkeypatch):
    from tfcore.backend import nvrtc

    for sub in ("cuda_nvrtc/lib/libnvrtc.so.12", "cu13/lib/libnvrtc.so.13", "cu13/lib/libnvrtc-builtins.so.13.0"):
        (tmp_path / sub).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / sub).write_bytes(b"")
    monkeypatch.setattr(nvrtc, "_nvidia_dirs", lambda: [str(tmp_path)])
    names = lambda major: [p[len(str(tmp_path)) + 1:] for p in nvrtc.wheel_library_candidates(major)]  # noqa: E731
    assert names(13) == ["cu13/lib/libnvrtc.so.13", "cuda_nvrtc/lib/libnvrtc.so.12"]
    assert names(12) == ["cuda_nvrtc/lib/libnvrtc.so.12", "cu13/lib/libnvrtc.so.13"]


def test_cuda12_and_cuda13_extras():
    import pathlib
    import tomllib

    project = tomllib.loads((pathlib.Path(__file__).parents[2] / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    assert {"cupy-cuda12x>=13", "nvidia-nccl-cu12", "nvidia-cuda-nvrtc-cu12"} <= set(extras["cuda12"])
    assert {"cupy-cuda13x>=13.6", "nvidia-nccl-cu13", "nvidia-cuda-nvrtc>=13,<14"} <= set(extras["cuda13"])
    # CPU machines compile and check the kernels with NVRTC alone (bound with ctypes): no CuPy in `test`
    assert not [d for d in extras["test"] if d.startswith("cupy")]
    assert "nvidia-cuda-nvrtc-cu12" in extras["test"] and "nvidia-cuda-nvcc-cu12" in extras["test"]
