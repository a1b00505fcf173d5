"""The runner: ``run`` once, ``loop`` with guardrails, and the run summary."""
