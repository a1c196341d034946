"""Build tfcore's Dockerfile on this machine, where no container registry is reachable.

``nvidia/cuda`` cannot be pulled here, so the test image starts from a Debian base made with
``debootstrap`` from Debian's package repositories (made once, cached under
``~/.cache/tfcore/docker-base/<key>/`` and imported as ``tfcore-test-base:<key>``). The Dockerfile the
test builds is derived from the real one by :func:`derive_test_dockerfile`, which swaps the ``FROM`` line
and nothing else (the Python installation step installs the distribution's ``python3`` and works on
Debian as on Ubuntu, so it stays as it is); ``test_dockerfile.py`` asserts that every other line is
identical. Builds and containers use ``--network host`` (the daemon has no bridge: see host_setup.sh).
The base image also carries this host's CA bundle as ``PIP_CERT`` (hosts behind a TLS-inspecting proxy),
so pip in the unchanged Dockerfile steps reaches PyPI.
"""

import hashlib
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DOCKERFILE = REPO / "Dockerfile"
HOST_SETUP = Path(__file__).with_name("host_setup.sh")

DEBIAN_SUITE = "bookworm"  # Python 3.11 (tfcore needs >= 3.11), g++ 12
DEBIAN_MIRROR = os.environ.get("TFCORE_DEBIAN_MIRROR", "http://deb.debian.org/debian")
BASE_RECIPE_VERSION = 1    # bump when the debootstrap recipe below changes
TEST_IMAGE = "tfcore-docker-test"


