"""TF's checkpoint protos: tensorboard's compiled TrackableObjectGraph plus the few messages it lacks.

TensorBoard ships ``trackable_object_graph.proto``, ``saved_object_graph.proto`` and
``meta_graph.proto`` compiled; it does not ship ``tensor_bundle.proto`` (the ``.index`` entries) or
``checkpoint_state.proto`` (the ``checkpoint`` text file). Those are defined here with TF's field
numbers and wire types in a private descriptor pool, so they never clash with TensorFlow's own
registrations in the same process. ``BundleEntryProto.slices`` (partitioned variables) is left
out; protobuf keeps it as an unknown field.
"""

from ..io import _deps

# message -> [(field, number, type, label)] ; type is a FieldDescriptorProto type number or a message name
_OPTIONAL, _REPEATED = 1, 3
_MESSAGES = {
    "VersionDef": [("producer", 1, 5, _OPTIONAL), ("min_consumer", 2, 5, _OPTIONAL),
                   ("bad_consumers", 3, 5, _REPEATED)],
    "TensorShapeProto": [("dim", 2, "TensorShapeProto.Dim", _REPEATED), ("unknown_rank", 3, 8, _OPTIONAL)],
    "TensorShapeProto.Dim": [("size", 1, 3, _OPTIONAL), ("name", 2, 9, _OPTIONAL)],
    # endianness is an enum in TF (LITTLE = 0, BIG = 1); an int32 has the same wire format
    "BundleHeaderProto": [("num_shards", 1, 5, _OPTIONAL), ("endianness", 2, 5, _OPTIONAL),
                          ("version", 3, "VersionDef", _OPTIONAL)],
    # dtype is TF's DataType enum (int32 on the wire); crc32c is fixed32 (type 7)
    "BundleEntryProto": [("dtype", 1, 5, _OPTIONAL), ("shape", 2, "TensorShapeProto", _OPTIONAL),
                         ("shard_id", 3, 5, _OPTIONAL), ("offset", 4, 3, _OPTIONAL), ("size", 5, 3, _OPTIONAL),
                         ("crc32c", 6, 7, _OPTIONAL)],
    "CheckpointState": [("model_checkpoint_path", 1, 9, _OPTIONAL), ("all_model_checkpoint_paths", 2, 9, _REPEATED),
                        ("all_model_checkpoint_timestamps", 3, 1, _REPEATED),
                        ("last_preserved_timestamp", 4, 1, _OPTIONAL)],
}

_classes = {}
_checked = [False]


def require():
    """Import the optional packages checkpoints and SavedModels need, or raise ImportError naming the extra."""
    if _checked[0]:
        return
    missing = []
    for module, package in (("google.protobuf", "protobuf"), ("tensorboard.compat.proto.trackable_object_graph_pb2",
                                                              "tensorboard")):
        try:
            __import__(module)
        except ImportError:
            missing.append(package)
    try:
        _deps.crc32c_value()
    except ImportError:
        missing.append("google-crc32c")
    if missing:
        raise ImportError(f"Checkpoints and SavedModels need {', '.join(missing)}: pip install 'tfcore[checkpoint]' "
                          f"(or pip install {' '.join(missing)})")
    _checked[0] = True


def _build():
    descriptor_pb2, descriptor_pool, message_factory = _deps.protobuf_modules()
    fdp = descriptor_pb2.FileDescriptorProto(name="tfcore/tensorflow_checkpoint.proto", package="tensorflow",
                                             syntax="proto3")
    protos = {}
    for full in _MESSAGES:
        if "." in full:
            outer, inner = full.split(".")
            protos[full] = protos[outer].nested_type.add(name=inner)
        else:
            protos[full] = fdp.message_type.add(name=full)
    for full, fields in _MESSAGES.items():
        for name, number, kind, label in fields:
            f = protos[full].field.add(name=name, number=number, json_name=name, label=label)
            if isinstance(kind, str):
                f.type = 11
                f.type_name = f".tensorflow.{kind}"
            else:
                f.type = kind
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    for full in _MESSAGES:
        _classes[full] = message_factory.GetMessageClass(pool.FindMessageTypeByName("tensorflow." + full))


def message_class(name):
    """The class of ``tensorflow.<name>`` (``'BundleEntryProto'``, ``'CheckpointState'``, ...)."""
    if not _classes:
        _build()
    return _classes[name]


def trackable_object_graph():
    """``TrackableObjectGraph`` as TensorBoard ships it (``tensorboard.compat.proto``)."""
    return _deps.tensorboard_proto("trackable_object_graph_pb2").TrackableObjectGraph


def text_format():
    _deps.protobuf_modules()
    from google.protobuf import text_format as tf_

    return tf_
