"""Problem files of the fsopt-irelief plugin (entry point group ``fsopt.problems``)."""
