"""Engine layer: composite (see docs/architecture.md). Docstring only: importing one
module here loads no sibling.

Bottom to top: summarize, farmhash, values -> dispatch -> sparse -> ragged -> strings,
ragged_ops, embedding -> leaves -> structure -> extension_type -> elements; tensor_array
stands alone.
"""
