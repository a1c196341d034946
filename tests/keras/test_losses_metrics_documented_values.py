"""The rest of keras.losses and keras.metrics: values from TF's documented examples (the numbers in
TF 2.21 / Keras docstrings), NumPy float64 references, get_config round trips and gradients."""

import numpy as np
import pytest

import tfcore as tf

L = tf.keras.losses
M = tf.keras.metrics

YT = [[0.0, 1.0], [0.0, 0.0]]
YP = [[0.6, 0.4], [0.4, 0.6]]


# -- losses: TF's documented examples -----------------------------------------------------------

@pytest.mark.parametrize("loss, y_true, y_pred, expected", [
    (L.Hinge(), YT, YP, 1.3),
    (L.SquaredHinge(), YT, YP, 1.86),
    (L.CategoricalHinge(), YT, YP, 1.4),
    (L.Poisson(), YT, [[1.0, 1.0], [0.0, 0.0]], 0.5),
    (L.LogCosh(), YT, [[1.0, 1.0], [0.0, 0.0]], 0.108),
    (L.CosineSimilarity(axis=1), [[0.0, 1.0], [1.0, 1.0]], [[1.0, 0.0], [1.0, 1.0]], -0.5),
    (L.MeanAbsolutePercentageError(), [[2.0, 1.0], [2.0, 3.0]], [[1.0, 1.0], [1.0, 0.0]], 50.0),
    (L.MeanSquaredLogarithmicError(), YT, [[1.0, 1.0], [1.0, 0.0]], 0.240),
    (L.BinaryFocalCrossentropy(gamma=2, from_logits=True), [0, 1, 0, 0], [-18.6, 0.51, 2.94, -12.8], 0.691),
    (L.BinaryFocalCrossentropy(apply_class_balancing=True, gamma=2, from_logits=True), [0, 1, 0, 0],
     [-18.6, 0.51, 2.94, -12.8], 0.51),
])
def test_documented_loss_values(loss, y_true, y_pred, expected):
    np.testing.assert_allclose(loss(y_true, y_pred).numpy(), expected, atol=1e-3)


def test_documented_function_forms():
    np.testing.assert_allclose(L.binary_focal_crossentropy(YT, YP, gamma=2).numpy(), [0.330, 0.206], atol=1e-3)
    np.testing.assert_allclose(
        L.categorical_focal_crossentropy([[0, 1, 0], [0, 0, 1]], [[0.05, 0.9, 0.05], [0.1, 0.85, 0.05]]).numpy(),
        [2.63401289e-04, 6.75912094e-01], rtol=1e-4)
    assert L.MAPE is L.mape is L.mean_absolute_percentage_error
    assert L.MSLE is L.msle and L.logcosh is L.log_cosh and L.MAE is L.mae
    assert L.kullback_leibler_divergence is L.kl_divergence


def _np(x):
    return np.asarray(x, np.float64)


def test_losses_match_float64_numpy():
    rng = np.random.default_rng(0)
    t = rng.uniform(0.1, 2, (4, 5))
    p = rng.uniform(0.1, 2, (4, 5))
    labels = np.where(rng.uniform(size=(4, 5)) > 0.5, 1.0, -1.0)
    np.testing.assert_allclose(L.hinge(labels, p).numpy(), np.maximum(1 - labels * p, 0).mean(-1))
    np.testing.assert_allclose(L.squared_hinge(labels, p).numpy(), (np.maximum(1 - labels * p, 0) ** 2).mean(-1))
    np.testing.assert_allclose(L.poisson(t, p).numpy(), (p - t * np.log(p + 1e-7)).mean(-1))
    np.testing.assert_allclose(L.log_cosh(t, p).numpy(), np.log(np.cosh(p - t)).mean(-1))
    np.testing.assert_allclose(L.msle(t, p).numpy(), ((np.log1p(p) - np.log1p(t)) ** 2).mean(-1))
    np.testing.assert_allclose(L.mape(t, p).numpy(), 100 * (np.abs(t - p) / t).mean(-1))
    cos = -(t * p).sum(-1) / np.linalg.norm(t, axis=-1) / np.linalg.norm(p, axis=-1)
    np.testing.assert_allclose(L.cosine_similarity(t, p).numpy(), cos)
    tb, pb = (t > 1).astype(np.float64), p / 2.0
    np.testing.assert_allclose(L.dice(tb, pb).numpy(), 1 - 2 * (tb * pb).sum() / (tb.sum() + pb.sum() + 1e-7))
    tp, fp, fn = (tb * pb).sum(), ((1 - pb) * tb).sum(), (pb * (1 - tb)).sum()
    np.testing.assert_allclose(L.tversky(tb, pb, alpha=0.3, beta=0.7).numpy(),
                               1 - tp / (tp + 0.3 * fp + 0.7 * fn + 1e-7))
    np.testing.assert_allclose(L.Dice(axis=(1,))(tb, pb).numpy(),
                               np.mean(1 - 2 * (tb * pb).sum(1) / (tb.sum(1) + pb.sum(1) + 1e-7)))
    probs = np.array([[0.1, 0.8, 0.1], [0.2, 0.2, 0.6]])
    np.testing.assert_allclose(L.categorical_generalized_cross_entropy([1, 2], probs, q=0.5).numpy(),
                               (1 - np.array([0.8, 0.6]) ** 0.5) / 0.5)
    np.testing.assert_allclose(L.CategoricalGeneralizedCrossEntropy(q=0.7)([[1], [2]], probs).numpy(),
                               np.mean((1 - np.array([0.8, 0.6]) ** 0.7) / 0.7), rtol=1e-6)
    with pytest.raises(ValueError, match="q must be in the interval"):
        L.CategoricalGeneralizedCrossEntropy(q=1.5)


