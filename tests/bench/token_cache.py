"""Helpers shared by the PyTorch bench scripts: electra-train's token cache
(train/data/data_cache.h) as numpy arrays, and the rank AUC the trainer reports."""
import numpy as np

MAGIC = b"ELTOKC01"


class TokenCache:
    """toks: every token id (int64); index: per example start, len, b (segment B start)."""

    def __init__(self, path):
        raw = open(path, "rb").read()
        if raw[:8] != MAGIC:
            raise SystemExit("%s: not an electra-train token cache" % path)
        u32 = lambda o: int(np.frombuffer(raw[o:o + 4], np.uint32)[0])
        u64 = lambda o: int(np.frombuffer(raw[o:o + 8], np.uint64)[0])
        id_bytes, self.seq_len, self.vocab_size = u32(12), u32(16), u32(24)
        n_ex, n_tok, tok_off, idx_off = u64(56), u64(64), u64(72), u64(80)
        self.toks = np.frombuffer(raw, np.uint16 if id_bytes == 2 else np.uint32, n_tok,
                                  tok_off).astype(np.int64)
        self.index = np.frombuffer(raw, np.dtype([("start", "<u8"), ("len", "<u4"), ("b", "<u4")]),
                                   n_ex, idx_off)


def auc(score, label):
    """P(score of a positive > score of a negative), by ranks (ties broken by order); nan
    when one class is empty."""
    order = np.argsort(score, kind="stable")
    ranks = np.empty(len(score))
    ranks[order] = np.arange(1, len(score) + 1)
    pos = label.sum()
    neg = len(label) - pos
    return (ranks[label == 1].sum() - pos * (pos + 1) / 2) / (pos * neg) if pos and neg else float("nan")
