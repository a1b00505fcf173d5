"""``jlgcli board``: a local dashboard of this project's runs and batches (issue 52).

``data`` reads what runs and batches recorded, through the same readers the CLI
uses (``runner.listing``, ``batch.listing``, ``batch.worktrees``); ``pages``
and ``chart`` turn that plain, already redacted data into HTML and SVG;
``guard`` decides who may ask (token, Host, CSRF); ``server`` serves it on
loopback with live updates as server-sent events. Nothing here is imported
by any other command.
"""