def _circle_reference(labels, emb, gamma=80.0, margin=0.4):
    dist = np.maximum(1 - emb @ emb.T, 0)
    same = labels[:, None] == labels[None, :]
    pos = same & ~np.eye(len(labels), dtype=bool)
    neg = ~same
    pos_w = np.maximum((margin + dist) * pos, 0)
    neg_w = np.maximum((1 + margin - dist) * neg, 0)
    pl = np.where(pos, -gamma * pos_w * (margin - dist), -np.inf)
    nl = np.where(neg, gamma * neg_w * (1 - margin - dist), -np.inf)

    def lse(x):
        m = x.max(1, keepdims=True)
        return (m + np.log(np.exp(x - m).sum(1, keepdims=True)))[:, 0]

    per = np.logaddexp(0, lse(pl) + lse(nl))
    return per[per > 0].mean()


def test_circle_loss_matches_numpy():
    rng = np.random.default_rng(3)
    emb = rng.standard_normal((6, 4))
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    labels = np.array([0, 0, 1, 1, 2, 2])
    np.testing.assert_allclose(L.Circle()(labels, emb).numpy(), _circle_reference(labels, emb), rtol=1e-6)
    np.testing.assert_allclose(L.circle(labels, emb, gamma=10.0, margin=0.25).numpy().shape, (6,))


@pytest.mark.parametrize("cls, kwargs", [
    (L.Hinge, {}), (L.SquaredHinge, {}), (L.CategoricalHinge, {}), (L.Poisson, {}), (L.LogCosh, {}),
    (L.CosineSimilarity, {"axis": 0}), (L.MeanAbsolutePercentageError, {}), (L.MeanSquaredLogarithmicError, {}),
    (L.BinaryFocalCrossentropy, {"gamma": 3.0, "apply_class_balancing": True}),
    (L.CategoricalFocalCrossentropy, {"alpha": 0.5}), (L.Dice, {}), (L.Tversky, {"alpha": 0.2, "beta": 0.8}),
    (L.CategoricalGeneralizedCrossEntropy, {"q": 0.3}), (L.CTC, {}), (L.Circle, {"gamma": 16.0}),
])
def test_loss_config_round_trip(cls, kwargs):
    loss = cls(**kwargs)
    config = loss.get_config()
    for k, v in kwargs.items():
        assert config[k] == v
    again = L.deserialize(L.serialize(loss))
    assert type(again) is cls and again.get_config() == config
    assert L.get(cls.__name__).__class__ is cls


def test_new_losses_are_differentiable_and_train():
    x = tf.Variable(np.array([[0.2, 0.7, 0.1], [0.5, 0.3, 0.2]]))
    y = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]])
    for loss in (L.Hinge(), L.LogCosh(), L.CategoricalFocalCrossentropy(), L.Poisson(), L.Dice(), L.Tversky(),
                 L.CosineSimilarity(), L.MeanSquaredLogarithmicError()):
        with tf.GradientTape() as tape:
            value = loss(y, x)
        g = tape.gradient(value, x)
        assert g is not None and np.all(np.isfinite(g.numpy())), type(loss).__name__
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="log_cosh")
    hist = model.fit(np.ones((8, 2), np.float32), np.ones((8, 1), np.float32), epochs=3, verbose=0)
    assert hist.history["loss"][-1] < hist.history["loss"][0]


