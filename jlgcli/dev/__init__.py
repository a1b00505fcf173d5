"""The plan-driven development loop (seed 003, AiDevLoop): ``jlgcli dev``, ``aidevloop``, ``adl``.

The programs and their parser are doors: ``jlgcli.commands.dev_program``
(``aidevloop``, ``adl``) and ``jlgcli.commands.dev_args``; this package is the mode.
Surface: ``orchestrator.execute_dev(DevOptions) -> DevResult`` (the whole
loop), ``agent.AgentCaller`` (how an agent is called), and the pure
parts: ``plan.parse_plan``, ``plan_edit.select_task``/``set_status``,
``review.parse_review``, ``state.infer_resume``, ``config.load_config``.
"""
