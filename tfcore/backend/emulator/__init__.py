"""Runs kernels/*.cu on the CPU: g++ with a CUDA shim header (docs/architecture.md §4)."""
