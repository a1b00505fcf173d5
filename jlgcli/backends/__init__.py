"""Backend adapters: one module per agent CLI, plus the registry."""
