"""tf.keras.utils.image_dataset_from_directory against what TensorFlow 2.21 returned for ``data/images``.

``data/image_dir_refs.npz`` (``data/make_image_dir_refs.py``) holds TF's file order, labels, split and
pixels. PNG pixels must match exactly; the one JPEG is decoded by a different libjpeg DCT (TF: fast
integer, Pillow: accurate), a few levels apart.
"""

import os
import pathlib
import shutil

import numpy as np
import pytest

import tfcore as tf

pytest.importorskip("PIL")
ROOT = str(pathlib.Path(__file__).with_name("data") / "images")
REF = np.load(pathlib.Path(__file__).with_name("data") / "image_dir_refs.npz")
ids = tf.keras.utils.image_dataset_from_directory


def _rel(paths):
    return [os.path.relpath(p, ROOT) for p in paths]


def _unbatched(ds):
    xs, ys = zip(*[(x.numpy(), y.numpy()) for x, y in ds])
    return np.stack(xs), np.stack(ys)


def _check_pixels(got, want, paths):
    for g, w, p in zip(got, want, paths):
        if p.endswith(".jpg"):
            assert np.abs(g.astype(float) - w).max() <= 8 and np.abs(g.astype(float) - w).mean() < 2.5, p
        else:
            np.testing.assert_allclose(g, w, atol=1e-4, err_msg=p)


def test_files_labels_and_pixels_match_tensorflow():
    ds = ids(ROOT, image_size=(4, 6), shuffle=False, batch_size=None, verbose=False)
    assert ds.class_names == list(REF["class_names"]) == ["cat", "dog", "zebra"]
    assert _rel(ds.file_paths) == list(REF["file_paths"])  # recursive, sorted, notes.txt skipped, .PNG kept
    assert ds.element_spec == (tf.TensorSpec([4, 6, 3], tf.float32), tf.TensorSpec([], tf.int32))
    x, y = _unbatched(ds)
    assert x.dtype == np.float32 and y.tolist() == REF["labels"].tolist()
    _check_pixels(x, REF["images"], REF["file_paths"])


def test_grayscale_crop_nearest_categorical_class_order():
    ds = ids(ROOT, color_mode="grayscale", crop_to_aspect_ratio=True, interpolation="nearest",
             label_mode="categorical", class_names=["dog", "cat"], image_size=(4, 6), shuffle=False,
             batch_size=None, verbose=False)
    assert ds.class_names == ["dog", "cat"] and _rel(ds.file_paths) == list(REF["gray_crop_paths"])
    x, y = _unbatched(ds)
    assert x.dtype == np.uint8 and x.shape == (7, 4, 6, 1)  # 'nearest' keeps the pixels' dtype, as tf.image.resize
    np.testing.assert_array_equal(y, REF["gray_crop_labels"])
    _check_pixels(x, REF["gray_crop_images"], REF["gray_crop_paths"])


def test_validation_split_both_matches_tensorflow_files():
    train, val = ids(ROOT, image_size=(4, 6), validation_split=0.3, subset="both", seed=7, batch_size=2,
                     verbose=False)
    assert _rel(train.file_paths) == list(REF["split_train_paths"])
    assert _rel(val.file_paths) == list(REF["split_val_paths"])
    assert np.concatenate([y.numpy() for _, y in val]).tolist() == REF["split_val_labels"].tolist()
    only_val = ids(ROOT, image_size=(4, 6), validation_split=0.3, subset="validation", seed=7, verbose=False)
    assert only_val.file_paths == val.file_paths and only_val.class_names == ["cat", "dog", "zebra"]
    seen = sorted(p for batch_x, _ in train for p in [batch_x.shape[0]])
    assert sum(seen) == 6


