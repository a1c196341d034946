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


# --- Input-pipeline tutorials (tutorials/load_data/*, guide/data): generated files of the downloads' formats ---

def mnist_npz(path="mnist.npz"):
    """Writes ``mnist.npz`` as ``keras.utils.get_file`` downloads it (``x_train``, ``y_train``, ``x_test``,
    ``y_test``: 28x28 uint8 digits and uint8 labels) and returns its path."""
    (x, y), (xt, yt) = mnist()
    np.savez(path, x_train=x, y_train=y, x_test=xt, y_test=yt)
    return path


def heart_csv(path="heart.csv", n=200, seed=3):
    """Writes the Cleveland heart-disease CSV (``heart.csv``: 13 features, a string ``thal`` column and a
    0/1 ``target``, with a header row) and returns its path; the target follows age, thalach and cp."""
    rng = np.random.default_rng(seed)
    age = rng.integers(29, 78, n)
    thalach = rng.integers(90, 200, n)
    cp = rng.integers(0, 5, n)
    target = ((age - 54) / 9 - (thalach - 150) / 23 + (cp >= 3) + rng.normal(0, 0.5, n) > 0.5).astype(int)
    cols = {
        "age": age, "sex": rng.integers(0, 2, n), "cp": cp, "trestbps": rng.integers(94, 200, n),
        "chol": rng.integers(126, 564, n), "fbs": rng.integers(0, 2, n), "restecg": rng.integers(0, 3, n),
        "thalach": thalach, "exang": rng.integers(0, 2, n), "oldpeak": np.round(rng.uniform(0, 6.2, n), 1),
        "slope": rng.integers(1, 4, n), "ca": rng.integers(0, 4, n),
        "thal": rng.choice(["fixed", "normal", "reversible"], n), "target": target,
    }
    _write_csv(path, cols)
    return path


def _write_csv(path, cols, header=True, opener=open):
    names = list(cols)
    with opener(path, "wt") as f:
        if header:
            f.write(",".join(names) + "\n")
        for i in range(len(cols[names[0]])):
            f.write(",".join(str(cols[k][i]) for k in names) + "\n")


def abalone_csv(path="abalone_train.csv", n=400, seed=4):
    """Writes ``abalone_train.csv`` (no header: 7 float measurements and an integer ``Age``, the
    target, roughly linear in the shell weight) and returns its path."""
    rng = np.random.default_rng(seed)
    length = rng.uniform(0.1, 0.8, n)
    cols = {"Length": length, "Diameter": length * 0.8, "Height": length * 0.3,
            "Whole weight": length ** 2 * 2, "Shucked weight": length ** 2, "Viscera weight": length ** 2 * 0.4,
            "Shell weight": length ** 2 * 0.6}
    cols = {k: np.round(v * rng.uniform(0.9, 1.1, n), 4) for k, v in cols.items()}
    cols["Age"] = np.clip(np.round(3 + 20 * cols["Shell weight"] + rng.normal(0, 1, n)), 1, 29).astype(int)
    _write_csv(path, cols, header=False)
    return path


def titanic_csv(path="train.csv", n=200, seed=5):
    """Writes the Titanic ``train.csv`` (``survived`` label, sex, age, n_siblings_spouses, parch, fare,
    class, deck, embark_town, alone; header row) and returns its path; survival follows sex and class."""
    rng = np.random.default_rng(seed)
    sex = rng.choice(["male", "female"], n)
    klass = rng.choice(["First", "Second", "Third"], n)
    survived = ((sex == "female").astype(float) + (klass == "First") * 0.5 + rng.normal(0, 0.3, n) > 0.6)
    cols = {"survived": survived.astype(int), "sex": sex, "age": np.round(rng.uniform(1, 70, n)),
            "n_siblings_spouses": rng.integers(0, 4, n), "parch": rng.integers(0, 3, n),
            "fare": np.round(rng.uniform(5, 100, n), 4), "class": klass,
            "deck": rng.choice(["unknown", "A", "B", "C"], n),
            "embark_town": rng.choice(["Southampton", "Cherbourg", "Queenstown"], n),
            "alone": rng.choice(["y", "n"], n)}
    _write_csv(path, cols)
    return path


def traffic_volume_csv_gz(path="Metro_Interstate_Traffic_Volume.csv.gz", n=600, seed=6):
    """Writes the gzipped Metro Interstate traffic CSV (holiday, temp, rain_1h, snow_1h, clouds_all,
    weather_main, weather_description, date_time, traffic_volume; header row) and returns its path."""
    import gzip
    import os

    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    rng = np.random.default_rng(seed)
    hours = np.arange(n)
    cols = {"holiday": np.array(["None"] * n), "temp": np.round(rng.uniform(250, 300, n), 2),
            "rain_1h": np.zeros(n), "snow_1h": np.zeros(n), "clouds_all": rng.integers(0, 100, n),
            "weather_main": rng.choice(["Clouds", "Clear", "Rain"], n),
            "weather_description": rng.choice(["scattered clouds", "sky is clear", "light rain"], n),
            "date_time": [f"2012-10-{2 + h // 24:02d} {h % 24:02d}:00:00" for h in hours],
            "traffic_volume": rng.integers(100, 7000, n)}
    _write_csv(path, cols, opener=gzip.open)
    return path


def fonts_csvs(directory="fonts", n_fonts=4, rows=12, seed=7):
    """Writes ``directory/<FONT>.csv`` files as the UCI fonts archive extracts (font, fontVariant, m_label,
    strength, italic, orientation, m_top, m_left, originalH, originalW, h, w, then the 400 pixels
    ``r0c0`` .. ``r19c19``; header row) and returns the directory."""
    import os

    os.makedirs(directory, exist_ok=True)
    rng = np.random.default_rng(seed)
    names = ["AGENCY", "ARIAL", "BAITI", "CALIBRI", "COURIER", "GEORGIA", "TIMES", "VERDANA"][:n_fonts]
    for name in names:
        cols = {"font": [name] * rows, "fontVariant": [name.title()] * rows,
                "m_label": rng.integers(33, 127, rows), "strength": [0.4] * rows, "italic": rng.integers(0, 2, rows),
                "orientation": [0.0] * rows, "m_top": rng.integers(0, 60, rows), "m_left": rng.integers(0, 60, rows),
                "originalH": rng.integers(10, 90, rows), "originalW": rng.integers(10, 90, rows),
                "h": [20] * rows, "w": [20] * rows}
        pixels = rng.integers(1, 256, (rows, 400))
        for p in range(400):
            cols[f"r{p // 20}c{p % 20}"] = pixels[:, p]
        _write_csv(os.path.join(directory, f"{name}.csv"), cols)
    return directory
