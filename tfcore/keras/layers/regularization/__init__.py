"""Regularization layers (Keras 3's ``keras/layers/regularization``): dropout, noise, spatial
dropout, activity regularization."""

from .dropout import Dropout
from .noise import AlphaDropout, GaussianDropout, GaussianNoise
from .spatial_dropout import SpatialDropout1D, SpatialDropout2D, SpatialDropout3D
from .activity_regularization import ActivityRegularization
