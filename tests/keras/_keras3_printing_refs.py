"""What Keras 3.15.1 printed, recorded for tests/keras/test_keras3_printing.py (see its
docstring for how). Long lines are the recorded text itself."""
# ruff: noqa: E501

KERAS3_PROGBAR = {
    # (Progbar arguments, [(seconds since start, current, values, finalize)], output)
    "basic": (dict(target=5), [(0.4, 1, [("loss", 0.5)], None), (0.5, 2, [("loss", 0.3)], None),
                               (2.5, 3, [("loss", 0.2), ("acc", 0.0001)], None),
                               (3.0, 5, [("loss", 0.1)], None)]),
    "stateful": (dict(target=1200, stateful_metrics=["loss"]),
                 [(1.0, 1, [("loss", 0.5), ("mae", 2.0)], None),
                  (70.0, 100, [("loss", 0.4), ("mae", 1.0)], None),
                  (4000.0, 1000, [("loss", -0.2), ("mae", 1.0)], None),
                  (4100.0, 1200, [("loss", 0.1), ("mae", 1.0)], True)]),
    "unknown": (dict(target=None, unit_name="sample"),
                [(0.0005, 1, [("x", 3)], None), (0.2, 7, [("x", 1)], None),
                 (0.3, 7, [("x", 1)], True)]),
    "verbose2": (dict(target=40, verbose=2, stateless_metrics=set()),
                 [(1.0, 1, [("loss", 0.5)], None),
                  (3.0, 40, [("loss", -0.5), ("acc", 0.75)], True)]),
    "interval": (dict(target=10, interval=1.0),
                 [(0.1, 1, [("l", 1.0)], None), (0.5, 2, [("l", 1.0)], None),
                  (1.2, 3, [("l", 4.0)], None), (1.3, 10, [("l", 1.0)], None)]),
    "zero_target": (dict(target=0), [(0.1, 0, None, True)]),
}

KERAS3_PROGBAR_OUTPUT = {
    'basic': ('\r\x1b[1m1/5\x1b[0m \x1b[32m━━━━\x1b[0m\x1b[37m━━━━━━━━━━━━━━━━\x1b[0m \x1b[1m1s\x1b[0m 400ms/step - loss: 0.5000'
        + "\b" * 53
        + '\r\x1b[1m2/5\x1b[0m \x1b[32m━━━━━━━━\x1b[0m\x1b[37m━━━━━━━━━━━━\x1b[0m \x1b[1m0s\x1b[0m 100ms/step - loss: 0.4000'
        + "\b" * 53
        + '\r\x1b[1m3/5\x1b[0m \x1b[32m━━━━━━━━━━━━\x1b[0m\x1b[37m━━━━━━━━\x1b[0m \x1b[1m2s\x1b[0m 1s/step - loss: 0.3333 - acc: 1.0000e-04'
        + "\b" * 68
        + '\r\x1b[1m5/5\x1b[0m \x1b[32m━━━━━━━━━━━━━━━━━━━━\x1b[0m\x1b[37m\x1b[0m \x1b[1m3s\x1b[0m 650ms/step - loss: 0.1000 - acc: 1.0000e-04\n'),
    'stateful': ('\r\x1b[1m   1/1200\x1b[0m \x1b[37m━━━━━━━━━━━━━━━━━━━━\x1b[0m \x1b[1m19:59\x1b[0m 1s/step - loss: 0.5000 - mae: 2.0000'
        + "\b" * 73
        + '\r\x1b[1m 100/1200\x1b[0m \x1b[32m━\x1b[0m\x1b[37m━━━━━━━━━━━━━━━━━━━\x1b[0m \x1b[1m12:46\x1b[0m 697ms/step - loss: 0.4000 - mae: 1.0100'
        + "\b" * 76
        + '\r\x1b[1m1000/1200\x1b[0m \x1b[32m━━━━━━━━━━━━━━━━\x1b[0m\x1b[37m━━━━\x1b[0m \x1b[1m13:20\x1b[0m 4s/step - loss: -0.2000 - mae: 1.0010  '
        + "\b" * 74
        + '\r\x1b[1m1200/1200\x1b[0m \x1b[32m━━━━━━━━━━━━━━━━━━━━\x1b[0m\x1b[37m\x1b[0m \x1b[1m4100s\x1b[0m 3s/step - loss: 0.1000 - mae: 1.0000 \n'),
    'unknown': ('\r      1/Unknown \x1b[1m0s\x1b[0m 500us/sample - x: 3.0000'
        + "\b" * 43
        + '\r      7/Unknown \x1b[1m0s\x1b[0m 33ms/sample - x: 1.2857 '
        + "\b" * 42
        + '\r      7/Unknown \x1b[1m0s\x1b[0m 50ms/sample - x: 1.0000\n'),
    'verbose2': ('40/40 - 3s - 51ms/step - loss: -5.0000e-01 - acc: 0.7500\n'),
    'interval': ('\r\x1b[1m 1/10\x1b[0m \x1b[32m━━\x1b[0m\x1b[37m━━━━━━━━━━━━━━━━━━\x1b[0m \x1b[1m0s\x1b[0m 100ms/step - l: 1.0000'
        + "\b" * 52
        + '\r\x1b[1m 3/10\x1b[0m \x1b[32m━━━━━━\x1b[0m\x1b[37m━━━━━━━━━━━━━━\x1b[0m \x1b[1m3s\x1b[0m 550ms/step - l: 2.0000'
        + "\b" * 52
        + '\r\x1b[1m10/10\x1b[0m \x1b[32m━━━━━━━━━━━━━━━━━━━━\x1b[0m\x1b[37m\x1b[0m \x1b[1m1s\x1b[0m 133ms/step - l: 1.0000\n'),
    'zero_target': ('\r      0/Unknown \x1b[1m0s\x1b[0m 0s/step\n'),
}

