"""Engine layer: composite (see docs/architecture.md). Docstring only: importing one module here loads no sibling."""
