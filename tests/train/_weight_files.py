"""Rewriting one entry of a saved weights file, in the file's own format (for tests that
feed a loader a well-formed file with a wrong value)."""
import numpy as np

from fasteager.train import _safetensors, checkpoint, weights


def rewrite_entry(path, suffix, key, arr):
    """Replace the array ``key`` of the weights file at ``path`` with ``arr``."""
    tensors = weights._read(path, suffix)
    tensors[key] = arr
    if suffix == ".safetensors":
        _safetensors.save_file(tensors, path, metadata={"format": checkpoint.FORMAT,
                                                        "object_graph": "{}"})
    elif suffix == ".npz":
        np.savez(path, **tensors)
    else:
        import h5py
        with h5py.File(path, "w") as f:
            for k, v in tensors.items():
                f.create_dataset(k, data=v)
