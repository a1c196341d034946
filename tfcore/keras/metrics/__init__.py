"""``tf.keras.metrics``: stateful metrics and their per-sample functions, looked up by name with ``get``.

Laid out as Keras 3's ``keras/src/metrics``: ``metric.py`` (``Metric``, a ``Layer`` holding non-trainable
state), ``reduction_metrics.py`` (``Mean``, ``Sum``, ``MeanMetricWrapper``), and one module per family
(accuracy, regression, probabilistic, hinge, correlation, confusion-count, IoU, F-score metrics). The
function forms (``sparse_categorical_accuracy`` ...) return per-sample values.
"""

from .metric import (  # noqa: F401
    Metric,
)
from .reduction_metrics import (  # noqa: F401
    Reduce, Sum, Mean, MeanMetricWrapper,
)
from .accuracy_metrics import (  # noqa: F401
    accuracy, binary_accuracy, categorical_accuracy, sparse_categorical_accuracy, top_k_categorical_accuracy,
    sparse_top_k_categorical_accuracy, Accuracy, BinaryAccuracy, CategoricalAccuracy, SparseCategoricalAccuracy,
    TopKCategoricalAccuracy, SparseTopKCategoricalAccuracy,
)
from .regression_metrics import (  # noqa: F401
    mean_squared_error, mean_absolute_error, mse, MSE, mae, MAE, logcosh, mean_absolute_percentage_error, mape,
    MAPE, mean_squared_logarithmic_error, msle, MSLE, cosine_similarity, MeanSquaredError, MeanAbsoluteError,
    RootMeanSquaredError, LogCoshError, MeanAbsolutePercentageError, MeanSquaredLogarithmicError, CosineSimilarity,
    R2Score,
)
from .probabilistic_metrics import (  # noqa: F401
    binary_crossentropy, categorical_crossentropy, sparse_categorical_crossentropy, kl_divergence, poisson, kld,
    KLD, kullback_leibler_divergence, binary_focal_crossentropy, categorical_focal_crossentropy,
    BinaryCrossentropy, CategoricalCrossentropy, SparseCategoricalCrossentropy, Poisson, KLDivergence,
)
from .hinge_metrics import (  # noqa: F401
    hinge, squared_hinge, categorical_hinge, huber, Hinge, SquaredHinge, CategoricalHinge,
)
from .correlation_metrics import (  # noqa: F401
    pearson_correlation, concordance_correlation, PearsonCorrelation, ConcordanceCorrelation,
)
from .confusion_metrics import (  # noqa: F401
    Precision, Recall, AUC, TruePositives, FalsePositives, TrueNegatives, FalseNegatives, SensitivityAtSpecificity,
    SpecificityAtSensitivity, PrecisionAtRecall, RecallAtPrecision,
)
from .iou_metrics import (  # noqa: F401
    IoU, MeanIoU, BinaryIoU, OneHotIoU, OneHotMeanIoU,
)
from .f_score_metrics import (  # noqa: F401
    FBetaScore, F1Score,
)
from ..utils.object_registration import with_custom_objects

_CLASSES = {c.__name__: c for c in (
    Metric, Mean, Sum, MeanMetricWrapper, Accuracy, BinaryAccuracy, CategoricalAccuracy, SparseCategoricalAccuracy,
    TopKCategoricalAccuracy, SparseTopKCategoricalAccuracy, MeanSquaredError, MeanAbsoluteError,
    RootMeanSquaredError, BinaryCrossentropy, CategoricalCrossentropy, SparseCategoricalCrossentropy, Precision,
    Recall, AUC,
    Hinge, SquaredHinge, CategoricalHinge, Poisson, LogCoshError, KLDivergence, MeanAbsolutePercentageError,
    MeanSquaredLogarithmicError, CosineSimilarity, PearsonCorrelation, ConcordanceCorrelation, TruePositives,
    FalsePositives, TrueNegatives, FalseNegatives, IoU, MeanIoU, BinaryIoU, OneHotIoU, OneHotMeanIoU, FBetaScore,
    F1Score, R2Score, SensitivityAtSpecificity, SpecificityAtSensitivity, PrecisionAtRecall, RecallAtPrecision)}
_FUNCTIONS = {
    "accuracy": accuracy, "binary_accuracy": binary_accuracy, "categorical_accuracy": categorical_accuracy,
    "sparse_categorical_accuracy": sparse_categorical_accuracy,
    "top_k_categorical_accuracy": top_k_categorical_accuracy,
    "sparse_top_k_categorical_accuracy": sparse_top_k_categorical_accuracy,
    "mean_squared_error": mean_squared_error, "mse": mean_squared_error, "MSE": mean_squared_error,
    "mean_absolute_error": mean_absolute_error, "mae": mean_absolute_error, "MAE": mean_absolute_error,
    "binary_crossentropy": binary_crossentropy, "categorical_crossentropy": categorical_crossentropy,
    "sparse_categorical_crossentropy": sparse_categorical_crossentropy, "kl_divergence": kl_divergence,

    "hinge": hinge, "squared_hinge": squared_hinge, "categorical_hinge": categorical_hinge, "poisson": poisson,
    "huber": huber, "logcosh": logcosh, "mape": mape, "MAPE": mape, "msle": msle, "MSLE": msle,
    "mean_absolute_percentage_error": mape, "mean_squared_logarithmic_error": msle, "kld": kld, "KLD": kld,
    "kullback_leibler_divergence": kld, "binary_focal_crossentropy": binary_focal_crossentropy,
    "categorical_focal_crossentropy": categorical_focal_crossentropy, "pearson_correlation": pearson_correlation,
    "concordance_correlation": concordance_correlation, "cosine_similarity": cosine_similarity,
}


def serialize(metric):
    if isinstance(metric, Metric):
        return {"class_name": type(metric).__name__, "config": metric.get_config()}
    return metric.__name__


def deserialize(config, custom_objects=None):
    custom_objects = with_custom_objects(config, custom_objects)
    if isinstance(config, dict):
        cls = {**_CLASSES, **(custom_objects or {})}.get(config["class_name"])
        if cls is None:
            raise ValueError(f"Unknown metric function: '{config['class_name']}'.")
        return cls.from_config(config["config"])
    table = {**_FUNCTIONS, **_CLASSES, **(custom_objects or {})}
    if config not in table:
        raise ValueError(f"Unknown metric function: '{config}'. Please ensure you are using a "
                         "`keras.utils.custom_object_scope` and that this object is included in the scope.")
    obj = table[config]
    return obj() if isinstance(obj, type) else obj


def get(identifier):
    """A metric function or object from a name ('accuracy', 'mse', 'AUC', ...), a dict or a callable."""
    if isinstance(identifier, str | dict):
        return deserialize(identifier)
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret metric identifier: {identifier}")
