"""``Model.summary()`` as Keras 3 prints it: a box-drawn table (``┏━┳┓ ┃ ┡━╇┩ │ ├─┼┤ └─┴┘``)
with Keras 3's columns, widths, wrapping and parameter lines.

Keras 3 renders the table through ``rich``; fasteager draws the same characters itself
(no dependency): the column widths follow rich's rules for fixed-width columns in a table
of a given width, a cell wraps at spaces onto more lines, a word longer than its cell ends
in "…", a header sits at the bottom of its row, and every line is cropped at the console's
width. Styles (bold, 256-colour numbers) go out only when the summary is printed to a
terminal; through ``print_fn`` or into a pipe / StringIO the text is plain, as rich's is.
"""
import os
import re
import shutil
import sys

import numpy as np

# styles Keras 3's summary uses (rich markup [bold], [color(34)], ...), as SGR parameters
_BOLD = "1"
_NUMBER, _NONE, _SYMBOL = "38;5;34", "38;5;45", "38;5;33"
_YES, _NO = "1;38;5;34", "1;91"
# what rich writes for those colours on a 16-colour terminal
_STANDARD = {_NUMBER: "32", _NONE: "96", _SYMBOL: "94", _YES: "1;32", _NO: "1;91"}

_WORD = re.compile(r"\s*\S+\s*")


def print_summary(model, line_length=None, positions=None, print_fn=None,
                  expand_nested=False, show_trainable=False, layer_range=None):
    # the model classes (above this module) mark themselves: _graph_model on Functional,
    # _layer_stack on Sequential
    functional = getattr(model, "_graph_model", False)
    if functional:
        layers, sequential_like = _functional_layers(model)
    else:
        layers, sequential_like = model.layers, True
    if sequential_like:
        default_length, header = 88, ["Layer (type)", "Output Shape", "Param #"]
        positions = positions or [0.45, 0.80, 1.0]
        align = ["left", "left", "right"]
    else:
        default_length = 108
        header = ["Layer (type)", "Output Shape", "Param #", "Connected to"]
        positions = positions or [0.3, 0.56, 0.74, 1.0]
        align = ["left", "left", "right", "left"]
    if show_trainable:
        default_length += 12
        positions = [p * 0.90 for p in positions] + [1.0]
        header.append("Trainable")
        align.append("center")
    line_length = line_length or min(default_length, shutil.get_terminal_size().columns - 4)
    widths, current = [], 0
    for pos in positions:
        width = int(pos * line_length) - current
        if width < 4:
            raise ValueError("Model.summary: insufficient console width to print the summary "
                             "(line_length=%d, positions=%r give a column under 4 "
                             "characters)" % (line_length, list(positions)))
        widths.append(width)
        current += width

    in_sequential = getattr(model, "_layer_stack", False)

    def rows_of(layer, level=0):
        prefix = "   " * level + "└ " if level else ""
        fields = [[(prefix + layer.name + " (", None), (type(layer).__name__, _SYMBOL),
                   (")", None)],
                  _layer_shape(layer, in_sequential or functional),
                  _layer_params(layer)]
        if not sequential_like:
            fields.append(_connections(model, layer))
        if show_trainable:
            if getattr(layer, "weights", None):
                fields.append([("Y", _YES)] if layer.trainable else [("N", _NO)])
            else:
                fields.append([("-", _BOLD)])
        rows = [fields]
        if expand_nested and getattr(layer, "layers", None):
            for inner in layer.layers:
                rows.extend(rows_of(inner, level + 1))
        return rows

    start, stop = _layer_range(layers, layer_range)
    rows = [row for layer in layers[start:stop] for row in rows_of(layer)]

    trainable = _unique(model.trainable_weights)
    frozen = _unique(model.non_trainable_weights)
    counts = [("Total params: ", None), ("Trainable params: ", trainable),
              ("Non-trainable params: ", frozen)]
    optimizer = getattr(model, "optimizer", None)
    # Keras counts the optimizer once it is built (its slots exist: after a first step)
    opt_vars = _unique(optimizer.variables) if getattr(model, "_is_compiled", False) and \
        optimizer is not None and getattr(optimizer, "_tracked_variables", None) else None
    everything = trainable + frozen + (opt_vars or [])
    counts[0] = ("Total params: ", everything)
    if opt_vars is not None:
        counts.append(("Optimizer params: ", opt_vars))

    console_width = _console_width()
    lines = _wrap_plain([('Model: "%s"' % model.name, _BOLD)], console_width)
    lines += _table(header, align, widths, line_length, rows)
    for label, weights in counts:
        lines.append([(" " + label, _BOLD), ("{:,}".format(_count(weights)), _NUMBER),
                      (" (%s)" % _readable_size(_nbytes(weights)), None)])
    lines = [_crop(line, console_width) for line in lines]
    if print_fn is not None:
        print_fn("".join(_plain(line) + "\n" for line in lines))
        return
    stream = sys.stdout
    styled = _is_terminal(stream)
    standard = styled and _sixteen_colours()
    stream.write("".join((_ansi(line, standard) if styled else _plain(line)) + "\n"
                         for line in lines))
    stream.flush()


