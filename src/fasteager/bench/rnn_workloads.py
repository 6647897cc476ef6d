"""Recurrent workloads: an LSTM training step (the issue's batch 64, 28 steps, 128 units).

The model reads 28 rows of 28 features (MNIST row by row, as examples/lstm_mnist.py):
LSTM(128) -> Dense(10) on the last state, sparse cross-entropy on logits, one Adam step.
fasteager's entry is TensorFlow-style Keras code (the fused LSTM kernel); PyTorch's is
``torch.nn.LSTM`` + ``Linear`` with the same shapes.
"""
from .model_workloads import _adam, _fasteager, _keras_step
from .workloads import _torch, workload

BATCH, STEPS, FEATURES, UNITS = 64, 28, 28, 128

lstm = workload("lstm_train_step",
                "LSTM(128) over 28 steps of 28 features, batch 64, Dense(10), Adam step")


def _lstm_layers(tf):
    return [tf.keras.layers.LSTM(UNITS), tf.keras.layers.Dense(10)]


@lstm.entry("fasteager")
def _(quick):
    return _keras_step(_fasteager(), _lstm_layers, _adam, (BATCH, STEPS, FEATURES))


@lstm.entry("torch")
def _(quick):
    torch = _torch()

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = torch.nn.LSTM(FEATURES, UNITS, batch_first=True)
            self.dense = torch.nn.Linear(UNITS, 10)

        def forward(self, x):
            _, (h, _) = self.lstm(x)
            return self.dense(h[0])

    torch.manual_seed(0)
    model = Model()
    opt = torch.optim.Adam(model.parameters())
    loss_fn = torch.nn.CrossEntropyLoss()
    x = torch.rand(BATCH, STEPS, FEATURES)
    y = torch.randint(0, 10, (BATCH,))

    def run():
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
    return run
