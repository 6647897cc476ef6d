"""fasteager's private engine, in layers (see docs/architecture.md). Nothing here is public API."""
