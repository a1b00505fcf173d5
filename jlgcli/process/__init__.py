"""The process layer: run an ``Invocation`` through a pipe or a pty, stream events, kill trees."""
