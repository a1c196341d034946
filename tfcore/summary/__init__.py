"""``tf.summary``: TensorBoard event files (scalars, histograms, images, text, audio).

See README "TensorBoard summaries". Needs the ``tensorboard`` package for its protos
(``pip install 'tfcore[tensorboard]'``).
"""

from . import experimental
from .summary_ops import audio, histogram, image, scalar, text, write
from .trace import trace_export, trace_off, trace_on
from .writer import (SummaryWriter, create_file_writer, create_noop_writer, flush, record_if,
                     should_record_summaries)
