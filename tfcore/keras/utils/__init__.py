"""``tf.keras.utils``: to_categorical, normalize, Progbar, get_file, set_random_seed, image_dataset_from_directory."""

from .data_utils import get_file
from .image_dataset import image_dataset_from_directory
from .np_utils import normalize, to_categorical
from .progbar import Progbar
from .tf_utils import set_random_seed