def test_default_batches_shuffle_and_training(capsys):
    ds = ids(ROOT, image_size=(8, 8), seed=3)
    assert "Found 8 files belonging to 3 classes." in capsys.readouterr().out
    (x, y), = list(ds)  # batch_size=32 holds all 8
    assert x.shape == (8, 8, 8, 3) and y.dtype == tf.int32
    again = ids(ROOT, image_size=(8, 8), seed=3, verbose=False)
    (x2, y2), = list(again)
    np.testing.assert_array_equal(x.numpy(), x2.numpy())
    assert sorted(y.numpy().tolist()) == [0, 0, 0, 1, 1, 1, 1, 2]
    model = tf.keras.Sequential([tf.keras.layers.Rescaling(1 / 255.0, input_shape=(8, 8, 3)),
                                 tf.keras.layers.Flatten(), tf.keras.layers.Dense(3)])
    model.compile("adam", tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    hist = model.fit(ds, epochs=2, verbose=0)
    assert len(hist.history["loss"]) == 2 and np.isfinite(hist.history["loss"]).all()


def test_label_modes_and_layouts():
    binary = ids(ROOT, image_size=4, class_names=["cat", "dog"], label_mode="binary", shuffle=False, verbose=False)
    (x, y), = list(binary)
    assert x.shape == (7, 4, 4, 3) and y.dtype == tf.float32 and y.shape == (7, 1)
    assert y.numpy().ravel().tolist() == [0, 0, 0, 1, 1, 1, 1]
    images_only = ids(ROOT, labels=None, image_size=(3, 3), batch_size=None, shuffle=False, verbose=False)
    assert images_only.element_spec == tf.TensorSpec([3, 3, 3], tf.float32) and images_only.class_names is None
    given = ids(ROOT, labels=[5, 1, 1, 0, 5, 0, 1, 0], image_size=(3, 3), shuffle=False, batch_size=None,
                verbose=False)
    assert given.class_names == ["0", "1", "5"] and [int(y) for _, y in given] == [5, 1, 1, 0, 5, 0, 1, 0]
    first = _rel(given.file_paths)[0]
    assert first == "cat/c1.png"
    rgba = ids(ROOT, color_mode="rgba", image_size=(5, 4), data_format="channels_first", shuffle=False,
               batch_size=None, verbose=False)
    img, _ = next(iter(rgba))
    assert img.shape == (4, 5, 4) and float(img[3].numpy().min()) == 255.0
    padded = ids(ROOT, pad_to_aspect_ratio=True, image_size=(6, 6), shuffle=False, batch_size=None, verbose=False)
    img, _ = next(iter(padded))  # cat/c1.png is 5x7: resized to 4x6; TF's offset floor((6 - 30/7) / 2) = 0
    assert img.shape == (6, 6, 3) and float(tf.reduce_max(tf.abs(img[4:]))) == 0.0 and float(tf.reduce_min(img[0])) > 0


def test_follow_links(tmp_path):
    root = tmp_path / "data"
    (root / "a").mkdir(parents=True)
    shutil.copy(os.path.join(ROOT, "cat", "c1.png"), root / "a" / "x.png")
    (tmp_path / "extra").mkdir()
    shutil.copy(os.path.join(ROOT, "dog", "d1.png"), tmp_path / "extra" / "y.png")
    os.symlink(tmp_path / "extra", root / "a" / "linked")
    assert len(ids(str(root), batch_size=None, verbose=False).file_paths) == 1
    assert len(ids(str(root), batch_size=None, follow_links=True, verbose=False).file_paths) == 2


@pytest.mark.parametrize("kwargs,match", [
    ({"validation_split": 0.2}, "If `subset` is set, `validation_split` must be set"),
    ({"validation_split": 0.2, "subset": "training"}, "you must provide a `seed`"),
    ({"validation_split": 1.5, "subset": "training", "seed": 1}, "between 0 and 1"),
    ({"subset": "test", "validation_split": 0.2, "seed": 1}, "`subset` must be either"),
    ({"color_mode": "cmyk"}, "color_mode"),
    ({"label_mode": "binary"}, "exactly 2 class_names"),
    ({"label_mode": "sparse"}, "label_mode"),
    ({"class_names": ["cat", "horse"]}, "did not match the names of the subdirectories"),
    ({"image_size": (1, 2, 3)}, "image_size"),
    ({"interpolation": "cubic"}, "interpolation"),
    ({"labels": "folders"}, "list/tuple of integer labels"),
    ({"labels": [0, 1]}, "Expected the lengths of `labels` to match"),
    ({"crop_to_aspect_ratio": True, "pad_to_aspect_ratio": True}, "Only one of"),
])
def test_argument_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ids(ROOT, verbose=False, **kwargs)
