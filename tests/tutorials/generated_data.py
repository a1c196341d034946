"""Generated stand-ins for the datasets TensorFlow's tutorials download (the tests run offline).

Each function returns arrays of the same shapes and dtypes as the real dataset (fewer examples), with a
learnable structure: every class has its own template and examples are noisy copies, so a tutorial's
model reaches a high accuracy in its (cut) epochs and a broken training step shows.
"""

import numpy as np


def _templates(n_classes, shape, rng):
    return rng.integers(0, 256, size=(n_classes, *shape)).astype(np.float64)


def image_classes(n_train, n_test, shape, n_classes=10, seed=0):
    """``(x_train, y_train), (x_test, y_test)``: uint8 images of ``shape`` and uint8 labels."""
    rng = np.random.default_rng(seed)
    templates = _templates(n_classes, shape, rng)

    def make(n):
        y = rng.integers(0, n_classes, size=n)
        x = templates[y] * 0.7 + rng.integers(0, 256, size=(n, *shape)) * 0.3
        return np.clip(x, 0, 255).astype(np.uint8), y.astype(np.uint8)

    return make(n_train), make(n_test)


def mnist():
    """``tf.keras.datasets.mnist.load_data()``'s shapes: 28x28 uint8 digits, labels 0-9."""
    return image_classes(2000, 400, (28, 28))


def fashion_mnist():
    """``tf.keras.datasets.fashion_mnist.load_data()``'s shapes: 28x28 uint8 images, labels 0-9."""
    return image_classes(2000, 400, (28, 28), seed=1)


def cifar10():
    """``tf.keras.datasets.cifar10.load_data()``'s shapes: 32x32x3 uint8 images, labels of shape (n, 1)."""
    (x, y), (xt, yt) = image_classes(1000, 200, (32, 32, 3), seed=2)
    return (x, y.reshape(-1, 1)), (xt, yt.reshape(-1, 1))


def aclimdb(root, n_train=500, n_test=200, n_unsup=20, seed=3):
    """Write a small ``aclImdb`` folder tree under ``root`` (the layout of ``aclImdb_v1.tar.gz``) and
    return ``root``.

    ``aclImdb/{train,test}/{pos,neg}/<id>_<rating>.txt`` with ``n_train``/``n_test`` reviews per class,
    ``train/unsup`` (which the text-classification tutorial deletes) and ``README``/``imdb.vocab``, so
    ``tf.keras.utils.text_dataset_from_directory`` runs as written. A review is lower- and upper-case
    filler words from a 2,000-word vocabulary (so the tutorial's ``get_vocabulary()[1287]`` exists) with
    punctuation and ``<br />`` tags, plus words of its class's sentiment, so a bag-of-words model learns.
    """
    import os

    rng = np.random.default_rng(seed)
    filler = [f"w{i:04d}" for i in range(2000)]
    sentiment = {"pos": [f"good{i}" for i in range(10)], "neg": [f"bad{i}" for i in range(10)]}
    base = os.path.join(root, "aclImdb")

    def review(label):
        words = list(rng.choice(filler, size=int(rng.integers(40, 80))))
        if label != "unsup":
            for w in rng.choice(sentiment[label], size=40):
                words.insert(int(rng.integers(0, len(words))), str(w))
        words[0] = words[0].capitalize()
        text = " ".join(words)
        return text.replace(" w0001", ", w0001").replace(" w0002", ". <br /><br />W0002") + "!"

    for split, n in (("train", n_train), ("test", n_test)):
        for label in ("pos", "neg"):
            os.makedirs(os.path.join(base, split, label), exist_ok=True)
            for i in range(n):
                rating = int(rng.integers(7, 11)) if label == "pos" else int(rng.integers(1, 5))
                name = "1181_9.txt" if (split, label, i) == ("train", "pos", 0) else f"{i + 2000}_{rating}.txt"
                with open(os.path.join(base, split, label, name), "w") as f:
                    f.write(review(label))
    os.makedirs(os.path.join(base, "train", "unsup"), exist_ok=True)
    for i in range(n_unsup):
        with open(os.path.join(base, "train", "unsup", f"{i}_0.txt"), "w") as f:
            f.write(review("unsup"))
    for name in ("README", "imdb.vocab", "imdbEr.txt"):
        with open(os.path.join(base, name), "w") as f:
            f.write("\n".join(filler) if name == "imdb.vocab" else "generated stand-in for aclImdb\n")
    return root


def auto_mpg(path="auto-mpg.data", n=398, seed=4):
    """Write a generated ``auto-mpg.data`` (UCI Auto MPG's file format) to ``path`` and return ``path``.

    Whitespace-separated columns MPG, Cylinders, Displacement, Horsepower, Weight, Acceleration, Model
    Year, Origin (1, 2, 3), then a tab and the quoted car name, with ``?`` for six unknown horsepowers,
    so ``pd.read_csv(path, names=..., na_values='?', comment='\\t', sep=' ', skipinitialspace=True)``
    reads it as the regression tutorial does. MPG falls with weight and horsepower as in the real data.
    """
    rng = np.random.default_rng(seed)
    cylinders = rng.choice([4, 6, 8], size=n, p=[0.5, 0.25, 0.25])
    displacement = cylinders * rng.uniform(20.0, 50.0, size=n)
    horsepower = 20.0 + displacement * rng.uniform(0.35, 0.55, size=n)
    weight = 1200.0 + displacement * 7.0 + rng.normal(0.0, 200.0, size=n)
    acceleration = 24.0 - horsepower / 20.0 + rng.normal(0.0, 1.0, size=n)
    year = rng.integers(70, 83, size=n)
    origin = np.where(cylinders == 8, 1, rng.choice([1, 2, 3], size=n))
    mpg = 58.0 - weight / 150.0 - horsepower / 25.0 + (year - 70) * 0.6 + rng.normal(0.0, 1.5, size=n)
    unknown = set(rng.choice(n, size=6, replace=False).tolist())
    with open(path, "w") as f:
        for i in range(n):
            hp = "?" if i in unknown else f"{horsepower[i]:.1f}"
            f.write(f"{max(mpg[i], 9.0):.1f}   {cylinders[i]}   {displacement[i]:.1f}      {hp}      "
                    f"{weight[i]:.1f}      {acceleration[i]:.1f}   {year[i]}  {origin[i]}\t\"car {i}\"\n")
    return path


def higgs_csv_gz(path="HIGGS.csv.gz", n=11000, seed=5):
    """Write a generated ``HIGGS.csv.gz`` (UCI HIGGS's format) to ``path`` and return ``path``.

    Gzipped CSV without a header, 29 float columns in scientific notation: the label (``1.0`` signal,
    ``0.0`` background) then 28 features (21 kinematic, 7 derived, mostly positive, around 1), ``n`` rows
    (the real file has 11 million; the overfit-and-underfit tutorial reads the first 11,000). Signal
    shifts a few features, so a model learns something and a large one can overfit the rest (noise).
    """
    import gzip

    rng = np.random.default_rng(seed)
    label = rng.integers(0, 2, size=n).astype(np.float64)
    features = np.abs(rng.normal(1.0, 0.5, size=(n, 28)))
    features[:, 21:] += 0.3 * label[:, None] * rng.uniform(0.5, 1.5, size=(n, 7))
    rows = np.concatenate([label[:, None], features], axis=1)
    with gzip.open(path, "wt") as f:
        for row in rows:
            f.write(",".join(f"{v:.18e}" for v in row) + "\n")
    return path
