"""Optional libraries behind tf.io, tf.train.Example and tf.summary, imported on first use.

The base install is NumPy only; TFRecord checksums need a CRC32C library, protocol buffers need
``protobuf``, event files need TensorBoard's compiled protos and images need Pillow. Each import
error names the extra that installs the missing package.
"""

import importlib


def _need(module, package, extra, what):
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise ImportError(f"{what} needs the '{package}' package: pip install 'tfcore[{extra}]' "
                          f"(or pip install {package})") from e


def crc32c_value():
    """The function ``bytes -> CRC32C`` (google-crc32c, else the crc32c package)."""
    try:
        import google_crc32c

        return google_crc32c.value
    except ImportError:
        pass
    try:
        import crc32c

        return crc32c.crc32c
    except ImportError as e:
        raise ImportError("TFRecord files need a CRC32C library: pip install 'tfcore[tfrecord]' "
                          "(or pip install google-crc32c)") from e


def protobuf_modules():
    """``(descriptor_pb2, descriptor_pool, message_factory)`` from protobuf."""
    _need("google.protobuf", "protobuf", "tfrecord", "tf.train.Example and tf.io.serialize_tensor")
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

    return descriptor_pb2, descriptor_pool, message_factory


def tensorboard_proto(name):
    """``tensorboard.compat.proto.<name>`` (TF's event/summary/tensor protos as TensorBoard ships them)."""
    return _need(f"tensorboard.compat.proto.{name}", "tensorboard", "tensorboard", "tf.summary")


def pil_image():
    """``PIL.Image``."""
    return _need("PIL.Image", "pillow", "images", "Decoding images")
