def fmt_number(x: float) -> str:
    return f"{x:g}"
