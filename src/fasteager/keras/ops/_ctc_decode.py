"""CTC decoding for ``keras.ops.nn.ctc_decode``: the greedy decoder and the prefix beam
search of TensorFlow's CTCBeamSearchDecoder (Graves 2012, ch. 7), on NumPy arrays.

Decoding is a discrete search: its label outputs are integers and TensorFlow registers no
gradient for either decoder, so these work on plain arrays. The beam search follows
TensorFlow's kernel step by step (each time step scored by the log-softmax of its inputs;
beams kept in a tree whose entries carry blank / label / total log-probabilities at
the previous and current step; at most ``beam_width`` leaves, the weakest dropped when a
better child arrives), so its paths and scores are TensorFlow's.
"""
import numpy as np

from ...errors import InvalidArgumentError

__all__ = ["beam_search", "greedy"]


def greedy(x, lengths, blank, merge_repeated):
    """Best class per step, repeats merged (if asked), blanks dropped: the label list of
    each row of batch-major ``x`` (B, T, C), over its first ``lengths[b]`` steps."""
    best = np.argmax(x, axis=-1)
    rows = []
    for b in range(x.shape[0]):
        labels, prev = [], -1
        for t in range(int(lengths[b])):
            c = int(best[b, t])
            if c != blank and not (merge_repeated and c == prev):
                labels.append(c)
            prev = c
        rows.append(labels)
    return rows


class _Prob:
    __slots__ = ("blank", "label", "total")

    def __init__(self, ninf):
        self.total = self.blank = self.label = ninf

    def copy_from(self, other):
        self.total, self.blank, self.label = other.total, other.blank, other.label


class _Entry:
    __slots__ = ("children", "label", "newp", "oldp", "parent")

    def __init__(self, parent, label, ninf):
        self.parent, self.label, self.children = parent, label, {}
        self.oldp, self.newp = _Prob(ninf), _Prob(ninf)

    def active(self, ninf):
        return self.newp.total != ninf

    def labels(self):
        out, node = [], self
        while node.parent is not None:
            out.append(node.label)
            node = node.parent
        return out[::-1]


def _logsumexp(a, b, ninf, one):
    if a == ninf:
        return b
    if b == ninf:
        return a
    hi, lo = (a, b) if a > b else (b, a)
    return hi + np.log1p(np.exp(lo - hi)).astype(one.dtype)


def _decode_one(steps, beam_width, top_paths):
    """Beam search over ``steps`` (T, C) with the blank last; (paths, log-probabilities)."""
    dt = steps.dtype.type
    ninf, one = dt(-np.inf), np.ones((), steps.dtype)
    blank = steps.shape[1] - 1
    root = _Entry(None, -1, ninf)
    root.newp.total = root.newp.blank = dt(0)
    leaves = [root]

    def ordered(leaves):    # TensorFlow's TopN extraction: best total first
        return sorted(leaves, key=lambda e: -e.newp.total)

    def bottom(leaves):
        return min(leaves, key=lambda e: e.newp.total)

    def candidate(p, leaves):
        return p.total > ninf and (len(leaves) < beam_width or
                                   p.total > bottom(leaves).newp.total)

    for raw in steps:
        branches = ordered(leaves)
        leaves = []
        for b in branches:
            b.oldp.copy_from(b.newp)
        for b in branches:
            if b.parent is not None:
                if b.parent.active(ninf):
                    prev = (b.parent.oldp.blank if b.label == b.parent.label
                            else b.parent.oldp.total)
                    b.newp.label = _logsumexp(b.newp.label, prev, ninf, one)
                b.newp.label = dt(b.newp.label + raw[b.label])
            b.newp.blank = dt(b.oldp.total + raw[blank])
            b.newp.total = _logsumexp(b.newp.blank, b.newp.label, ninf, one)
            leaves.append(b)


        for b in branches:
            if not candidate(b.oldp, leaves):
                continue
            for label in range(blank):
                c = b.children.get(label)
                if c is None:
                    c = b.children[label] = _Entry(b, label, ninf)
                if c.active(ninf):
                    continue
                c.newp.blank = ninf
                prev = b.oldp.blank if c.label == b.label else b.oldp.total
                c.newp.label = dt(raw[label] + prev)
                c.newp.total = c.newp.label
                if candidate(c.newp, leaves):
                    if len(leaves) == beam_width:
                        worst = bottom(leaves)
                        worst.newp = _Prob(ninf)     # out of the beam
                        leaves.remove(worst)
                    leaves.append(c)
                else:
                    c.oldp, c.newp = _Prob(ninf), _Prob(ninf)
    if top_paths > len(leaves):
        raise InvalidArgumentError("ctc_decode: fewer leaves in the beam search (%d) than "
                                   "top_paths (%d)" % (len(leaves), top_paths))
    best = ordered(leaves)[:top_paths]
    return [e.labels() for e in best], [e.newp.total for e in best]


def beam_search(x, lengths, beam_width, top_paths):
    """TensorFlow's CTC beam search of batch-major ``x`` (B, T, C), blank last: per path
    rank, the label lists of every row, and the (B, top_paths) log-probabilities."""
    if top_paths > beam_width:
        raise InvalidArgumentError("ctc_decode: requested more paths (top_paths=%d) than the "
                                   "beam width (%d)" % (top_paths, beam_width))
    paths = [[None] * x.shape[0] for _ in range(top_paths)]
    scores = np.zeros((x.shape[0], top_paths), x.dtype)
    # TensorFlow's decoder scores the log-softmax of each step, so its log-probabilities
    # are normalised
    top = x.max(axis=-1, keepdims=True)
    x = (x - (top + np.log(np.exp(x - top).sum(axis=-1, keepdims=True)))).astype(x.dtype)
    for b in range(x.shape[0]):
        found, logp = _decode_one(x[b, :int(lengths[b])], beam_width, top_paths)
        for k in range(top_paths):
            paths[k][b] = found[k]
            scores[b, k] = logp[k]
    return paths, scores
