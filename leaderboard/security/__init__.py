"""Security: what keeps a credential out of print and out of a plugin's reach, and what a reader checks.

- ``redaction``: every text the harness shows or publishes passes through it (the hub's error messages,
  the queue's published logs, a plugin's own error text through the toolkit): known secret values and
  their encoded forms, then every token format it knows;
- ``credentials``: where a credential lies within reach of a process of this user (variables found by
  name or by value, in this process and its ancestors, and token files), named but never shown;
- ``attestation``: reading and checking the queue's attestations against its keyring (current, retired
  and revoked keys), for every reader: ``show``, ``compare``, ``verify`` and the board.

Nothing here imports the queue: the app and the reader commands use it without the queue's code.
"""
