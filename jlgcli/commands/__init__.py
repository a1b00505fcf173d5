"""One module per command: ``register(subparsers)`` (argparse only) and ``execute(args) -> int``."""
