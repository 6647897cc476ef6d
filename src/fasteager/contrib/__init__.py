"""Compatibility namespaces for older TensorFlow programs."""
