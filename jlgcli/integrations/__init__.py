"""Glue for the doors other than the terminal: GitHub Actions, pre-commit, Invoke.

Each door is a thin layer over the same core (DESIGN "Every door calls the
same Python API"): ``github`` publishes a ``RunSummary`` as step outputs and a
job summary, ``hook`` turns the staged change into a prompt for ``jlgcli
hook``, ``action`` is the Python half of ``action.yml``, and ``argv`` maps a
door's named options to the one command line every door shares. Nothing here
is imported by ``run``/``loop`` unless a door asks for it.
"""
