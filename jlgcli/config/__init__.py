"""Configuration: the keys, where the files live, precedence, writing, and project trust.

``keys`` (names, bounds, defaults, parsers), ``paths`` (the user folder, the project file),
``resolve`` (reading the files and resolving flags > env > project > user > defaults),
``write`` (``config set``/``unset``/``trust``/``untrust`` under one lock) and ``trust``
(a project's commands run only once trusted). Importing the package is cheap on purpose:
each caller imports the module it needs.
"""
