"""Seeded random numbers equal TensorFlow 2.21's, bit for bit (TF's Philox4x32-10 and distributions).

Every expected value below was printed by TensorFlow 2.21.0 (tensorflow-cpu, Linux x86-64) for the
same call, with ``.numpy().tolist()``; floats are compared exactly.
"""

import numpy as np
import pytest

import tfcore as tf
from tfcore.backend import native_cpu
from tfcore.ops import philox

SEED = [1, 2]


def setup_function():
    tf.random.set_seed(None)


def teardown_function():
    tf.random.set_seed(None)


def _list(t):
    return t.numpy().tolist()


def test_stateless_uniform_float32_float64_and_ints():
    assert _list(tf.random.stateless_uniform([5], seed=SEED)) == [
        0.8440604209899902, 0.19204533100128174, 0.9962232112884521, 0.16038739681243896, 0.27199018001556396]
    assert _list(tf.random.stateless_uniform([3], seed=SEED, dtype=tf.float64)) == [
        0.7524837538451801, 0.9697857725627486, 0.17592233912897481]
    assert _list(tf.random.stateless_uniform([5], seed=SEED, minval=-3, maxval=10, dtype=tf.int32)) == [
        7, -3, -2, -2, 6]
    assert _list(tf.random.stateless_uniform([5], seed=SEED, minval=-3, maxval=10, dtype=tf.int64)) == [
        7, 7, -3, -2, 5]
    assert _list(tf.random.stateless_uniform([3], seed=SEED, minval=None, maxval=None, dtype=tf.int64)) == [
        7464880146280614444, 1591045637757961278, -1057468755545501549]


def test_stateless_normal_and_truncated_normal():
    assert _list(tf.random.stateless_normal([5], seed=SEED)) == [
        0.544110119342804, 0.20738030970096588, 0.0735643208026886, 0.04643455147743225, -1.301589846611023]
    assert _list(tf.random.stateless_normal([3], seed=SEED, dtype=tf.float64)) == [
        -0.1423118100189212, 0.7406072461585091, -1.469047669443883]
    # the fifth normal (-1.30) is kept; the truncated op's second group starts 256 blocks on
    assert _list(tf.random.stateless_truncated_normal([5], seed=SEED)) == [
        0.544110119342804, 0.20738030970096588, 0.0735643208026886, 0.04643455147743225, 0.16820591688156128]


def test_stateless_split_and_fold_in():
    assert _list(tf.random.experimental.stateless_split(SEED, 3)) == [
        [1105988140, 1738052849], [-335576002, 370444179], [10670227, -246211131]]
    assert _list(tf.random.experimental.stateless_fold_in(SEED, 5)) == [1105988140, 5]
    assert _list(tf.random.split(SEED, 3)) == _list(tf.random.experimental.stateless_split(SEED, 3))


def test_stateless_seed_errors_name_the_op_and_shape():
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"StatelessRandomNormalV2: seed must have shape \[2\]"):
        tf.random.stateless_normal([2], seed=[1, 2, 3])
    with pytest.raises(ValueError, match="must be both None or not None"):
        tf.random.stateless_uniform([2], seed=SEED, minval=None, maxval=5, dtype=tf.int32)


def test_generator_values_and_counter_follow_tf():
    g = tf.random.Generator.from_seed(1)
    assert _list(g.state) == [1, 0, 0]
    assert _list(g.normal([3])) == [0.4384227395057678, -0.5343984365463257, -0.07710261642932892]
    assert _list(g.state) == [769, 0, 0]
    assert _list(g.normal([5])) == [-0.8393225073814392, 0.16036783158779144, -0.8617845773696899,
                                    -1.1993176937103271, -0.2926735579967499]
    assert _list(g.uniform([2])) == [0.5771974325180054, 0.18270564079284668]
    assert _list(g.truncated_normal([2])) == [-0.7279053330421448, -1.6161478757858276]
    assert _list(g.uniform_full_int([2], tf.int64)) == [3061938510242338695, 6766078197126147373]
    assert _list(g.state) == [3585, 0, 0]
    assert _list(g.make_seeds(2)) == [[-6994029665891088295, 3228980973018664199], [0, 0]]
    assert [_list(s.state) for s in g.split(2)] == [[0, 0, 8645169672042352723], [0, 0, 1057656798894713629]]
    assert _list(g.state) == [4609, 0, 0]
    g.skip(10)
    assert _list(g.state) == [7169, 0, 0]
    assert _list(tf.random.create_rng_state(1234, "philox")) == [1234, 0, 0]
    g.reset_from_seed(1)
    assert _list(g.normal([3])) == [0.4384227395057678, -0.5343984365463257, -0.07710261642932892]


