"""Tiny models with RANDOM weights (a cross-encoder, a bi-encoder), built from a small BERT config.

No reranker weights can be downloaded here. These models only exercise the code path
(loading, batching, scoring, result files); their scores mean nothing.
"""

from __future__ import annotations

from pathlib import Path

WORDS = [
    "the",
    "is",
    "a",
    "of",
    "and",
    "find",
    "where",
    "planet",
    "book",
    "movie",
    "rings",
    "moon",
    "red",
    "amber",
    "basalt",
    "cedar",
    "delta",
    "ember",
    "genre",
    "setting",
    "bread",
    "yeast",
    "bee",
    "honey",
    "bird",
    "wall",
]


VOCAB = (
    ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    + WORDS
    + [chr(c) for c in range(ord("a"), ord("z") + 1)]
    + [".", ",", ":", "?"]
)


def build_random_cross_encoder(folder: Path, seed: int = 0) -> Path:
    from transformers import BertForSequenceClassification

    folder = Path(folder)
    BertForSequenceClassification(_tiny_bert(folder, seed, num_labels=1)).save_pretrained(folder)
    return folder


def _tiny_bert(folder: Path, seed: int, **settings: int):
    """A 2-layer BERT of width 32 over ``VOCAB``: its tokenizer saved in ``folder``, torch seeded, its config."""
    import torch
    from transformers import BertConfig, BertTokenizerFast

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "vocab.txt").write_text("\n".join(VOCAB) + "\n")
    BertTokenizerFast(vocab_file=str(folder / "vocab.txt"), do_lower_case=True).save_pretrained(folder)
    torch.manual_seed(seed)
    return BertConfig(
        vocab_size=len(VOCAB),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=128,
        **settings,
    )


def build_random_bi_encoder(folder: Path, seed: int = 0) -> Path:
    """A sentence-transformers bi-encoder (a 2-layer BERT of width 32, mean pooling) with RANDOM weights: for the
    tests of code paths that any bi-encoder takes (``st:<folder>``); the encoding path itself is proven on
    all-MiniLM-L6-v2's real weights by the tests marked ``real_model``."""
    from sentence_transformers import SentenceTransformer, models
    from transformers import BertModel

    folder = Path(folder)
    bert = folder.parent / f"{folder.name}-bert"
    BertModel(_tiny_bert(bert, seed)).save_pretrained(bert)
    encoder = models.Transformer(str(bert), max_seq_length=128)
    SentenceTransformer(modules=[encoder, models.Pooling(32, "mean")], device="cpu").save(str(folder))
    return folder