# -- metrics: TF's documented examples ---------------------------------------------------------------

def _result(metric, *args, **kwargs):
    metric.update_state(*args, **kwargs)
    return metric.result().numpy()


def test_confusion_count_metrics():
    assert _result(M.TruePositives(), [0, 1, 1, 1], [1, 0, 1, 1]) == 2.0
    assert _result(M.FalsePositives(), [0, 1, 0, 0], [0, 0, 1, 1]) == 2.0
    assert _result(M.TrueNegatives(), [0, 1, 0, 0], [1, 1, 0, 0]) == 2.0
    assert _result(M.FalseNegatives(), [0, 1, 1, 1], [0, 1, 0, 0]) == 2.0
    m = M.TruePositives(thresholds=[0.2, 0.6])
    np.testing.assert_allclose(_result(m, [1, 1, 0], [0.5, 0.9, 0.8], sample_weight=[2.0, 1.0, 1.0]), [3.0, 1.0])
    m.reset_state()
    np.testing.assert_allclose(m.result().numpy(), [0.0, 0.0])


def test_iou_family():
    np.testing.assert_allclose(_result(M.IoU(num_classes=2, target_class_ids=[0]), [0, 0, 1, 1], [0, 1, 0, 1]),
                               1 / 3, rtol=1e-6)
    np.testing.assert_allclose(_result(M.MeanIoU(num_classes=2), [0, 0, 1, 1], [0, 1, 0, 1]), 1 / 3, rtol=1e-6)
    np.testing.assert_allclose(_result(M.MeanIoU(num_classes=2), [0, 0, 1, 1], [0, 1, 0, 1],
                                       sample_weight=[0.3, 0.3, 0.3, 0.1]), 0.23809525, rtol=1e-6)
    b = M.BinaryIoU(target_class_ids=[0, 1], threshold=0.3)
    np.testing.assert_allclose(_result(b, [0, 1, 0, 1], [0.1, 0.2, 0.4, 0.7]), 1 / 3, rtol=1e-6)
    b.reset_state()
    np.testing.assert_allclose(_result(b, [0, 1, 0, 1], [0.1, 0.2, 0.4, 0.7], sample_weight=[0.2, 0.3, 0.4, 0.1]),
                               0.17361112, rtol=1e-6)
    yt = [[0, 0, 1], [1, 0, 0], [0, 1, 0], [1, 0, 0]]
    yp = [[0.2, 0.3, 0.5], [0.1, 0.2, 0.7], [0.5, 0.3, 0.1], [0.1, 0.4, 0.5]]
    sw = [0.1, 0.2, 0.3, 0.4]
    np.testing.assert_allclose(_result(M.OneHotIoU(num_classes=3, target_class_ids=[0, 2]), yt, yp, sample_weight=sw),
                               0.07142857, rtol=1e-6)
    np.testing.assert_allclose(_result(M.OneHotMeanIoU(num_classes=3), yt, yp, sample_weight=sw), 0.047619,
                               rtol=1e-5)
    ignored = M.MeanIoU(num_classes=2, ignore_class=1)
    np.testing.assert_allclose(_result(ignored, [0, 0, 1, 1], [0, 1, 0, 1]), 0.25, rtol=1e-6)
    with pytest.raises(ValueError, match="out of range"):
        M.IoU(num_classes=2, target_class_ids=[2])


def test_fbeta_f1_r2():
    yt = np.array([[1, 1, 1], [1, 0, 0], [1, 1, 0]], np.int32)
    yp = np.array([[0.2, 0.6, 0.7], [0.2, 0.6, 0.6], [0.6, 0.8, 0.0]], np.float32)
    np.testing.assert_allclose(_result(M.FBetaScore(beta=2.0, threshold=0.5), yt, yp),
                               [0.3846154, 0.90909094, 0.8333334], rtol=1e-6)
    np.testing.assert_allclose(_result(M.F1Score(threshold=0.5), yt, yp), [0.5, 0.8, 0.6666667], rtol=1e-6)
    np.testing.assert_allclose(_result(M.F1Score(average="macro", threshold=0.5), yt, yp), np.mean([0.5, 0.8, 2 / 3]),
                               rtol=1e-6)
    # micro: pooled counts tp=4 fp=2 fn=2
    np.testing.assert_allclose(_result(M.F1Score(average="micro", threshold=0.5), yt, yp), 2 * 4 / (2 * 4 + 2 + 2),
                               rtol=1e-6)
    np.testing.assert_allclose(_result(M.F1Score(average="weighted", threshold=0.5), yt, yp),
                               (0.5 * 3 + 0.8 * 2 + 2 / 3 * 1) / 6, rtol=1e-6)
    np.testing.assert_allclose(_result(M.R2Score(), np.array([[1], [4], [3]], np.float32),
                                       np.array([[2], [4], [4]], np.float32)), 0.57142854, rtol=1e-6)
    rng = np.random.default_rng(0)
    t, p = rng.standard_normal((10, 2)), rng.standard_normal((10, 2))
    raw = 1 - ((t - p) ** 2).sum(0) / ((t - t.mean(0)) ** 2).sum(0)
    r2 = M.R2Score(class_aggregation=None, dtype="float64")
    np.testing.assert_allclose(_result(r2, t, p), raw, rtol=1e-10)
    adj = M.R2Score(num_regressors=2, dtype="float64")
    np.testing.assert_allclose(_result(adj, t, p), 1 - (1 - raw.mean()) * 9 / 7, rtol=1e-10)