# ---- what each row says ---------------------------------------------------------------
def _shape_pieces(shape):
    pieces = [("(", None)]
    for i, d in enumerate(shape):
        if i:
            pieces.append((", ", None))
        pieces.append((str(d), _NONE if d is None else _NUMBER))
    return pieces + [(")", None)]


def _layer_shape(layer, graph_model):
    """Keras 3: the shapes of the layer's last symbolic call; else of the shape it was
    built for (in a subclassed model, the batch it was called on); else "?"."""
    nodes = getattr(layer, "_inbound_nodes", None)
    if nodes:
        shapes = [tuple(t.shape.as_list()) for t in nodes[-1].outputs]
    elif graph_model and getattr(layer, "_output_shape", None) is not None:
        shapes = [tuple(layer._output_shape.as_list())]
    elif layer.__dict__.get("_output_dims") is not None:
        shapes = [tuple(layer.__dict__["_output_dims"])]
    else:
        return [("?", None)]
    if len(shapes) == 1:
        return _shape_pieces(shapes[0])
    pieces = [("[", None)]
    for i, shape in enumerate(shapes):
        if i:
            pieces.append((", ", None))
        pieces.extend(_shape_pieces(shape))
    return pieces + [("]", None)]


def _layer_params(layer):
    if not hasattr(layer, "built"):
        return [("0", _NUMBER)]
    if not layer.built:
        return [("0", _NUMBER), (" (unbuilt)", None)]
    return [("{:,}".format(layer.count_params()), _NUMBER)]


def _connections(model, layer):
    pieces = []
    for node in layer._inbound_nodes:
        if id(node) not in model._summary_nodes:
            continue            # a call outside this model
        for tensor in node.input_tensors:
            source, node_index, tensor_index = tensor._history
            if pieces:
                pieces.append((", ", None))
            pieces += [(source.name + "[", None), (str(node_index), _NUMBER), ("][", None),
                       (str(tensor_index), _NUMBER), ("]", None)]
    return pieces or [("-", None)]


def _functional_layers(model):
    """Keras 3's operation order for a functional model (input layers included): by depth
    from the outputs, deepest first, ties in the order a walk from the outputs meets them;
    and whether the graph is a plain chain (no branch, merge or shared layer), which Keras
    prints without the "Connected to" column."""
    first_seen, post_order, done = {}, [], set()

    def visit(tensor):
        layer, node_index, _ = tensor._history
        node = layer._inbound_nodes[node_index]
        if id(node) in done:
            return
        first_seen.setdefault(id(layer), (len(first_seen), layer))
        if not any(tensor is t for t in model.inputs):
            for t in node.input_tensors:
                visit(t)
        done.add(id(node))
        post_order.append(node)

    for t in model.outputs:
        visit(t)
    node_depth, layer_depth = {}, {}
    for node in reversed(post_order):
        depth = max(node_depth.setdefault(id(node), 0), layer_depth.get(id(node.layer), 0))
        layer_depth[id(node.layer)] = node_depth[id(node)] = depth
        for t in node.input_tensors:
            src, index, _ = t._history
            parent = src._inbound_nodes[index]
            node_depth[id(parent)] = max(depth + 1, node_depth.get(id(parent), 0))
    object.__setattr__(model, "_summary_nodes", {id(n) for n in post_order})
    per_depth = {}
    for node in post_order:
        per_depth.setdefault(node_depth[id(node)], []).append(node)
    chain = all(len(nodes) == 1 and len(nodes[0].input_tensors) <= 1
                for nodes in per_depth.values())
    if chain:
        for layer in model.layers:
            if sum(id(n) in model._summary_nodes for n in layer._inbound_nodes) > 1:
                chain = False
    order = sorted(first_seen.values(),
                   key=lambda item: (-layer_depth[id(item[1])], item[0]))
    return [layer for _, layer in order], chain


