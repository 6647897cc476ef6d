"""Record the error class TensorFlow's tf.io.gfile raises for misuse of local paths
(a file onto a directory, a directory where a file is expected, ...), by case name.

Run from the repository root: /path/to/tf-venv/bin/python tests/tf_reference/record_gfile_errors.py
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from __init__ import save  # noqa: E402

import tensorflow as tf  # noqa: E402

# each case runs in a fresh directory holding files "a" ("hello"), "b" and directory "d/"
CASES = {
    "rename_file_onto_dir": lambda g: g.rename("a", "d"),
    "rename_file_onto_dir_overwrite": lambda g: g.rename("a", "d", overwrite=True),
    "rename_dir_onto_file_overwrite": lambda g: g.rename("d", "b", overwrite=True),
    "rename_missing": lambda g: g.rename("zz", "q"),
    "rename_into_missing_dir": lambda g: g.rename("a", "nodir/x"),
    "remove_dir": lambda g: g.remove("d"),
    "remove_missing": lambda g: g.remove("zz"),
    "copy_dir": lambda g: g.copy("d", "e"),
    "copy_dir_onto_file_overwrite": lambda g: g.copy("d", "b", overwrite=True),
    "copy_file_onto_dir": lambda g: g.copy("a", "d"),
    "copy_file_onto_dir_overwrite": lambda g: g.copy("a", "d", overwrite=True),
    "copy_onto_itself": lambda g: g.copy("a", "a"),
    "copy_onto_itself_overwrite": lambda g: g.copy("a", "a", overwrite=True),
    "copy_into_missing_dir": lambda g: g.copy("a", "nodir/x"),
    "makedirs_existing_file": lambda g: g.makedirs("a"),
    "makedirs_under_file": lambda g: g.makedirs("a/x/y"),
    "mkdir_under_file": lambda g: g.mkdir("a/x"),
}


def main():
    out = {}
    for name, case in CASES.items():
        with tempfile.TemporaryDirectory() as d:
            os.chdir(d)
            os.makedirs("d/sub")
            with open("a", "w") as f:
                f.write("hello")
            with open("b", "w") as f:
                f.write("bb")
            try:
                case(tf.io.gfile)
                out[name] = {"error": None, "a_after": open("a").read()
                             if os.path.exists("a") else None}
            except Exception as e:   # noqa: BLE001 - the class is what is recorded
                out[name] = {"error": type(e).__name__, "message": str(e)}
            os.chdir("/")
    save("gfile_errors", out)


if __name__ == "__main__":
    main()