def test_metrics_at_a_constraint():
    yt, yp = [0, 0, 0, 1, 1], [0, 0.3, 0.8, 0.3, 0.8]
    np.testing.assert_allclose(_result(M.SensitivityAtSpecificity(0.5), yt, yp), 0.5)
    np.testing.assert_allclose(_result(M.SensitivityAtSpecificity(0.5), yt, yp, sample_weight=[1, 1, 2, 2, 1]),
                               1 / 3, rtol=1e-6)
    np.testing.assert_allclose(_result(M.SpecificityAtSensitivity(0.5), yt, yp), 2 / 3, rtol=1e-6)
    np.testing.assert_allclose(_result(M.SpecificityAtSensitivity(0.5), yt, yp, sample_weight=[1, 1, 2, 2, 2]), 0.5)
    np.testing.assert_allclose(_result(M.PrecisionAtRecall(0.5), yt, yp), 0.5)
    np.testing.assert_allclose(_result(M.PrecisionAtRecall(0.5), yt, yp, sample_weight=[2, 2, 2, 1, 1]), 1 / 3,
                               rtol=1e-6)
    np.testing.assert_allclose(_result(M.RecallAtPrecision(0.8), [0, 0, 1, 1], [0, 0.5, 0.3, 0.9]), 0.5)
    np.testing.assert_allclose(_result(M.RecallAtPrecision(0.8), [0, 0, 1, 1], [0, 0.5, 0.3, 0.9],
                                       sample_weight=[1, 0, 0, 1]), 1.0)
    with pytest.raises(ValueError, match="recall"):
        M.PrecisionAtRecall(1.5)


def test_mean_metrics_and_correlations():
    yt, yp = [[0, 1, 0.5], [1, 1, 0.2]], [[0.1, 0.9, 0.5], [1, 0.9, 0.2]]
    np.testing.assert_allclose(_result(M.PearsonCorrelation(), yt, yp), 0.9966996338993913, rtol=1e-5)
    np.testing.assert_allclose(_result(M.ConcordanceCorrelation(), yt, yp), 0.9816320385426076, rtol=1e-5)
    np.testing.assert_allclose(M.concordance_correlation(yt, yp).numpy(), [0.97560976, 0.98765432], rtol=1e-5)
    np.testing.assert_allclose(_result(M.CosineSimilarity(axis=1), [[0.0, 1.0], [1.0, 1.0]],
                                       [[1.0, 0.0], [1.0, 1.0]]), 0.5, rtol=1e-6)
    np.testing.assert_allclose(_result(M.LogCoshError(), YT, [[1.0, 1.0], [0.0, 0.0]]), 0.108, atol=1e-3)
    np.testing.assert_allclose(_result(M.Hinge(), YT, YP), 1.3, rtol=1e-6)
    np.testing.assert_allclose(_result(M.SquaredHinge(), YT, YP), 1.86, rtol=1e-6)
    np.testing.assert_allclose(_result(M.CategoricalHinge(), YT, YP), 1.4, rtol=1e-6)
    np.testing.assert_allclose(_result(M.Poisson(), YT, [[1.0, 1.0], [0.0, 0.0]]), 0.5, rtol=1e-6)
    np.testing.assert_allclose(_result(M.KLDivergence(), [[0, 1], [0, 0]], [[0.6, 0.4], [0.4, 0.6]]), 0.458,
                               atol=1e-3)
    np.testing.assert_allclose(_result(M.MeanAbsolutePercentageError(), [[0, 1], [0, 0]], [[1, 1], [0, 0]]),
                               250000000.0, rtol=1e-6)
    np.testing.assert_allclose(_result(M.MeanSquaredLogarithmicError(), [[0, 1], [0, 0]], [[1, 1], [0, 0]]),
                               0.12011322, rtol=1e-5)
    for fn in (M.hinge, M.squared_hinge, M.categorical_hinge, M.poisson, M.huber, M.logcosh, M.mape, M.MAPE, M.msle,
               M.MSLE, M.kld, M.KLD, M.kullback_leibler_divergence, M.binary_focal_crossentropy,
               M.categorical_focal_crossentropy, M.pearson_correlation, M.MAE):
        assert fn(YT, YP).shape == (2,)
    np.testing.assert_allclose(M.top_k_categorical_accuracy([[0, 0, 1], [0, 1, 0]], [[0.1, 0.9, 0.8], [0.05, 0.95, 0]],
                                                            k=1).numpy(), [0.0, 1.0])
    np.testing.assert_allclose(M.sparse_top_k_categorical_accuracy([2, 1], [[0.1, 0.9, 0.8], [0.05, 0.95, 0]],
                                                                   k=2).numpy(), [1.0, 1.0])
    np.testing.assert_allclose(_result(M.SparseTopKCategoricalAccuracy(k=1), [2, 1],
                                       [[0.1, 0.9, 0.8], [0.05, 0.95, 0]]), 0.5)
    np.testing.assert_allclose(_result(M.RootMeanSquaredError(), [[0, 1], [0, 0]], [[1, 1], [0, 0]]), 0.5)
    np.testing.assert_allclose(_result(M.MeanMetricWrapper(M.mae, name="m"), [[0, 1]], [[1, 1]]), 0.5)


