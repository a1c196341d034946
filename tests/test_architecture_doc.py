"""docs/architecture.md stays true: every repository path it names in backquotes exists."""

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"


def test_readme_points_at_the_architecture_document():
    assert "docs/architecture.md" in (ROOT / "README.md").read_text()
    assert "shared folder" not in (ROOT / "README.md").read_text()


def test_every_path_the_architecture_document_names_exists():
    text = DOC.read_text()
    paths = set(re.findall(r"`((?:tfcore|kernels|distribute|tests|docs)/[\w./]*)`", text))
    assert len(paths) >= 15
    missing = sorted(p for p in paths if not (ROOT / p).exists())
    assert not missing, f"docs/architecture.md names paths that do not exist: {missing}"


def test_the_named_classes_and_functions_exist():
    from tfcore.backend import cpu, cuda
    from tfcore.backend.kernel_library import CupyKernelLibrary, EmulatorKernelLibrary  # noqa: F401
    from tfcore.framework import context
    from tfcore.ops import registry

    assert hasattr(registry, "execute") and hasattr(registry, "Op")
    assert hasattr(cpu, "CPUBackend") and hasattr(cuda, "CudaBackend")
    assert hasattr(context.context, "ensure_initialized") and hasattr(context, "Device")


def _cited_sections():
    """``(file, section)`` for each ``docs/architecture.md §N`` citation in the sources."""
    cites = []
    for folder in ("tfcore", "kernels", "distribute", "tests", "bench"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix in (".py", ".cu", ".cuh", ".cc"):
                for m in re.finditer(r"architecture\.md ((?:§\d+(?:, )?)+)", path.read_text()):
                    cites += [(path.relative_to(ROOT), n) for n in re.findall(r"§(\d+)", m.group(1))]
    return cites


def test_sources_cite_design_decisions_that_exist():
    """Modules cite the design decisions of docs/architecture.md by number; each cited § exists, and no
    source cites a design file that is not in the repository."""
    sections = set(re.findall(r"^### §(\d+) ", DOC.read_text(), flags=re.M))
    cites = _cited_sections()
    assert len(cites) >= 20
    missing = sorted({f"{f}: §{n}" for f, n in cites if n not in sections})
    assert not missing, f"citations of design decisions docs/architecture.md does not have: {missing}"
    stale = sorted(str(p.relative_to(ROOT)) for folder in ("tfcore", "kernels", "distribute", "bench")
                   for p in (ROOT / folder).rglob("*") if p.suffix in (".py", ".cu")
                   and "DESIGN.md" in p.read_text())
    assert not stale, f"sources citing DESIGN.md, which is not in the repository: {stale}"