def test_generator_in_tf_function_draws_the_eager_stream():
    g, h = tf.random.Generator.from_seed(1), tf.random.Generator.from_seed(1)
    f = tf.function(lambda: g.normal([3]))
    assert _list(f()) == _list(h.normal([3]))
    assert _list(f()) == _list(h.normal([3]))
    assert _list(g.state) == _list(h.state) == [1537, 0, 0]


def test_legacy_seeded_ops_follow_tf_guarded_philox():
    tf.random.set_seed(5)
    assert _list(tf.random.uniform([3])) == [0.6263930797576904, 0.5298432111740112, 0.7584571838378906]
    assert _list(tf.random.uniform([3])) == [0.7017074823379517, 0.043367862701416016, 0.5604572296142578]
    assert _list(tf.random.normal([2], seed=3)) == [-1.4616987705230713, -0.5901871919631958]
    assert _list(tf.random.normal([2], seed=3)) == [-1.161547303199768, -0.12165670096874237]


@pytest.mark.skipif(native_cpu.library() is None, reason="needs the native CPU kernels (a C++ compiler): "
                    "NumPy's float math differs from glibc's in the last bit now and then")
def test_box_muller_equals_glibc_on_many_values():
    # TF's normals are glibc's logf/sincosf; a float64 evaluation rounded to float32 differs in ~1.5% of them.
    words = philox.key_counter_from_seed(7, -3).blocks(50000).reshape(-1)
    f0, f1 = philox.box_muller_float(words[0::2], words[1::2])
    import ctypes
    import math

    libm = ctypes.CDLL("libm.so.6")
    for fn in ("logf", "sinf", "cosf"):
        getattr(libm, fn).restype, getattr(libm, fn).argtypes = ctypes.c_float, [ctypes.c_float]
    for i in range(0, 100000, 997):
        u1 = max(philox.uint32_to_float(words[2 * i]), np.float32(1e-7))
        v1 = np.float32(2.0 * math.pi * float(philox.uint32_to_float(words[2 * i + 1])))
        u2 = np.float32(math.sqrt(np.float32(-2.0) * np.float32(libm.logf(u1))))
        assert f0[i] == np.float32(np.float32(libm.sinf(v1)) * u2)
        assert f1[i] == np.float32(np.float32(libm.cosf(v1)) * u2)


def test_native_philox_blocks_equal_the_numpy_reference():
    stream = philox.PhiloxStream((1 << 64) - 5, (1 << 64) - 3 | 7 << 64)  # the low counter word carries over
    offsets = np.concatenate([np.arange(300, dtype=np.uint64), np.array([2**63, 2**64 - 1], np.uint64)])
    np.testing.assert_array_equal(stream.blocks_at(offsets), stream.blocks_at_numpy(offsets))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_native_truncated_normal_equals_the_numpy_loop(dtype):
    stream = philox.key_counter_from_seed(3, 4)
    for n in (1, 5, 4099):
        np.testing.assert_array_equal(philox.fill(stream, n, "truncated_normal", dtype),
                                      philox._truncated(stream, n, dtype, native=False))


def test_random_shuffle_gives_tfs_permutations():
    tf.random.set_seed(3)
    assert _list(tf.random.shuffle(tf.range(10), seed=1)) == [9, 5, 1, 7, 8, 4, 2, 3, 6, 0]
    assert _list(tf.random.shuffle(tf.range(10), seed=1)) == [1, 0, 5, 8, 2, 7, 3, 9, 6, 4]
    assert _list(tf.random.shuffle(tf.range(7), seed=2)) == [6, 2, 0, 1, 4, 5, 3]
    tf.random.set_seed(3)  # restarts the op's stream (TF: a new kernel)
    assert _list(tf.random.shuffle(tf.range(5), seed=1)) == [4, 0, 1, 2, 3]
    assert _list(tf.random.shuffle(tf.range(5), seed=1)) == [2, 4, 1, 3, 0]
