"""The plan-driven development loop (seed 003, AiDevLoop): ``jlgcli dev``, ``aidevloop``, ``adl``.

Kept import-light (``--help`` imports ``cli_args`` through this package).
Surface: ``orchestrator.execute_dev(DevOptions) -> DevResult`` (the whole
loop), ``cli_entry.main`` (the standalone programs), ``cli_args`` (the
argparse tree), ``agent.AgentCaller`` (how an agent is called), and the pure
parts: ``plan.parse_plan``, ``plan_edit.select_task``/``set_status``,
``review.parse_review``, ``state.infer_resume``, ``config.load_config``.
"""
