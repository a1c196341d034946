"""``tf.io``: TFRecord files, Example parsing, tensor serialization, file and image I/O.

See README "TFRecord files and tf.train.Example". Optional packages: protobuf and a CRC32C
library for TFRecord/Example (``pip install 'tfcore[tfrecord]'``), Pillow for decoding images
(``tfcore[images]``).
"""

from . import gfile
from .codec_ops import (decode_base64, decode_bmp, decode_compressed, decode_csv, decode_gif, deserialize_many_sparse,
                        encode_base64, extract_jpeg_shape, is_jpeg, serialize_many_sparse, serialize_sparse)
from .file_io import decode_raw, match_filenames_once, matching_files, read_file, write_file
from .image_codecs import decode_image, decode_jpeg, decode_png, encode_jpeg, encode_png
from .parsing_ops import (FixedLenFeature, FixedLenSequenceFeature, RaggedFeature, VarLenFeature, parse_example,
                          parse_single_example, parse_single_sequence_example)
from .tensor_serialization import parse_tensor, serialize_tensor
from .tf_record import TFRecordCompressionType, TFRecordOptions, TFRecordWriter