# fit/evaluate/predict output, times and values masked by test_keras3_printing._mask
KERAS3_LOOPS = {
    'fit2_v1': 'Epoch 1/2\n\r\x1b[1m1/3\x1b[0m \x1b[32m━━━━━━\x1b[0m\x1b[37m━━━━━━━━━━━━━━\x1b[0m <T> <S>/step - accuracy: <V> - loss: <V><BS>\r\x1b[1m3/3\x1b[0m \x1b[32m━━━━━━━━━━━━━━━━━━━━\x1b[0m\x1b[37m\x1b[0m <T> <S>/step - accuracy: <V> - loss: <V> - val_accuracy: <V> - val_loss: <V>\nEpoch 2/2\n\r\x1b[1m1/3\x1b[0m \x1b[32m━━━━━━\x1b[0m\x1b[37m━━━━━━━━━━━━━━\x1b[0m <T> <S>/step - accuracy: <V> - loss: <V><BS>\r\x1b[1m3/3\x1b[0m \x1b[32m━━━━━━━━━━━━━━━━━━━━\x1b[0m\x1b[37m\x1b[0m <T> <S>/step - accuracy: <V> - loss: <V> - val_accuracy: <V> - val_loss: <V>\n',
    'fit1_v1': '\r\x1b[1m1/3\x1b[0m \x1b[32m━━━━━━\x1b[0m\x1b[37m━━━━━━━━━━━━━━\x1b[0m <T> <S>/step - accuracy: <V> - loss: <V><BS>\r\x1b[1m3/3\x1b[0m \x1b[32m━━━━━━━━━━━━━━━━━━━━\x1b[0m\x1b[37m\x1b[0m <T> <S>/step - accuracy: <V> - loss: <V>\n',
    'evaluate_v1': '\r\x1b[1m1/1\x1b[0m \x1b[32m━━━━━━━━━━━━━━━━━━━━\x1b[0m\x1b[37m\x1b[0m <T> <S>/step - accuracy: <V> - loss: <V><BS>\r\x1b[1m1/1\x1b[0m \x1b[32m━━━━━━━━━━━━━━━━━━━━\x1b[0m\x1b[37m\x1b[0m <T> <S>/step - accuracy: <V> - loss: <V>\n',
    'predict_v1': '\r\x1b[1m1/1\x1b[0m \x1b[32m━━━━━━━━━━━━━━━━━━━━\x1b[0m\x1b[37m\x1b[0m <T> <S>/step<BS>\r\x1b[1m1/1\x1b[0m \x1b[32m━━━━━━━━━━━━━━━━━━━━\x1b[0m\x1b[37m\x1b[0m <T> <S>/step\n',
    'fit2_v2': 'Epoch 1/2\n3/3 - <T> - <S>/step - accuracy: <V> - loss: <V> - val_accuracy: <V> - val_loss: <V>\nEpoch 2/2\n3/3 - <T> - <S>/step - accuracy: <V> - loss: <V> - val_accuracy: <V> - val_loss: <V>\n',
    'fit1_v2': '3/3 - <T> - <S>/step - accuracy: <V> - loss: <V>\n',
    'evaluate_v2': '1/1 - <T> - <S>/step - accuracy: <V> - loss: <V>\n',
    'predict_v2': '1/1 - <T> - <S>/step\n',
}

