"""The mteb built-in (installed as ``leaderboard_mteb``): mteb's tasks and models behind the plugin contract.

* ``tasks``: FollowIR, mFollowIR, InstructIR, IFIR, NevIR and BRIGHT as task plugins (``mteb.evaluate`` runs them);
* ``models``: any model of mteb's registry as ``--model mteb:<name>[@revision]``;
* ``bridge``: both directions between our model contract and mteb's model protocols;
* ``per_query``: the per-query values mteb does not report, recomputed from its predictions.

One package because the three share the bridge; like every built-in it imports only ``leaderboard``,
``leaderboard.contract`` and ``leaderboard.toolkit`` from the core, and no other built-in.
"""
