"""Build the Docker image and run tfcore inside it (opt-in: ``TFCORE_DOCKER_TESTS=1``; .ci/run runs it once).

The image is the real Dockerfile with only its FROM line swapped for a Debian base made with debootstrap
(docker_image.py): no container registry is reachable here, so the CUDA base image itself and
``docker run --gpus all`` are not exercised. In the container: ``tfcore info`` (the native CPU kernels
build with the image's g++; an emulated GPU shows), ``tfcore selftest`` on an emulated GPU, and short
``tfcore bench`` runs whose table and JSON are checked. A cold run (debootstrap, base import, build with
the CUDA wheels downloaded) takes a few minutes; later runs reuse the cached base and layers.
"""

import json
import os

import pytest

if os.environ.get("TFCORE_DOCKER_TESTS") != "1":
    pytest.skip("Docker image build and run: opt-in with TFCORE_DOCKER_TESTS=1 (root; .ci/run runs it)",
                allow_module_level=True)

import docker_image  # noqa: E402

from tfcore.benchmarks.kernel_bench import FAMILIES  # noqa: E402 - the image runs this tree's families

HOME_VOLUME = f"tfcore-docker-test-home-{os.getpid()}"


@pytest.fixture(scope="module")
def image():
    print(docker_image.prepare_host())
    base = docker_image.ensure_base_image()
    docker_image.build_test_image(base)
    # The runs share one home (a fresh volume: the first run compiles the kernels, later ones load them).
    docker_image.docker("volume", "create", HOME_VOLUME)
    yield docker_image.TEST_IMAGE
    docker_image.docker("volume", "rm", "-f", HOME_VOLUME, check=False)


def _run(*command, env=None, timeout=600):
    proc = docker_image.run_in_image(*command, env=env, timeout=timeout, home_volume=HOME_VOLUME)
    return proc.returncode, proc.stdout + proc.stderr


def test_runs_as_the_unprivileged_user(image):
    rc, out = _run("id", "-u")
    assert rc == 0 and out.strip() == "10001", out


def test_info_reports_native_kernels_and_the_pinned_cuda_wheels(image):
    rc, out = _run("tfcore", "info")
    assert rc == 0, out
    assert out.startswith("tfcore "), out
    assert "Native CPU kernels: built" in out, out
    pins = docker_image.constraints()  # the pinned CUDA wheels are the ones tfcore finds
    nvrtc = ".".join(pins["nvidia-cuda-nvrtc-cu12"].split(".")[:2])
    assert f"CuPy: {pins['cupy-cuda12x']}" in out and f"NVRTC: {nvrtc} " in out, out
    assert f"NCCL: {pins['nvidia-nccl-cu12']}" in out and "GPU found: no" in out, out


def test_info_shows_an_emulated_gpu(image):
    rc, out = _run("tfcore", "info", env={"TFCORE_EMULATED_GPUS": "1"})
    assert rc == 0, out
    assert "GPU found: yes" in out and "emulated" in out, out


def test_selftest_on_an_emulated_gpu(image):
    rc, out = _run("tfcore", "selftest", env={"TFCORE_EMULATED_GPUS": "1"}, timeout=900)
    assert rc == 0, out
    for family in FAMILIES:
        assert family in out, f"selftest output does not mention {family}:\n{out}"


def test_default_command_is_tfcore_bench(image):
    proc = docker_image.docker("image", "inspect", "--format", "{{json .Config.Cmd}}", image)
    assert json.loads(proc.stdout) == ["tfcore", "bench"]
    rc, out = _run("tfcore", "bench", "--help")
    assert rc == 0, out
    for option in ("--shapes", "--dtype", "--repeat", "--json", "matmul", "softmax"):
        assert option in out, f"`tfcore bench --help` does not show {option}:\n{out}"
    proc = docker_image.run_in_image(home_volume=HOME_VOLUME)  # no command: the image's CMD
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for family in FAMILIES:
        assert f"\n{family} " in proc.stdout, f"the default command printed no {family} row:\n{proc.stdout}"


def test_bench_on_the_cpu_prints_every_family_and_valid_json(image):
    rc, out = _run("sh", "-c", "tfcore bench --repeat 3 --json /tmp/bench.json && cat /tmp/bench.json")
    assert rc == 0, out
    table, _, text = out.partition("\n{")
    print(table)  # the table from inside the image, for the CI log
    assert "tfcore kernel benchmarks on CPU" in table and "FAILED" not in table, table
    report = json.loads("{" + text)
    assert {r["family"] for r in report["rows"]} == set(FAMILIES)
    for row in report["rows"]:
        assert row["ours"]["median_ms"] > 0 and row["ours"]["repeats"] == 3, row
        assert row["vendor"]["median_ms"] > 0 and row["vendor"]["name"], row


def test_bench_on_an_emulated_gpu_runs_our_cuda_kernels(image):
    proc = docker_image.run_in_image("tfcore", "bench", "matmul", "--shapes", "32x32x32", "--repeat", "2", "--json",
                                     env={"TFCORE_EMULATED_GPUS": "1"}, home_volume=HOME_VOLUME)
    print(proc.stderr)  # the table (the JSON is on standard output)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "tfcore kernel benchmarks on GPU:0 emulated" in proc.stderr
    report = json.loads(proc.stdout)
    assert report["kind"] == "emulated" and "emulated" in report["device"]
    (row,) = report["rows"]
    assert row["shape"] == "32x32@32x32" and row["dtype"] == "float32" and row["unit"] == "GFLOP/s", row
