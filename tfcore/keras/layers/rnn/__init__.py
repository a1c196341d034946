"""Recurrent layers (Keras 3's ``keras/layers/rnn``): cells, the ``RNN`` loop, SimpleRNN/LSTM/GRU, stacked cells
and ConvLSTMs."""

from .rnn import GRU, GRUCell, LSTM, LSTMCell, RNN, SimpleRNN, SimpleRNNCell
from .stacked_rnn_cells import StackedRNNCells
from .conv_lstm import ConvLSTM1D, ConvLSTM2D, ConvLSTM3D
