"""Helpers shared by test modules (pytest puts ``tests/`` on ``sys.path``: see pyproject)."""
