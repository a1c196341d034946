"""Results of ``tfcore selftest``: one :class:`Check` per line of the table, the table, the JSON document.

A check is ``PASS``, ``FAIL`` or ``SKIP`` (with the reason); timing rows are ``TIME`` and never fail.
The command exits non-zero when any check is ``FAIL``.
"""

import dataclasses
import json
import time

PASS, FAIL, SKIP, TIME = "PASS", "FAIL", "SKIP", "TIME"


@dataclasses.dataclass
class Check:
    section: str
    name: str
    status: str
    detail: str = ""
    seconds: float = 0.0
    max_error: float | None = None  # largest |got - want| / tolerance (<= 1 passes), when compared
    data: dict = dataclasses.field(default_factory=dict)  # extra figures for the JSON (timings, versions)


class Recorder:
    """Collects checks in order; :meth:`run` times one check function and turns an exception into FAIL."""

    def __init__(self, out=None):
        self.checks = []
        self.out = out  # a callable printing progress lines (stderr), or None

    def add(self, check):
        self.checks.append(check)
        if self.out is not None:
            self.out(f"  {check.status:<4} {check.section}: {check.name}  {check.detail}")
        return check

    def run(self, section, name, fn, *args, **kwargs):
        """``fn(*args, **kwargs)`` returns ``(status, detail)`` or ``(status, detail, max_error)`` or a Check
        field dict; any exception is a FAIL naming it."""
        t0 = time.perf_counter()
        try:
            result = fn(*args, **kwargs)
        except Exception as e:  # noqa: BLE001 - a failing check must not stop the others
            msg = f"{type(e).__name__}: {e}".replace("\n", " ")
            return self.add(Check(section, name, FAIL, msg[:300], time.perf_counter() - t0))
        if isinstance(result, dict):
            return self.add(Check(section, name, seconds=time.perf_counter() - t0, **result))
        status, detail, *rest = result
        return self.add(Check(section, name, status, detail, time.perf_counter() - t0, rest[0] if rest else None))

    def counts(self):
        c = {PASS: 0, FAIL: 0, SKIP: 0, TIME: 0}
        for ch in self.checks:
            c[ch.status] += 1
        return c


def format_table(title, checks, total_seconds):
    """One table: section, check, result, detail, seconds; then a summary line."""
    head = f"{'section':<9} {'check':<46} {'result':<6} {'seconds':>7}  detail"
    lines = [title, head, "-" * len(head)]
    for c in checks:
        lines.append(f"{c.section:<9} {c.name[:46]:<46} {c.status:<6} {c.seconds:>7.2f}  {c.detail}")
    n = {s: sum(1 for c in checks if c.status == s) for s in (PASS, FAIL, SKIP, TIME)}
    lines.append("-" * len(head))
    lines.append(f"{n[PASS]} passed, {n[FAIL]} failed, {n[SKIP]} skipped, {n[TIME]} timings in {total_seconds:.1f} s"
                 + ("" if not n[FAIL] else "  -- FAILED: " + ", ".join(f"{c.section}: {c.name}" for c in checks
                                                                          if c.status == FAIL)))
    return "\n".join(lines)


def to_json(meta, checks, total_seconds):
    """The ``--json`` document: ``meta`` (versions, device), every check, and the counts."""
    counts = {s.lower(): sum(1 for c in checks if c.status == s) for s in (PASS, FAIL, SKIP, TIME)}
    return json.dumps({**meta, "seconds": round(total_seconds, 2), "counts": counts, "ok": counts["fail"] == 0,
                       "checks": [dataclasses.asdict(c) for c in checks]}, indent=1, default=str)
