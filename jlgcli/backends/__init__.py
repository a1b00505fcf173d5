"""Backend adapters: one module per agent CLI, plus the registry.

Public surface (imported from its module, so that importing the backend ids
for config validation stays cheap):

- ``jlgcli.backends.registry``: ``get_backend(id, *, custom=None)``,
  ``all_backends(custom=None)``, ``probe_all(backends, *, timeout=2.0)``,
  ``auto_select(availabilities)``.
- ``jlgcli.backends.base``: the ``Backend`` protocol and its data types.
- ``jlgcli.backends.report``: the ``jlgcli backends --json`` report (records);
  ``report_schema``: its pydantic twin, for the JSON Schema only.
"""
