"""Each tab's view: the HTML (or chart data) it draws from the board's data, one module per tab. Views read the
``data`` layer only, never the server's plumbing, the tabs or Gradio.

``views/<id>.py`` draws what ``tabs/<id>.py`` shows: the tab module lays out Gradio components and wires
events, the view module turns the board's rows into HTML and knows nothing of Gradio, so it is tested
without a server. The Leaderboard tab draws three views: a benchmark's table (``board``) with the text
around it (``board_notes``), the ``overall`` mean rank, and the ``landing`` page of the bare URL; the
``status`` line sits above the tabs. Pieces every view uses (escaping, cells, tables, pagers) are in
``render``, the charts' specifications (Vega-Lite) in ``charts``, and a paper's protocol under a model's
name in ``protocol_variants``.
"""
