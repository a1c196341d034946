"""``tf.keras.utils.Progbar``: Keras's progress line.

verbose=1 redraws one line per update (throttled to ``interval`` seconds)::

    12/57 [=====>........................] - ETA: 1s - loss: 0.5200 - accuracy: 0.8300

and ends it with the elapsed time and time per step; verbose=2 prints only the
final line (``57/57 - 1s - loss: ... - 1s/epoch - 17ms/step``); verbose=0 prints
nothing. Metrics named in ``stateful_metrics`` are shown as given; others are
averaged over the samples seen, as Keras does.
"""

import io
import os
import sys
import time

import numpy as np

from . import io_utils


def _dynamic_display():
    stdout = sys.stdout
    return ((hasattr(stdout, "isatty") and stdout.isatty()) or "ipykernel" in sys.modules
            or "posix" in sys.modules or "PYCHARM_HOSTED" in os.environ)


def _format_value(avg):
    return f" {avg:.4f}" if abs(avg) > 1e-3 else f" {avg:.4e}"


def format_time(time_per_unit, unit_name):
    """`` 2ms/step``-style duration (s, ms or us)."""
    if time_per_unit >= 1 or time_per_unit == 0:
        return f" {time_per_unit:.0f}s/{unit_name}"
    if time_per_unit >= 1e-3:
        return f" {time_per_unit * 1e3:.0f}ms/{unit_name}"
    return f" {time_per_unit * 1e6:.0f}us/{unit_name}"


class Progbar:
    """Displays a progress bar (``target``: total steps, or None when unknown)."""

    def __init__(self, target, width=30, verbose=1, interval=0.05, stateful_metrics=None, unit_name="step"):
        self.target = target
        self.width = width
        self.verbose = verbose
        self.interval = interval
        self.unit_name = unit_name
        self.stateful_metrics = set(stateful_metrics) if stateful_metrics else set()
        self._dynamic_display = _dynamic_display()
        self._total_width = 0
        self._seen_so_far = 0
        self._values = {}
        self._values_order = []
        self._start = time.time()
        self._last_update = 0
        self._time_after_first_step = None

    def update(self, current, values=None, finalize=None):
        """Show progress ``current`` with ``values`` (a list of ``(name, value)`` pairs)."""
        if finalize is None:
            finalize = self.target is not None and current >= self.target
        for k, v in values or []:
            if k not in self._values_order:
                self._values_order.append(k)
            if k not in self.stateful_metrics and not isinstance(v, str):
                v = float(np.asarray(v))  # averaged values are needed now; stateful ones only when shown
                value_base = max(current - self._seen_so_far, 1)
                if k not in self._values:
                    self._values[k] = [v * value_base, value_base]
                else:
                    self._values[k][0] += v * value_base
                    self._values[k][1] += value_base
            else:
                self._values[k] = [v, 1]
        self._seen_so_far = current
        now = time.time()
        if self.verbose == 1:
            self._update_line(current, now, finalize)
        elif self.verbose == 2 and finalize:
            self._final_line(current, now)
        self._last_update = now

    def _metrics_info(self):
        info = ""
        for k in self._values_order:
            info += f" - {k}:"
            total, count = self._values[k]
            info += f" {total}" if isinstance(total, str) else _format_value(float(np.asarray(total)) / max(1, count))
        return info

    def _update_line(self, current, now, finalize):
        if now - self._last_update < self.interval and not finalize:
            return
        interactive = io_utils.is_interactive_logging_enabled()
        out = sys.stdout if interactive else io.StringIO()
        prev_total_width = self._total_width
        if not interactive:
            pass  # one complete log record per update: no cursor control
        elif self._dynamic_display:
            out.write("\b" * prev_total_width)
            out.write("\r")
        else:
            out.write("\n")
        if self.target is not None:
            numdigits = int(np.log10(self.target)) + 1 if self.target > 0 else 1
            bar = f"{current:{numdigits}d}/{self.target} ["
            prog_width = int(self.width * (current / self.target if self.target else 1))
            if prog_width > 0:
                bar += "=" * (prog_width - 1)
                bar += ">" if current < self.target else "="
            bar += "." * (self.width - prog_width)
            bar += "]"
        else:
            bar = f"{current:7d}/Unknown"
        self._total_width = len(bar)
        out.write(bar)
        time_per_unit = self._estimate_step_duration(current, now)
        if self.target is None or finalize:
            info = f" - {now - self._start:.0f}s" + format_time(time_per_unit, self.unit_name)
        else:
            eta = time_per_unit * (self.target - current)
            if eta > 3600:
                eta_format = f"{int(eta // 3600)}:{int((eta % 3600) // 60):02d}:{int(eta % 60):02d}"
            elif eta > 60:
                eta_format = f"{int(eta // 60)}:{int(eta % 60):02d}"
            else:
                eta_format = f"{int(eta)}s"
            info = f" - ETA: {eta_format}"
        info += self._metrics_info()
        self._total_width += len(info)
        if prev_total_width > self._total_width:
            info += " " * (prev_total_width - self._total_width)
        if finalize and interactive:
            info += "\n"
        out.write(info)
        if interactive:
            out.flush()
        else:
            io_utils.print_msg(out.getvalue().rstrip())

    def _final_line(self, current, now):
        numdigits = int(np.log10(self.target)) + 1 if self.target else 1
        elapsed = now - self._start
        info = f"{current:{numdigits}d}/{self.target} - {elapsed:.0f}s" + self._metrics_info()
        info += f" - {elapsed:.0f}s/epoch -" + format_time(elapsed / max(self.target or 1, 1), self.unit_name)
        io_utils.print_msg(info)

    def _estimate_step_duration(self, current, now):
        if not current:
            return 0
        if self._time_after_first_step is not None and current > 1:
            per = (now - self._time_after_first_step) / (current - 1)
        else:
            per = (now - self._start) / current
        if current == 1:
            self._time_after_first_step = now
        return per

    def add(self, n, values=None):
        self.update(self._seen_so_far + n, values)
