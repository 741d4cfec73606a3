"""Inputs: catalogs and call logs in every shape they come in -> ToolSchema and Call records.

Failures are values with their ``file:line``; nothing here judges a call.
"""
