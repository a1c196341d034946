"""``tf.keras.callbacks.BackupAndRestore``: resume an interrupted ``fit`` where its last backup left off.

At the end of every epoch (or every ``save_freq`` batches) the callback saves the model and its
optimizer with a ``tf.train.CheckpointManager`` in ``backup_dir``, with a small JSON file saying
where training was (epoch, and batches done in that epoch). When ``fit`` starts and a backup exists,
the callback restores it and ``fit`` continues from that point: the epoch, and past the batches that
epoch had already trained on, so a job that died and is started again ends with the same weights as
one that never stopped (given the same data order). ``delete_checkpoint=True`` removes the backup
when training ends normally.

In a multi-worker job (an MPI job ends as a whole when a worker dies) every worker restores the
chief's backup; only the chief's is kept: the others write theirs into a temporary directory
(``distribute.distributed_file_utils``).
"""

import json
import os
import shutil

from ..distribute import distributed_file_utils
from ..saving.checkpoint import Checkpoint
from ..saving.management import CheckpointManager
from .callbacks import Callback

_STATE_FILE = "training_state.json"


class BackupAndRestore(Callback):
    """``BackupAndRestore(backup_dir, save_freq="epoch", double_checkpoint=False, delete_checkpoint=True)``.

    ``save_freq``: ``"epoch"``, or an integer: back up every that many batches (and not at epoch ends).
    ``double_checkpoint``: keep the previous backup too (a crash while writing leaves one to use).
    """

    def __init__(self, backup_dir, save_freq="epoch", double_checkpoint=False, delete_checkpoint=True):
        super().__init__()
        if not backup_dir:
            raise ValueError("Empty `backup_dir` argument passed")
        if save_freq != "epoch" and (isinstance(save_freq, bool) or not isinstance(save_freq, int) or save_freq <= 0):
            raise ValueError(f"Invalid value for argument `save_freq`. Received: save_freq={save_freq!r}. "
                             "Expected either 'epoch' or a positive integer value.")
        self.backup_dir = os.fspath(backup_dir)
        self.save_freq = save_freq
        self.double_checkpoint = bool(double_checkpoint)
        self.delete_checkpoint = bool(delete_checkpoint)
        self._epoch = 0
        self._batches_in_epoch = 0
        self._batches_seen = 0

    def _strategy(self):
        return getattr(self.model, "distribute_strategy", None)

    def _checkpoint(self):
        optimizer = getattr(self.model, "optimizer", None)
        if optimizer is None:
            return Checkpoint(model=self.model)
        if hasattr(optimizer, "build"):
            optimizer.build(self.model.trainable_variables)  # slots exist before a restore fills them
        return Checkpoint(model=self.model, optimizer=optimizer)

    def on_train_begin(self, logs=None):
        self._ckpt = self._checkpoint()
        state_path = os.path.join(self.backup_dir, _STATE_FILE)
        latest = CheckpointManager(self._ckpt, self.backup_dir, max_to_keep=None).latest_checkpoint
        if latest is not None and os.path.exists(state_path):
            self._ckpt.restore(latest).expect_partial()
            with open(state_path) as f:
                state = json.load(f)
            self._epoch, self._batches_in_epoch = int(state["epoch"]), int(state["batch"])
            self.model.__dict__["_resume_from"] = (self._epoch, self._batches_in_epoch)  # fit continues here
        self._write_dir = distributed_file_utils.write_dirpath(self.backup_dir, self._strategy())
        self._manager = CheckpointManager(self._ckpt, self._write_dir, max_to_keep=2 if self.double_checkpoint else 1)

    def on_epoch_begin(self, epoch, logs=None):
        if epoch != self._epoch:
            self._batches_in_epoch = 0
        self._epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        self._batches_in_epoch = batch + 1
        if self.save_freq != "epoch":
            self._batches_seen += 1
            if self._batches_seen % self.save_freq == 0:
                if self._batches_in_epoch == self.params.get("steps"):  # the epoch's last batch: resume at the next
                    self._save(self._epoch + 1, 0)
                else:
                    self._save(self._epoch, self._batches_in_epoch)

    def on_epoch_end(self, epoch, logs=None):
        self._epoch, self._batches_in_epoch = epoch + 1, 0
        if self.save_freq == "epoch":
            self._save(epoch + 1, 0)

    def _save(self, epoch, batch):
        os.makedirs(self._write_dir, exist_ok=True)
        self._manager.save()
        tmp = os.path.join(self._write_dir, _STATE_FILE + ".tmp")
        with open(tmp, "w") as f:
            json.dump({"epoch": epoch, "batch": batch}, f)
        os.replace(tmp, os.path.join(self._write_dir, _STATE_FILE))  # written after the checkpoint it describes
        distributed_file_utils.remove_temp_dirpath(self.backup_dir, self._strategy())

    def on_train_end(self, logs=None):
        distributed_file_utils.wait_for_all_workers(self._strategy())  # nobody is still writing a backup
        if self.delete_checkpoint and self._write_dir == self.backup_dir:
            shutil.rmtree(self.backup_dir, ignore_errors=True)
        distributed_file_utils.remove_temp_dirpath(self.backup_dir, self._strategy())