def _layer_range(layers, layer_range):
    if layer_range is None:
        return 0, len(layers)
    if len(layer_range) != 2 or not all(isinstance(n, str) for n in layer_range):
        raise ValueError("Model.summary: layer_range must be two layer names (strings or "
                         "regexes), got %r" % (layer_range,))
    low = [i for i, lay in enumerate(layers) if re.match(layer_range[0], lay.name)]
    high = [i for i, lay in enumerate(layers) if re.match(layer_range[1], lay.name)]
    if not low or not high:
        raise ValueError("Model.summary: layer_range %r matches no layer names"
                         % (layer_range,))
    if min(low) > max(high):
        return min(high), max(low) + 1
    return min(low), max(high) + 1


# ---- parameter counts -----------------------------------------------------------------
def _unique(weights):
    seen = {}
    for w in weights:
        seen.setdefault(id(w), w)
    return list(seen.values())


def _count(weights):
    return int(sum(int(np.prod(w.shape.as_list())) for w in weights))


def _nbytes(weights):
    return sum(int(np.prod(w.shape.as_list())) * np.dtype(w.dtype.as_numpy_dtype).itemsize
               for w in weights)


def _readable_size(size):
    for unit in ["B", "KB", "MB", "GB", "TB", "PB"]:
        if size / 1024 < 1:
            return "{:.2f} {}".format(size, unit)
        size /= 1024
    return "{:.2f} {}".format(size, "PB")


