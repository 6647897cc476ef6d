"""Reading and rewriting the JSON description of a saved directory, for the tests that
change it."""
import json
import os
import shutil

GRAPH_FILE = "fasteager_saved_model.json"


def read_description(directory):
    with open(os.path.join(directory, GRAPH_FILE)) as f:
        return json.load(f)


def write_copy(src, dst, description):
    """SavedModel ``src`` copied to ``dst`` (or rewritten in place) with ``description``
    as its JSON file."""
    if os.path.abspath(src) != os.path.abspath(dst):
        for name in os.listdir(src):
            shutil.copy(os.path.join(src, name), os.path.join(dst, name))
    with open(os.path.join(dst, GRAPH_FILE), "w") as f:
        json.dump(description, f)


def mutate(description, path, value, drop):
    """Set the field at ``path`` to ``value``, or remove it (``drop``, in a dict)."""
    node = description
    for p in path[:-1]:
        node = node[p]
    if drop and isinstance(node, dict):
        del node[path[-1]]                         # a dropped field
    else:
        node[path[-1]] = value