def constraints():
    """docker/constraints.txt as {package name: exact version}; AssertionError on a line not pinned with ==."""
    pins = {}
    for line in (REPO / "docker" / "constraints.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, _, version = line.partition("==")
            assert version, f"docker/constraints.txt: {line!r} is not pinned with =="
            pins[name.strip().lower()] = version.strip()
    return pins


def cache_dir():
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "tfcore" / "docker-base"


def base_key():
    """What the cached root file system depends on: suite, variant, mirror and this recipe's version."""
    text = f"{DEBIAN_SUITE}|minbase|{DEBIAN_MIRROR}|{BASE_RECIPE_VERSION}"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def host_ca_bundle():
    """The CA bundle this host's pip trusts (``PIP_CERT``, ``REQUESTS_CA_BUNDLE``, ``SSL_CERT_FILE``), or
    None. Hosts behind a TLS-inspecting proxy need it inside the build for pip to reach PyPI."""
    for var in ("PIP_CERT", "REQUESTS_CA_BUNDLE", "SSL_CERT_FILE"):
        path = os.environ.get(var)
        if path and Path(path).is_file():
            return Path(path)
    return None


def base_image():
    """``tfcore-test-base:<key>``: the Debian root file system plus this host's CA bundle (if any)."""
    ca = host_ca_bundle()
    ca_hash = hashlib.sha256(ca.read_bytes()).hexdigest()[:8] if ca else "noca"
    return f"tfcore-test-base:{base_key()}-{ca_hash}"


def docker(*args, check=True, timeout=900, env=None, capture=True, stdin=None):
    """Run the docker CLI (legacy builder: the daemon's BuildKit is not needed and ``--network host``
    is simplest there); returns the CompletedProcess, raising with its output when ``check`` fails."""
    full_env = {**os.environ, "DOCKER_BUILDKIT": "0", **(env or {})}
    proc = subprocess.run(["docker", *args], capture_output=capture, text=True, timeout=timeout, env=full_env,
                          stdin=stdin)
    if check and proc.returncode != 0:
        raise RuntimeError(f"docker {' '.join(args)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc


def prepare_host():
    """Install docker.io/debootstrap when missing and start dockerd when none answers (host_setup.sh)."""
    proc = subprocess.run(["bash", str(HOST_SETUP)], capture_output=True, text=True, timeout=900)
    if proc.returncode != 0:
        raise RuntimeError(f"{HOST_SETUP.name} failed:\n{proc.stdout}\n{proc.stderr}")
    return proc.stdout.strip()


def _rootfs_tarball(log):
    """The debootstrapped Debian root file system as a tarball, made once (about 30 s) and cached."""
    directory = cache_dir() / base_key()
    tarball = directory / "rootfs.tar"
    if tarball.exists():
        return tarball
    directory.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(dir=directory) as tmp:
        rootfs = Path(tmp) / "rootfs"
        proc = subprocess.run(["debootstrap", "--variant=minbase", DEBIAN_SUITE, str(rootfs), DEBIAN_MIRROR],
                              capture_output=True, text=True, timeout=1200)
        if proc.returncode != 0:
            raise RuntimeError(f"debootstrap failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
        partial = directory / "rootfs.tar.partial"
        subprocess.run(["tar", "-C", str(rootfs), "-cf", str(partial), "."], check=True, timeout=600)
        partial.rename(tarball)  # complete tarballs only: an interrupted run leaves no cache entry
    log(f"debootstrap {DEBIAN_SUITE}: {time.perf_counter() - t0:.0f} s -> {tarball}")
    return tarball


def ensure_base_image(log=print):
    """The Debian base image, made once: reuse the tagged image, else import the cached root file system
    (debootstrapping it first if needed) and add this host's CA bundle for pip. Returns the image name."""
    name = base_image()
    if docker("image", "inspect", name, check=False).returncode == 0:
        return name
    raw = f"tfcore-test-base-rootfs:{base_key()}"
    if docker("image", "inspect", raw, check=False).returncode != 0:
        with open(_rootfs_tarball(log), "rb") as f:
            docker("import", "-", raw, stdin=f, timeout=600)
    with tempfile.TemporaryDirectory() as tmp:
        lines = [f"FROM {raw}"]
        ca = host_ca_bundle()
        if ca is not None:
            shutil.copyfile(ca, Path(tmp) / "host-ca.pem")
            lines += ["COPY host-ca.pem /etc/ssl/tfcore-host-ca.pem", "ENV PIP_CERT=/etc/ssl/tfcore-host-ca.pem"]
        (Path(tmp) / "Dockerfile").write_text("\n".join(lines) + "\n")
        docker("build", "--network", "host", "-t", name, tmp)
    return name


def derive_test_dockerfile(text, base):
    """The real Dockerfile with its ``FROM`` line pointing at ``base``; every other line unchanged."""
    lines = text.splitlines(keepends=True)
    froms = [i for i, line in enumerate(lines) if line.split(maxsplit=1)[:1] == ["FROM"]]
    if len(froms) != 1:
        raise ValueError(f"expected one FROM line in the Dockerfile, found {len(froms)}")
    lines[froms[0]] = f"FROM {base}\n"
    return "".join(lines)


def build_test_image(base, tag=TEST_IMAGE, log=print):
    """Build the derived Dockerfile with the repository as context (its .dockerignore applies).
    Returns the build's seconds."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "Dockerfile"
        path.write_text(derive_test_dockerfile(DOCKERFILE.read_text(), base))
        t0 = time.perf_counter()
        docker("build", "--network", "host", "-f", str(path), "-t", tag, str(REPO), timeout=1500)
        seconds = time.perf_counter() - t0
    log(f"docker build: {seconds:.0f} s")
    return seconds


def run_in_image(*command, env=None, tag=TEST_IMAGE, timeout=600, home_volume=None):
    """``docker run --rm`` of ``command`` (none: the image's CMD) in the test image; CompletedProcess.
    ``home_volume``: a named volume mounted as the user's home, so that runs share its ~/.cache (kernels
    compiled by one run are loaded by the next)."""
    args = ["run", "--rm", "--network", "host"]
    if home_volume:
        args += ["-v", f"{home_volume}:/home/tfcore"]
    for k, v in (env or {}).items():
        args += ["-e", f"{k}={v}"]
    return docker(*args, tag, *command, check=False, timeout=timeout)


def have_docker_cli():
    return shutil.which("docker") is not None