# ---- the table ------------------------------------------------------------------------
def _column_widths(widths, line_length):
    """Rich's widths (padding included) for fixed-width columns in a table ``line_length``
    wide: cut evenly when they do not fit, then spread the slack over them."""
    space = line_length - (len(widths) + 1)          # minus the borders
    cells = [min(w + 2, space) for w in widths]
    if sum(cells) > space:
        excess, ratio_left = sum(cells) - space, len(cells)
        reduced = []
        for w in cells:
            cut = min(w, round(excess / ratio_left))
            reduced.append(w - cut)
            excess -= cut
            ratio_left -= 1
        cells = reduced
    if sum(cells) < space:
        extra, total = space - sum(cells), sum(cells)
        grown = []
        for w in cells:
            add = -(-w * extra // total) if total else extra
            grown.append(w + add)
            extra -= add
            total -= w
        cells = grown
    return cells


def _break_offsets(text, width):
    """Where rich's word wrap (no folding: a long word keeps its line) breaks ``text``."""
    breaks, offset = [], 0
    for match in _WORD.finditer(text):
        start, word = match.start(), match.group(0)
        length = len(word.rstrip())
        if width - offset >= length:
            offset += len(word)
        elif length > width:
            if start:
                breaks.append(start)
            offset = len(word)
        elif offset and start:
            breaks.append(start)
            offset = len(word)
    return breaks


def _cell_lines(pieces, width, justify):
    """A cell's text as lines ``width`` wide, each a list of (char, style)."""
    chars = [(c, style) for text, style in pieces for c in text]
    text = "".join(c for c, _ in chars)
    cuts = [0] + _break_offsets(text, width) + [len(chars)]
    lines = []
    for a, b in zip(cuts, cuts[1:]):
        line = chars[a:b]
        if len(line) > width:       # trailing spaces past the edge go first
            trailing = len(line) - len("".join(c for c, _ in line).rstrip())
            line = line[:len(line) - min(trailing, len(line) - width)]
        if justify != "left":
            while line and line[-1][0].isspace():
                line.pop()
        if len(line) > width:
            line = line[:width - 1] + [("…", line[width - 1][1])]
        pad = width - len(line)
        if justify == "right":
            line = [(" ", None)] * pad + line
        elif justify == "center":
            line = [(" ", None)] * (pad // 2) + line + [(" ", None)] * (pad - pad // 2)
        else:
            line = line + [(" ", None)] * pad
        lines.append(line)
    return lines


def _segments(chars, base=None):
    """Runs of equal style from (char, style) pairs; ``base`` (a header's bold) styles all."""
    out = []
    for c, style in chars:
        style = base or style
        if out and out[-1][1] == style:
            out[-1] = (out[-1][0] + c, style)
        else:
            out.append((c, style))
    return out


def _table(header, align, widths, line_length, rows):
    cells = _column_widths(widths, line_length)
    rule = {kind: [(left + mid.join(fill * w for w in cells) + right, None)]
            for kind, (left, fill, mid, right) in
            {"top": "┏━┳┓", "head": "┡━╇┩", "row": "├─┼┤", "bottom": "└─┴┘"}.items()}

    def render(fields, is_header):
        edge = "┃" if is_header else "│"
        blocks = [_cell_lines([(f, None)] if is_header else f, w - 2, a)
                  for f, w, a in zip(fields, cells, align)]
        height = max(len(b) for b in blocks)
        out = []
        for i in range(height):
            line = [(edge, None)]
            for block, w in zip(blocks, cells):
                missing = height - len(block)
                # a header sits at the bottom of its row, a body cell at the top
                index = i - missing if is_header else i
                base = _BOLD if is_header else None
                if 0 <= index < len(block):
                    line += [(" ", base)] + _segments(block[index], base) + [(" ", base)]
                else:
                    line.append((" " * w, base))
                line.append((edge, None))
            out.append(line)
        return out

    lines = [rule["top"]] + render(header, True) + [rule["head"]]
    for i, fields in enumerate(rows):
        if i:
            lines.append(rule["row"])
        lines += render(fields, False)
    return lines + [rule["bottom"]]


# ---- output ---------------------------------------------------------------------------
def _wrap_plain(pieces, width):
    """Text printed outside the table: rich folds it at the console's width."""
    chars = [(c, s) for text, s in pieces for c in text]
    return [_segments(chars[i:i + width]) for i in range(0, max(len(chars), 1), width)]


def _crop(line, width):
    out, used = [], 0
    for text, style in line:
        if used >= width:
            break
        out.append((text[:width - used], style))
        used += len(out[-1][0])
    return out


def _plain(line):
    return "".join(text for text, _ in line)


def _ansi(line, standard):
    parts = []
    for text, style in line:
        if style:
            style = _STANDARD.get(style, style) if standard else style
            parts.append("\x1b[%sm%s\x1b[0m" % (style, text))
        else:
            parts.append(text)
    return "".join(parts)


def _is_terminal(stream):
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and \
        os.environ.get("TERM", "").lower() not in ("dumb", "unknown")


def _sixteen_colours():
    """Rich's colour system: 256 colours for a *-256color or truecolor terminal, else 16."""
    if os.environ.get("COLORTERM", "").strip().lower() in ("truecolor", "24bit"):
        return False
    suffix = os.environ.get("TERM", "").strip().lower().rsplit("-", 1)[-1]
    return suffix not in ("256color", "kitty")


def _console_width():
    """The width rich's console crops at: $COLUMNS, else a terminal's on stdin, stdout or
    stderr, else 80."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit():
        return int(columns)
    for fd in (0, 1, 2):
        try:
            return os.get_terminal_size(fd).columns or 80
        except OSError:
            continue
    return 80
