"""AutoGraph's implementation: the source transformer and the operators converted code
calls (``fasteager.autograph`` re-exports the public part)."""