KERAS3_SUMMARIES = {
    'seq': (
        'Model: "my_model"\n'
        '┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓\n'
        '┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃\n'
        '┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩\n'
        '│ hidden_layer_with_a_rather_lon… │ (None, 16)             │           144 │\n'
        '│ (Dense)                         │                        │               │\n'
        '├─────────────────────────────────┼────────────────────────┼───────────────┤\n'
        '│ dropout (Dropout)               │ (None, 16)             │             0 │\n'
        '├─────────────────────────────────┼────────────────────────┼───────────────┤\n'
        '│ out (Dense)                     │ (None, 3)              │            51 │\n'
        '└─────────────────────────────────┴────────────────────────┴───────────────┘\n'
        ' Total params: 195 (780.00 B)\n'
        ' Trainable params: 195 (780.00 B)\n'
        ' Non-trainable params: 0 (0.00 B)\n'),
    'seq_trainable': (
        'Model: "my_model"\n'
        '┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━┳━━━━━━━┓\n'
        '┃ Layer (type)                ┃ Output Shape          ┃    Param # ┃ Trai… ┃\n'
        '┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━╇━━━━━━━┩\n'
        '│ hidden_layer_with_a_rather… │ (None, 16)            │        144 │   Y   │\n'
        '│ (Dense)                     │                       │            │       │\n'
        '├─────────────────────────────┼───────────────────────┼────────────┼───────┤\n'
        '│ dropout (Dropout)           │ (None, 16)            │          0 │   -   │\n'
        '├─────────────────────────────┼───────────────────────┼────────────┼───────┤\n'
        '│ out (Dense)                 │ (None, 3)             │         51 │   Y   │\n'
        '└─────────────────────────────┴───────────────────────┴────────────┴───────┘\n'
        ' Total params: 195 (780.00 B)\n'
        ' Trainable params: 195 (780.00 B)\n'
        ' Non-trainable params: 0 (0.00 B)\n'),
    'seq_ll60': (
        'Model: "my_model"\n'
        '┏━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━┓\n'
        '┃ Layer (type)             ┃ Output Shape      ┃   Param # ┃\n'
        '┡━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━┩\n'
        '│ hidden_layer_with_a_rat… │ (None, 16)        │       144 │\n'
        '│ (Dense)                  │                   │           │\n'
        '├──────────────────────────┼───────────────────┼───────────┤\n'
        '│ dropout (Dropout)        │ (None, 16)        │         0 │\n'
        '├──────────────────────────┼───────────────────┼───────────┤\n'
        '│ out (Dense)              │ (None, 3)         │        51 │\n'
        '└──────────────────────────┴───────────────────┴───────────┘\n'
        ' Total params: 195 (780.00 B)\n'
        ' Trainable params: 195 (780.00 B)\n'
        ' Non-trainable params: 0 (0.00 B)\n'),
    'seq_pos': (
        'Model: "my_model"\n'
        '┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━┓\n'
        '┃                                     ┃ Output      ┃                      ┃\n'
        '┃ Layer (type)                        ┃ Shape       ┃              Param # ┃\n'
        '┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━┩\n'
        '│ hidden_layer_with_a_rather_long_na… │ (None, 16)  │                  144 │\n'
        '│ (Dense)                             │             │                      │\n'
        '├─────────────────────────────────────┼─────────────┼──────────────────────┤\n'
        '│ dropout (Dropout)                   │ (None, 16)  │                    0 │\n'
        '├─────────────────────────────────────┼─────────────┼──────────────────────┤\n'
        '│ out (Dense)                         │ (None, 3)   │                   51 │\n'
        '└─────────────────────────────────────┴─────────────┴──────────────────────┘\n'
        ' Total params: 195 (780.00 B)\n'
        ' Trainable params: 195 (780.00 B)\n'
        ' Non-trainable params: 0 (0.00 B)\n'),
    'seq_print_fn': (
        'Model: "my_model"\n'
        '┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓\n'
        '┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃\n'
        '┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩\n'
        '│ hidden_layer_with_a_rather_lon… │ (None, 16)             │           144 │\n'
        '│ (Dense)                         │                        │               │\n'
        '├─────────────────────────────────┼────────────────────────┼───────────────┤\n'
        '│ dropout (Dropout)               │ (None, 16)             │             0 │\n'
        '├─────────────────────────────────┼────────────────────────┼───────────────┤\n'
        '│ out (Dense)                     │ (None, 3)              │            51 │\n'
        '└─────────────────────────────────┴────────────────────────┴───────────────┘\n'
        ' Total params: 195 (780.00 B)\n'
        ' Trainable params: 195 (780.00 B)\n'
        ' Non-trainable params: 0 (0.00 B)\n'),
    'func_linear': (
        'Model: "functional_1"\n'
        '┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓\n'
        '┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃\n'
        '┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩\n'
        '│ x (InputLayer)                  │ (None, 4)              │             0 │\n'
        '├─────────────────────────────────┼────────────────────────┼───────────────┤\n'
        '│ d1 (Dense)                      │ (None, 5)              │            25 │\n'
        '├─────────────────────────────────┼────────────────────────┼───────────────┤\n'
        '│ d2 (Dense)                      │ (None, 2)              │            12 │\n'
        '└─────────────────────────────────┴────────────────────────┴───────────────┘\n'
        ' Total params: 37 (148.00 B)\n'
        ' Trainable params: 37 (148.00 B)\n'
        ' Non-trainable params: 0 (0.00 B)\n'),
    'func_branch': (
        'Model: "branchy"\n'
        '┏━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━┓\n'
        '┃ Layer (type)        ┃ Output Shape      ┃    Param # ┃ Connected to      ┃\n'
        '┡━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━┩\n'
        '│ a (InputLayer)      │ (None, 4)         │          0 │ -                 │\n'
        '├─────────────────────┼───────────────────┼────────────┼───────────────────┤\n'
        '│ dense (Dense)       │ (None, 3)         │         15 │ a[0][0]           │\n'
        '├─────────────────────┼───────────────────┼────────────┼───────────────────┤\n'
        '│ b (InputLayer)      │ (None, 4)         │          0 │ -                 │\n'
        '├─────────────────────┼───────────────────┼────────────┼───────────────────┤\n'
        '│ concatenate         │ (None, 7)         │          0 │ dense[0][0],      │\n'
        '│ (Concatenate)       │                   │            │ b[0][0]           │\n'
        '├─────────────────────┼───────────────────┼────────────┼───────────────────┤\n'
        '│ dense_1 (Dense)     │ (None, 1)         │          8 │ concatenate[0][0] │\n'
        '└─────────────────────┴───────────────────┴────────────┴───────────────────┘\n'
        ' Total params: 23 (92.00 B)\n'
        ' Trainable params: 23 (92.00 B)\n'
        ' Non-trainable params: 0 (0.00 B)\n'),
    'sub': (
        'Model: "sub"\n'
        '┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓\n'
        '┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃\n'
        '┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩\n'
        '│ dense_2 (Dense)                 │ (1, 4)                 │            16 │\n'
        '├─────────────────────────────────┼────────────────────────┼───────────────┤\n'
        '│ dense_3 (Dense)                 │ (1, 2)                 │            10 │\n'
        '└─────────────────────────────────┴────────────────────────┴───────────────┘\n'
        ' Total params: 26 (104.00 B)\n'
        ' Trainable params: 26 (104.00 B)\n'
        ' Non-trainable params: 0 (0.00 B)\n'),
    'nested': (
        'Model: "outer"\n'
        '┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓\n'
        '┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃\n'
        '┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩\n'
        '│ inner (Sequential)              │ (None, 3)              │            27 │\n'
        '├─────────────────────────────────┼────────────────────────┼───────────────┤\n'
        '│ dense_5 (Dense)                 │ (None, 1)              │             4 │\n'
        '└─────────────────────────────────┴────────────────────────┴───────────────┘\n'
        ' Total params: 31 (124.00 B)\n'
        ' Trainable params: 25 (100.00 B)\n'
        ' Non-trainable params: 6 (24.00 B)\n'),
    'nested_expand': (
        'Model: "outer"\n'
        '┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓\n'
        '┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃\n'
        '┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩\n'
        '│ inner (Sequential)              │ (None, 3)              │            27 │\n'
        '├─────────────────────────────────┼────────────────────────┼───────────────┤\n'
        '│    └ dense_4 (Dense)            │ (None, 3)              │            15 │\n'
        '├─────────────────────────────────┼────────────────────────┼───────────────┤\n'
        '│    └ batch_normalization        │ (None, 3)              │            12 │\n'
        '│ (BatchNormalization)            │                        │               │\n'
        '├─────────────────────────────────┼────────────────────────┼───────────────┤\n'
        '│ dense_5 (Dense)                 │ (None, 1)              │             4 │\n'
        '└─────────────────────────────────┴────────────────────────┴───────────────┘\n'
        ' Total params: 31 (124.00 B)\n'
        ' Trainable params: 25 (100.00 B)\n'
        ' Non-trainable params: 6 (24.00 B)\n'),
    'nested_frozen_trainable': (
        'Model: "outer"\n'
        '┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━┳━━━━━━━┓\n'
        '┃ Layer (type)                ┃ Output Shape          ┃    Param # ┃ Trai… ┃\n'
        '┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━╇━━━━━━━┩\n'
        '│ inner (Sequential)          │ (None, 3)             │         27 │   N   │\n'
        '├─────────────────────────────┼───────────────────────┼────────────┼───────┤\n'
        '│ dense_5 (Dense)             │ (None, 1)             │          4 │   Y   │\n'
        '└─────────────────────────────┴───────────────────────┴────────────┴───────┘\n'
        ' Total params: 31 (124.00 B)\n'
        ' Trainable params: 4 (16.00 B)\n'
        ' Non-trainable params: 27 (108.00 B)\n'),
    'unbuilt': (
        'Model: "sequential"\n'
        '┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━┓\n'
        '┃ Layer (type)                    ┃ Output Shape           ┃       Param # ┃\n'
        '┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━┩\n'
        '│ dense_6 (Dense)                 │ ?                      │   0 (unbuilt) │\n'
        '└─────────────────────────────────┴────────────────────────┴───────────────┘\n'
        ' Total params: 0 (0.00 B)\n'
        ' Trainable params: 0 (0.00 B)\n'
        ' Non-trainable params: 0 (0.00 B)\n'),
    'tty_branch_trainable': (
        '\x1b[1mModel: "branchy"\x1b[0m\n'
        '┏━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━┓\n'
        '┃\x1b[1m \x1b[0m\x1b[1mLayer (type)          \x1b[0m\x1b[1m \x1b[0m┃\x1b[1m \x1b[0m\x1b[1mOutput Shape        \x1b[0m\x1b[1m \x1b[0m┃\x1b[1m \x1b[0m\x1b[1m     Param #\x1b[0m\x1b[1m \x1b[0m┃\x1b[1m \x1b[0m\x1b[1mConnected to       \x1b[0m\x1b[1m \x1b[0m┃\x1b[1m \x1b[0m\x1b[1mTraina…\x1b[0m\x1b[1m \x1b[0m┃\n'
        '┡━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━┩\n'
        '│ a (\x1b[38;5;33mInputLayer\x1b[0m)         │ (\x1b[38;5;45mNone\x1b[0m, \x1b[38;5;34m4\x1b[0m)            │            \x1b[38;5;34m0\x1b[0m │ -                   │    \x1b[1m-\x1b[0m    │\n'
        '├────────────────────────┼──────────────────────┼──────────────┼─────────────────────┼─────────┤\n'
        '│ dense (\x1b[38;5;33mDense\x1b[0m)          │ (\x1b[38;5;45mNone\x1b[0m, \x1b[38;5;34m3\x1b[0m)            │           \x1b[38;5;34m15\x1b[0m │ a[\x1b[38;5;34m0\x1b[0m][\x1b[38;5;34m0\x1b[0m]             │    \x1b[1;38;5;34mY\x1b[0m    │\n'
        '├────────────────────────┼──────────────────────┼──────────────┼─────────────────────┼─────────┤\n'
        '│ b (\x1b[38;5;33mInputLayer\x1b[0m)         │ (\x1b[38;5;45mNone\x1b[0m, \x1b[38;5;34m4\x1b[0m)            │            \x1b[38;5;34m0\x1b[0m │ -                   │    \x1b[1m-\x1b[0m    │\n'
        '├────────────────────────┼──────────────────────┼──────────────┼─────────────────────┼─────────┤\n'
        '│ concatenate            │ (\x1b[38;5;45mNone\x1b[0m, \x1b[38;5;34m7\x1b[0m)            │            \x1b[38;5;34m0\x1b[0m │ dense[\x1b[38;5;34m0\x1b[0m][\x1b[38;5;34m0\x1b[0m],        │    \x1b[1m-\x1b[0m    │\n'
        '│ (\x1b[38;5;33mConcatenate\x1b[0m)          │                      │              │ b[\x1b[38;5;34m0\x1b[0m][\x1b[38;5;34m0\x1b[0m]             │         │\n'
        '├────────────────────────┼──────────────────────┼──────────────┼─────────────────────┼─────────┤\n'
        '│ dense_1 (\x1b[38;5;33mDense\x1b[0m)        │ (\x1b[38;5;45mNone\x1b[0m, \x1b[38;5;34m1\x1b[0m)            │            \x1b[38;5;34m8\x1b[0m │ concatenate[\x1b[38;5;34m0\x1b[0m][\x1b[38;5;34m0\x1b[0m]   │    \x1b[1;38;5;34mY\x1b[0m    │\n'
        '└────────────────────────┴──────────────────────┴──────────────┴─────────────────────┴─────────┘\n'
        '\x1b[1m Total params: \x1b[0m\x1b[38;5;34m23\x1b[0m (92.00 B)\n'
        '\x1b[1m Trainable params: \x1b[0m\x1b[38;5;34m23\x1b[0m (92.00 B)\n'
        '\x1b[1m Non-trainable params: \x1b[0m\x1b[38;5;34m0\x1b[0m (0.00 B)\n'),
    'tty_unbuilt': (
        '\x1b[1mModel: "sequential"\x1b[0m\n'
        '┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━━━━━┓\n'
        '┃\x1b[1m \x1b[0m\x1b[1mLayer (type)                        \x1b[0m\x1b[1m \x1b[0m┃\x1b[1m \x1b[0m\x1b[1mOutput Shape               \x1b[0m\x1b[1m \x1b[0m┃\x1b[1m \x1b[0m\x1b[1m        Param #\x1b[0m\x1b[1m \x1b[0m┃\n'
        '┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━━━━━┩\n'
        '│ dense_2 (\x1b[38;5;33mDense\x1b[0m)                      │ ?                           │     \x1b[38;5;34m0\x1b[0m (unbuilt) │\n'
        '└──────────────────────────────────────┴─────────────────────────────┴─────────────────┘\n'
        '\x1b[1m Total params: \x1b[0m\x1b[38;5;34m0\x1b[0m (0.00 B)\n'
        '\x1b[1m Trainable params: \x1b[0m\x1b[38;5;34m0\x1b[0m (0.00 B)\n'
        '\x1b[1m Non-trainable params: \x1b[0m\x1b[38;5;34m0\x1b[0m (0.00 B)\n'),
}