def test_auc_multi_label():
    yt = np.array([[0, 1], [1, 0], [1, 1], [0, 0], [1, 0]], np.float32)
    yp = np.array([[0.1, 0.9], [0.8, 0.3], [0.6, 0.7], [0.2, 0.4], [0.3, 0.6]], np.float32)
    multi = M.AUC(multi_label=True)
    per_label = []
    for i in range(2):
        single = M.AUC()
        per_label.append(_result(single, yt[:, i], yp[:, i]))
    np.testing.assert_allclose(_result(multi, yt, yp), np.mean(per_label), rtol=1e-6)
    weighted = M.AUC(multi_label=True, num_labels=2, label_weights=[0.75, 0.25], curve="PR")
    pr = [_result(M.AUC(curve="PR"), yt[:, i], yp[:, i]) for i in range(2)]
    np.testing.assert_allclose(_result(weighted, yt, yp), 0.75 * pr[0] + 0.25 * pr[1], rtol=1e-5)
    assert multi.true_positives.shape.as_list() == [200, 2]


@pytest.mark.parametrize("metric", [
    M.TruePositives(thresholds=[0.3, 0.7]), M.IoU(3, [0, 2], ignore_class=1), M.MeanIoU(4), M.BinaryIoU([1], 0.4),
    M.OneHotIoU(3, [1]), M.OneHotMeanIoU(3), M.FBetaScore("macro", 0.5, 0.4), M.F1Score("weighted"),
    M.R2Score("variance_weighted_average", 1), M.PrecisionAtRecall(0.3, 50), M.RecallAtPrecision(0.6),
    M.SensitivityAtSpecificity(0.2), M.SpecificityAtSensitivity(0.9, class_id=1), M.PearsonCorrelation(axis=0),
    M.ConcordanceCorrelation(), M.CosineSimilarity(axis=0), M.Hinge(), M.FalsePositives(), M.TrueNegatives(),
    M.FalseNegatives(), M.KLDivergence(), M.MeanSquaredLogarithmicError(),
])
def test_metric_config_round_trip(metric):
    again = M.deserialize(M.serialize(metric))
    assert type(again) is type(metric) and again.get_config() == metric.get_config()


def test_new_metrics_in_fit():
    model = tf.keras.Sequential([tf.keras.layers.Dense(2, activation="softmax")])
    model.compile(optimizer="adam", loss="categorical_crossentropy",
                  metrics=[M.F1Score(average="macro"), M.OneHotMeanIoU(2), M.AUC(multi_label=True), "poisson"])
    x = np.random.default_rng(0).standard_normal((16, 3)).astype(np.float32)
    y = np.eye(2, dtype=np.float32)[(x[:, 0] > 0).astype(int)]
    hist = model.fit(x, y, epochs=2, batch_size=8, verbose=0)
    for key in ("f1_score", "one_hot_mean_iou", "auc", "poisson"):
        assert np.isfinite(hist.history[key][-1]), key
