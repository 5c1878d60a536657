"""The board's data: plain Python values, no HTML and no Gradio.

The board of one results folder (``board``), each benchmark's ranking (``ranking``, ``aggregates``), its
intervals and tests (``statistics``, ``page_statistics``), the reader's filters and table order
(``filters``, ``sorting``), Overall, comparisons, the model index, the reported tier and imported runs'
labels. It imports none of the app's other layers (``server``, ``views``, ``tabs``): each of them reads it.
"""
