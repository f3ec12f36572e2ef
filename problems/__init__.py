"""Problem declarations: one TOML file per problem (schema in fsopt/problems.py)."""
