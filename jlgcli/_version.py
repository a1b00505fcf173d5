"""The one place the version lives; read by setuptools at build time and by ``--version``."""

__version__ = "0.1.0"
