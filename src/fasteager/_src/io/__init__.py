"""Engine layer: io (see docs/architecture.md). Docstring only: importing one module here loads no sibling."""
