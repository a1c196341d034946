# tfcore on an NVIDIA GPU: `docker build -t tfcore .` then `docker run --rm --gpus all tfcore`
# prints the kernel micro-benchmarks (`tfcore bench`; `docker run --rm tfcore tfcore bench --help`).
# The CUDA 12.6 runtime comes from the base image; NVRTC (kernel compilation at first use), NCCL and
# CuPy are pip wheels pinned in docker/constraints.txt to agree with it (NVRTC 12.6.x).
# tests/docker builds this file on a Debian base made with debootstrap: only the FROM line may differ.
FROM nvidia/cuda:12.6.3-runtime-ubuntu24.04

ENV DEBIAN_FRONTEND=noninteractive \
    PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

# Python: the distribution's python3 (3.12 on Ubuntu 24.04) in a virtual environment.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 python3-venv ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && python3 -m venv /opt/venv

# g++ builds the native CPU kernels (kernels/cpu_kernels.cc, -march=native, so on the machine that
# runs the image, at first use) and runs the CUDA kernels on the CPU emulator (TFCORE_EMULATED_GPUS).
RUN apt-get update \
 && apt-get install -y --no-install-recommends g++ \
 && rm -rf /var/lib/apt/lists/*

ENV PATH=/opt/venv/bin:$PATH

# The pinned dependencies first (their own layer: a source change does not download them again),
# then tfcore itself under the same constraints.
WORKDIR /opt/tfcore
COPY docker/constraints.txt ./docker/
RUN pip install --no-cache-dir -r docker/constraints.txt
COPY pyproject.toml README.md ./
COPY tfcore ./tfcore
COPY kernels ./kernels
COPY distribute ./distribute
# `python -I`: import the installed package, not ./tfcore (cwd), which lacks tfcore.distribute and tfcore.kernels.
RUN pip install --no-cache-dir -c docker/constraints.txt ".[cuda12]" \
 && python -I -c "import tfcore, tfcore.distribute, tfcore.kernels"

# Run as an unprivileged user (numeric, so a host can resolve it); kernel caches go to its ~/.cache/tfcore.
RUN useradd --create-home --uid 10001 --shell /bin/bash tfcore
USER 10001
WORKDIR /home/tfcore
CMD ["tfcore", "bench"]
