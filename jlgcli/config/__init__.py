"""Configuration: the keys, where the files live, precedence, writing, and project trust.

``keys`` (names, bounds, defaults, parsers), ``paths`` (the user folder, the project file),
``resolve`` (reading the files and resolving flags > env > project > user > defaults),
``write`` (``config set``/``unset``/``trust``/``untrust`` under one lock), ``trust`` (a
project's commands run only once trusted), ``backend_ids`` (the ids the keys accept), and
what is kept in the user's own config folder for runs: ``asked`` (what the user asked, applied
again on resume) and ``started`` (the runs this user started; a live run's lock). Importing
the package is cheap on purpose: each caller imports the module it needs.
"""
