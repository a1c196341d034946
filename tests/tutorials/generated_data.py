"""Generated stand-ins for the datasets TensorFlow's tutorials download (the tests run offline).

Each function returns arrays of the same shapes and dtypes as the real dataset (fewer examples), with a
learnable structure: every class has its own template and examples are noisy copies, so a tutorial's
model reaches a high accuracy in its (cut) epochs and a broken training step shows.
"""

import numpy as np


def _templates(n_classes, shape, rng):
    return rng.integers(0, 256, size=(n_classes, *shape)).astype(np.float64)


def image_classes(n_train, n_test, shape, n_classes=10, seed=0, ink=None):
    """``(x_train, y_train), (x_test, y_test)``: uint8 images of ``shape`` and uint8 labels. ``ink``: the
    fraction of pixels a class draws on, the rest 0 (MNIST's digits cover about a fifth of the image; a
    tutorial that feeds raw 0-255 pixels, as load_numpy does, trains as on MNIST only with such a background)."""
    rng = np.random.default_rng(seed)
    templates = _templates(n_classes, shape, rng)
    mask = 1.0 if ink is None else (templates >= np.quantile(templates, 1 - ink)).astype(np.float64)

    def make(n):
        y = rng.integers(0, n_classes, size=n)
        x = (templates[y] * 0.7 + rng.integers(0, 256, size=(n, *shape)) * 0.3) * (mask if np.ndim(mask) == 0
                                                                                  else mask[y])
        return np.clip(x, 0, 255).astype(np.uint8), y.astype(np.uint8)

    return make(n_train), make(n_test)


def mnist():
    """``tf.keras.datasets.mnist.load_data()``'s shapes: 28x28 uint8 digits, labels 0-9, on a black
    background as MNIST's (a fifth of the pixels drawn)."""
    return image_classes(2000, 400, (28, 28), ink=0.2)


def fashion_mnist():
    """``tf.keras.datasets.fashion_mnist.load_data()``'s shapes: 28x28 uint8 images, labels 0-9."""
    return image_classes(2000, 400, (28, 28), seed=1)


def cifar10():
    """``tf.keras.datasets.cifar10.load_data()``'s shapes: 32x32x3 uint8 images, labels of shape (n, 1)."""
    (x, y), (xt, yt) = image_classes(1000, 200, (32, 32, 3), seed=2)
    return (x, y.reshape(-1, 1)), (xt, yt.reshape(-1, 1))


