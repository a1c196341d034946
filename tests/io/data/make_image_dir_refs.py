"""Regenerates ``images/`` (a small class-per-folder image tree) and ``image_dir_refs.npz``: what
TensorFlow 2.21's ``tf.keras.utils.image_dataset_from_directory`` returns for it.

    python tests/io/data/make_image_dir_refs.py
"""

import os
import shutil

import numpy as np
import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "images")


def main():
    shutil.rmtree(ROOT, ignore_errors=True)
    rng = np.random.RandomState(0)
    layout = {"cat": [("c1.png", (5, 7)), ("c2.png", (8, 4)), ("sub/c3.png", (6, 6))],
              "dog": [("d1.png", (4, 4)), ("d2.jpg", (6, 9)), ("d3.png", (3, 5)), ("d4.PNG", (7, 7))],
              "zebra": [("z1.png", (5, 5))]}
    for cls, files in layout.items():
        for name, (h, w) in files:
            path = os.path.join(ROOT, cls, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            img = rng.randint(0, 256, size=(h, w, 3)).astype(np.uint8)
            data = tf.io.encode_jpeg(img, quality=95) if name.endswith(".jpg") else tf.io.encode_png(img)
            tf.io.write_file(path, data)
    with open(os.path.join(ROOT, "cat", "notes.txt"), "w") as f:
        f.write("not an image")
    out = {}
    kw = dict(image_size=(4, 6), shuffle=False, batch_size=None, verbose=False)
    ds = tf.keras.utils.image_dataset_from_directory(ROOT, **kw)
    out["class_names"] = np.array(ds.class_names)
    out["file_paths"] = np.array([os.path.relpath(p, ROOT) for p in ds.file_paths])
    xs, ys = zip(*[(x.numpy(), y.numpy()) for x, y in ds])
    out["images"], out["labels"] = np.stack(xs), np.array(ys)
    ds = tf.keras.utils.image_dataset_from_directory(ROOT, color_mode="grayscale", crop_to_aspect_ratio=True,
                                                     interpolation="nearest", label_mode="categorical",
                                                     class_names=["dog", "cat"], **kw)
    xs, ys = zip(*[(x.numpy(), y.numpy()) for x, y in ds])
    out["gray_crop_images"], out["gray_crop_labels"] = np.stack(xs), np.stack(ys)
    out["gray_crop_paths"] = np.array([os.path.relpath(p, ROOT) for p in ds.file_paths])
    train, val = tf.keras.utils.image_dataset_from_directory(ROOT, image_size=(4, 6), validation_split=0.3,
                                                             subset="both", seed=7, batch_size=2, verbose=False)
    out["split_train_paths"] = np.array([os.path.relpath(p, ROOT) for p in train.file_paths])
    out["split_val_paths"] = np.array([os.path.relpath(p, ROOT) for p in val.file_paths])
    out["split_val_labels"] = np.concatenate([y.numpy() for _, y in val])
    np.savez(os.path.join(HERE, "image_dir_refs.npz"), **out)


if __name__ == "__main__":
    main()
