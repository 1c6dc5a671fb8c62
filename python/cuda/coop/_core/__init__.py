"""Backend-neutral core: API markers, argument rules, errors and registration."""
