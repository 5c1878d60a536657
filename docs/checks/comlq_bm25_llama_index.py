"""ComLQ's BM25 the way issue 31 describes the authors' released evaluate_bm25.py (their script itself, in
code.zip of xgl-git/ComLQR-main, is not reachable here): llama_index's BM25Retriever over bm25s with
PyStemmer's Snowball English stemmer and English stopwords, one node per passage, the top 10 per query,
nDCG@10 by pytrec_eval. Prints nDCG@10 x100 over all queries and per query type (the type before "_").

    python3 -m venv /tmp/ll && /tmp/ll/bin/pip install llama-index-retrievers-bm25==0.8.0 pytrec-eval-terrier
    /tmp/ll/bin/python docs/checks/comlq_bm25_llama_index.py ../shared/data/comlq

Run on 2026-11-25 with llama-index-retrievers-bm25 0.8.0 and bm25s 0.3.16, it printed total 69.09 and
per-type values within 0.10 of this harness's bm25 (submissions/bm25/.../comlq.json); the numbers are in
the note of the BM25 row of submissions/reported/comlq.json, Table 3. The 21 queries apart come from the
stemmer: llama-index-retrievers-bm25 0.8.0 pins PyStemmer < 3 (Snowball 2.2: "organism", "organization"
and "organic" all stem to "organ"), this harness installs PyStemmer 3. After
``/tmp/ll/bin/pip install PyStemmer==3.1.0`` it prints 69.07, every query equal to the harness's
(tests/test_comlq_protocol.py checks the same bm25s calls query by query).
"""

import collections
import csv
import json
import sys

import pytrec_eval
import Stemmer
from llama_index.core.schema import TextNode
from llama_index.retrievers.bm25 import BM25Retriever

data = sys.argv[1]


def jsonl(name: str) -> list[dict]:
    with open(f"{data}/{name}", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


corpus, queries = jsonl("corpus.jsonl"), jsonl("queries.jsonl")
qrels: dict[str, dict[str, int]] = collections.defaultdict(dict)
with open(f"{data}/qrels/test.tsv", encoding="utf-8") as handle:
    for query, doc, grade in list(csv.reader(handle, delimiter="\t"))[1:]:  # header: query-id corpus-id score
        qrels[query][doc] = int(grade)
nodes = [TextNode(text=d["text"], id_=d["_id"]) for d in corpus]
retriever = BM25Retriever.from_defaults(
    nodes=nodes, similarity_top_k=10, stemmer=Stemmer.Stemmer("english"), language="english"
)
run = {q["_id"]: {hit.node.node_id: float(hit.score) for hit in retriever.retrieve(q["text"])} for q in queries}
per_query = pytrec_eval.RelevanceEvaluator(dict(qrels), {"ndcg_cut_10"}).evaluate(run)
by_type: dict[str, list[float]] = collections.defaultdict(list)
for q in queries:
    by_type[q["type"].split("_")[0]].append(per_query[q["_id"]]["ndcg_cut_10"])
values = [per_query[q["_id"]]["ndcg_cut_10"] for q in queries]
summary = {"total": 100 * sum(values) / len(values), **{t: 100 * sum(v) / len(v) for t, v in sorted(by_type.items())}}
print(json.dumps({k: round(v, 2) for k, v in summary.items()}))
