"""TF's Example, Feature, SequenceExample and TensorProto messages, wire-compatible with TensorFlow.

TensorBoard ships TF's event and summary protos but not ``example.proto``/``feature.proto``, so
these messages are defined here from TF's field numbers and types (``tensorflow/core/example/*.proto``
and ``tensor.proto``/``tensor_shape.proto``) in a private protobuf descriptor pool: the classes are
real protobuf messages (``SerializeToString``, ``FromString``, text format) and never clash with
TensorFlow's or TensorBoard's own registrations when those are imported in the same process.
TensorProto omits only ``resource_handle_val`` (14) and ``variant_val`` (15); protobuf keeps such
fields as unknown fields.
"""

from . import _deps

_TYPES = {"double": 1, "float": 2, "int64": 3, "uint64": 4, "int32": 5, "bool": 8, "string": 9, "message": 11,
          "bytes": 12, "uint32": 13}

# message -> [(field, number, type, repeated, message type or None, oneof)]
_MESSAGES = {
    "BytesList": [("value", 1, "bytes", True, None, None)],
    "FloatList": [("value", 1, "float", True, None, None)],
    "Int64List": [("value", 1, "int64", True, None, None)],
    "Feature": [("bytes_list", 1, "message", False, "BytesList", "kind"),
                ("float_list", 2, "message", False, "FloatList", "kind"),
                ("int64_list", 3, "message", False, "Int64List", "kind")],
    "Features": [("feature", 1, "map", True, "Feature", None)],
    "FeatureList": [("feature", 1, "message", True, "Feature", None)],
    "FeatureLists": [("feature_list", 1, "map", True, "FeatureList", None)],
    "Example": [("features", 1, "message", False, "Features", None)],
    "SequenceExample": [("context", 1, "message", False, "Features", None),
                        ("feature_lists", 2, "message", False, "FeatureLists", None)],
    "TensorShapeProto": [("dim", 2, "message", True, "TensorShapeProto.Dim", None),
                         ("unknown_rank", 3, "bool", False, None, None)],
    "TensorShapeProto.Dim": [("size", 1, "int64", False, None, None), ("name", 2, "string", False, None, None)],
    "TensorProto": [("dtype", 1, "int32", False, None, None),
                    ("tensor_shape", 2, "message", False, "TensorShapeProto", None),
                    ("version_number", 3, "int32", False, None, None),
                    ("tensor_content", 4, "bytes", False, None, None),
                    ("float_val", 5, "float", True, None, None),
                    ("double_val", 6, "double", True, None, None),
                    ("int_val", 7, "int32", True, None, None),
                    ("string_val", 8, "bytes", True, None, None),
                    ("scomplex_val", 9, "float", True, None, None),
                    ("int64_val", 10, "int64", True, None, None),
                    ("bool_val", 11, "bool", True, None, None),
                    ("dcomplex_val", 12, "double", True, None, None),
                    ("half_val", 13, "int32", True, None, None),
                    ("uint32_val", 16, "uint32", True, None, None),
                    ("uint64_val", 17, "uint64", True, None, None),
                    ("float8_val", 18, "bytes", False, None, None)],
}

_classes = {}


def _build():
    descriptor_pb2, descriptor_pool, message_factory = _deps.protobuf_modules()
    fdp = descriptor_pb2.FileDescriptorProto(name="tfcore/tensorflow_example_and_tensor.proto",
                                             package="tensorflow", syntax="proto3")
    protos = {}
    for full in _MESSAGES:
        if "." in full:
            outer, inner = full.split(".")
            protos[full] = protos[outer].nested_type.add(name=inner)
        else:
            protos[full] = fdp.message_type.add(name=full)
    for full, fields in _MESSAGES.items():
        m = protos[full]
        oneofs = {}
        for name, number, kind, repeated, msg, oneof in fields:
            f = m.field.add(name=name, number=number, json_name=name)
            f.label = 3 if repeated else 1
            if kind == "map":
                entry = m.nested_type.add(name=name[0].upper() + name[1:].replace("_l", "L") + "Entry")
                entry.options.map_entry = True
                entry.field.add(name="key", number=1, label=1, type=_TYPES["string"], json_name="key")
                entry.field.add(name="value", number=2, label=1, type=_TYPES["message"], json_name="value",
                                type_name=f".tensorflow.{msg}")
                f.type = _TYPES["message"]
                f.type_name = f".tensorflow.{full}.{entry.name}"
            else:
                f.type = _TYPES[kind]
                if msg:
                    f.type_name = f".tensorflow.{msg}"
            if oneof is not None:
                if oneof not in oneofs:
                    oneofs[oneof] = len(m.oneof_decl)
                    m.oneof_decl.add(name=oneof)
                f.oneof_index = oneofs[oneof]
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    for full in _MESSAGES:
        cls = message_factory.GetMessageClass(pool.FindMessageTypeByName("tensorflow." + full))
        _classes[full] = cls


def message_class(name):
    """The protobuf class of ``tensorflow.<name>`` (``'Example'``, ``'TensorProto'``, ...)."""
    if not _classes:
        _build()
    return _classes[name]
