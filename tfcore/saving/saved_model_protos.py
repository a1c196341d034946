"""TF's SavedModel protos: TensorBoard's compiled MetaGraphDef, SavedObjectGraph, FunctionDef, ...

TensorBoard ships every message a SavedModel uses except the two-field ``SavedModel`` wrapper
(``saved_model_schema_version = 1``, ``repeated MetaGraphDef meta_graphs = 2``), which is encoded
and decoded here by hand with protobuf's wire format.
"""

from ..framework.errors import DataLossError
from ..io import _deps
from ._protos import require


def pb(name):
    """``tensorboard.compat.proto.<name>`` (``'meta_graph_pb2'``, ``'saved_object_graph_pb2'``, ...)."""

    require()
    return _deps.tensorboard_proto(name)


def _varint(n):
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def encode_saved_model(meta_graphs, schema_version=1):
    out = bytearray(b"\x08" + _varint(schema_version))
    for mg in meta_graphs:
        raw = mg.SerializeToString()
        out += b"\x12" + _varint(len(raw)) + raw
    return bytes(out)


def decode_saved_model(data, path):
    """``(schema_version, [MetaGraphDef])`` from ``saved_model.pb`` bytes."""
    MetaGraphDef = pb("meta_graph_pb2").MetaGraphDef
    pos, version, metas = 0, 0, []

    def varint():
        nonlocal pos
        result = shift = 0
        while True:
            if pos >= len(data):
                raise DataLossError(f"Truncated SavedModel file {path}")
            b = data[pos]
            pos += 1
            result |= (b & 0x7F) << shift
            if b < 0x80:
                return result
            shift += 7

    while pos < len(data):
        tag = varint()
        field, wire = tag >> 3, tag & 7
        if wire == 0:
            value = varint()
            if field == 1:
                version = value
        elif wire == 2:
            n = varint()
            if pos + n > len(data):
                raise DataLossError(f"Truncated SavedModel file {path}")
            chunk = data[pos:pos + n]
            pos += n
            if field == 2:
                try:
                    metas.append(MetaGraphDef.FromString(chunk))
                except Exception as e:  # protobuf DecodeError
                    raise DataLossError(f"Corrupted SavedModel file {path}: {e}") from e
        elif wire == 5:
            pos += 4
        elif wire == 1:
            pos += 8
        else:
            raise DataLossError(f"Corrupted SavedModel file {path}: bad wire type {wire}")
    if not metas:
        raise DataLossError(f"SavedModel file {path} holds no MetaGraphDef")
    return version, metas
