"""The generic core: subproblems and certificates, the solver registry, statuses, the fixed-point
driver, scaling, block reading of X, plugin loading and the check registry.  Imports no method and
no tool."""
