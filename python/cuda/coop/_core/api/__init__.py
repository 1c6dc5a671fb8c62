"""The common API: group-first primitives, positional-only operands, keyword-only options."""
