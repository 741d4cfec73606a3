"""Schemas: the keyword vocabulary by draft, normalization, lint findings, the lenient reading
of an old schema, and in-place edits of catalog files."""
