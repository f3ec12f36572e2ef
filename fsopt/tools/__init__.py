"""The tools: the command line, ``fsopt bench``, ``fsopt verify`` and ``fsopt experiment``.  They
find methods through the registries of :mod:`fsopt.core`."""
