class CalcError(Exception):
    """An operation has no result."""
