"""Many tasks at once (issue 37): ``jlgcli loop TASK... -j N``.

Each task runs as its own ``jlgcli loop`` process in its own git worktree
(``.jlgcli/worktrees/<id>``) on its own branch (``jlgcli/<id>``), N at a
time, under one shared cost budget; done tasks are committed on their branch
and, with ``--merge``, integrated one at a time only when their gates pass on
the rebased result. Modules: ``entry`` (the loop handler: a single loop imports
nothing else), ``command`` (the batch door: set up or resume, report),
``run_tasks`` (the tasks' children, scheduled, their events), ``setup`` (checks, names,
worktrees), ``record`` (the batch record for ``--resume``), ``child``
(one task's process), ``schedule`` (N at a time, the budget, Ctrl-C),
``finish`` (commit, merge), ``board`` and ``report`` (what a person sees),
``github`` (a batch's step outputs), ``matrix`` (the Actions fan-out) and
``task_server`` (Linux: the warm process each task is forked from). Issue 44:
``waves`` (depends-on: the order, the verdicts, the start points), ``commits``
(a task's commit: the user's, with its title and the agent's summary),
``retry`` (``--retry-conflicts``), ``worktrees`` (``jlgcli worktrees [prune]``)
and ``listing`` (batches in ``jlgcli runs``).
"""
