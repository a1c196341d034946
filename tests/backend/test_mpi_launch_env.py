"""``mpi.local_launch_env``: the environment ``mpirun`` gets for workers on this host.

On the H200 machines (no ssh in the image) Open MPI 4 aborted a one-host job with "plm_rsh_agent: ssh :
rsh ... could not be found" before starting any rank (docs/gpu-results/2026-11-27-h200.md).
"""

import os

from tfcore.backend import mpi


def _path_with(tmp_path, *programs):
    for name in programs:
        exe = tmp_path / name
        exe.write_text("#!/bin/sh\nexit 0\n")
        exe.chmod(0o755)
    return str(tmp_path)


def test_without_ssh_or_rsh_the_rsh_launcher_is_left_out(tmp_path):
    env = mpi.local_launch_env({"PATH": _path_with(tmp_path)})
    assert env["OMPI_MCA_plm"] == "^rsh"


def test_with_ssh_or_rsh_open_mpi_keeps_its_default(tmp_path):
    for agent in ("ssh", "rsh"):
        folder = tmp_path / agent
        folder.mkdir()
        assert "OMPI_MCA_plm" not in mpi.local_launch_env({"PATH": _path_with(folder, agent)})


def test_the_callers_settings_win(tmp_path):
    path = _path_with(tmp_path)
    assert mpi.local_launch_env({"PATH": path, "OMPI_MCA_plm": "isolated"})["OMPI_MCA_plm"] == "isolated"
    env = mpi.local_launch_env({"PATH": path, "OMPI_MCA_plm_rsh_agent": "/opt/bin/myssh"})
    assert "OMPI_MCA_plm" not in env and env["OMPI_MCA_plm_rsh_agent"] == "/opt/bin/myssh"


def test_root_is_allowed_only_as_root(tmp_path):
    env = mpi.local_launch_env({"PATH": _path_with(tmp_path, "ssh")})
    as_root = os.geteuid() == 0
    assert ("OMPI_ALLOW_RUN_AS_ROOT" in env) == as_root and ("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM" in env) == as_root


def test_the_default_is_this_process_environment_unchanged(monkeypatch):
    monkeypatch.setenv("TFCORE_LAUNCH_ENV_PROBE", "1")
    before = dict(os.environ)
    env = mpi.local_launch_env()
    assert env["TFCORE_LAUNCH_ENV_PROBE"] == "1" and dict(os.environ) == before
