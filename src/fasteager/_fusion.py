"""Fusion of elementwise chains in ``fe.function`` replay lists (see ``_graph.Fused``)."""


def fuse(steps, outputs):
    return steps
