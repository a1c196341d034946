"""``tf.distribute.experimental``: communication options of MultiWorkerMirroredStrategy (and the deprecated
spellings TF still exports)."""

from .collective_all_reduce_strategy import CollectiveCommunication, CommunicationImplementation, CommunicationOptions
from .collective_all_reduce_strategy import _ExperimentalMultiWorkerMirroredStrategy as MultiWorkerMirroredStrategy

__all__ = ["CollectiveCommunication", "CommunicationImplementation", "CommunicationOptions",
           "MultiWorkerMirroredStrategy"]