def ecg_dataframe(n=1000, length=140, seed=3):
    """The ECG CSV of the autoencoder tutorial (``ecg.csv``, read with ``header=None``): a pandas DataFrame of
    ``length`` float columns per heartbeat and a last column of labels, 1.0 for a normal beat and 0.0 for an
    anomalous one (about 58% normal, like the real file). Normal beats are one noisy waveform; anomalous beats
    are a different waveform, so an autoencoder trained on normal beats reconstructs anomalies worse."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    t = np.linspace(0.0, 1.0, length)
    normal = np.sin(2 * np.pi * 3 * t) * np.exp(-2 * t) + 0.8 * np.exp(-((t - 0.3) / 0.03) ** 2)
    anomalous = 0.5 * np.cos(2 * np.pi * 5 * t) - 0.6 * np.exp(-((t - 0.7) / 0.08) ** 2)
    labels = (rng.random(n) < 0.58).astype(np.float64)
    beats = np.where(labels[:, None] > 0, normal, anomalous) + 0.08 * rng.standard_normal((n, length))
    return pd.DataFrame(np.concatenate([beats, labels[:, None]], axis=1))


def train_test_split(*arrays, test_size=0.25, random_state=None):
    """``sklearn.model_selection.train_test_split`` for NumPy arrays (scikit-learn is in neither test
    environment): one shuffled split, returned as ``train_a, test_a, train_b, test_b, ...``."""
    n = len(arrays[0])
    n_test = int(np.ceil(test_size * n)) if isinstance(test_size, float) else int(test_size)
    order = np.random.default_rng(random_state).permutation(n)
    out = []
    for a in arrays:
        a = np.asarray(a)
        out += [a[order[n_test:]], a[order[:n_test]]]
    return out


def accuracy_score(y_true, y_pred):
    """``sklearn.metrics.accuracy_score`` for binary labels."""
    return float(np.mean(np.asarray(y_true).astype(bool) == np.asarray(y_pred).astype(bool)))


def precision_score(y_true, y_pred):
    """``sklearn.metrics.precision_score`` for binary labels (0.0 when nothing is predicted positive)."""
    y_true, y_pred = np.asarray(y_true).astype(bool), np.asarray(y_pred).astype(bool)
    return float((y_true & y_pred).sum() / max(y_pred.sum(), 1))


def recall_score(y_true, y_pred):
    """``sklearn.metrics.recall_score`` for binary labels (0.0 when there is no positive label)."""
    y_true, y_pred = np.asarray(y_true).astype(bool), np.asarray(y_pred).astype(bool)
    return float((y_true & y_pred).sum() / max(y_true.sum(), 1))


JENA_CLIMATE_COLUMNS = ['Date Time', 'p (mbar)', 'T (degC)', 'Tpot (K)', 'Tdew (degC)', 'rh (%)', 'VPmax (mbar)',
                        'VPact (mbar)', 'VPdef (mbar)', 'sh (g/kg)', 'H2OC (mmol/mol)', 'rho (g/m**3)', 'wv (m/s)',
                        'max. wv (m/s)', 'wd (deg)']


def jena_climate(n_hours=1500, seed=4):
    """The Jena climate CSV of the time-series tutorial, read by ``pd.read_csv``: a pandas DataFrame of the same 15
    columns (``'Date Time'`` strings as ``'01.01.2009 00:10:00'``, one row every 10 minutes, then 14 float
    columns) over ``n_hours`` hours instead of eight years. Temperature follows a daily and a yearly cycle plus
    smooth weather noise, and the other columns are derived from it (pressure, humidity, density), so the
    tutorial's models learn something; a few wind readings are the file's -9999.0 error value."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    n = n_hours * 6
    t = pd.date_range('2009-01-01 00:10:00', periods=n, freq='10min')
    hours = np.arange(n) / 6.0
    weather = np.convolve(rng.standard_normal(n + 287), np.ones(288) / 12.0, mode='valid')[:n]
    temp = 9.0 - 8.0 * np.cos(2 * np.pi * hours / (24 * 365.2425)) - 4.0 * np.cos(2 * np.pi * hours / 24) + weather
    p = 989.0 - 0.4 * weather + rng.normal(0, 0.3, n)
    rh = np.clip(75.0 + 3.0 * np.cos(2 * np.pi * hours / 24) - weather + rng.normal(0, 2, n), 10, 100)
    vp_max = 6.1 * np.exp(17.6 * temp / (temp + 243.0))
    vp_act = vp_max * rh / 100.0
    sh = 622.0 * vp_act / (p - vp_act)
    wv = np.abs(rng.gamma(2.0, 1.0, n))
    wv[rng.choice(n, size=3, replace=False)] = -9999.0
    max_wv = np.abs(wv) * 1.6
    max_wv[wv < 0] = -9999.0
    columns = {
        'Date Time': t.strftime('%d.%m.%Y %H:%M:%S'),
        'p (mbar)': p,
        'T (degC)': temp,
        'Tpot (K)': temp + 273.15 + 0.8,
        'Tdew (degC)': temp - (100.0 - rh) / 5.0,
        'rh (%)': rh,
        'VPmax (mbar)': vp_max,
        'VPact (mbar)': vp_act,
        'VPdef (mbar)': vp_max - vp_act,
        'sh (g/kg)': sh,
        'H2OC (mmol/mol)': vp_act / p * 1000.0,
        'rho (g/m**3)': p * 100.0 / (287.05 * (temp + 273.15)) * 1000.0,
        'wv (m/s)': wv,
        'max. wv (m/s)': max_wv,
        'wd (deg)': rng.uniform(0.0, 360.0, n),
    }
    return pd.DataFrame(columns, columns=JENA_CLIMATE_COLUMNS)
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
