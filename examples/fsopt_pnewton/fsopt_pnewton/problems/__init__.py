"""Problem files of the fsopt-pnewton plugin (entry point group ``fsopt.problems``)."""
