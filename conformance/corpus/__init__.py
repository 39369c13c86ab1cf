"""The corpus side of the kit: the requirement index, coverage of it by the
vectors, scaffolding new vectors, and the `vectors` / `coverage` commands."""
