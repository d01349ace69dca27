"""Amounts of money in cents."""


class Money(int):
    """An amount in cents."""

    def __str__(self) -> str:
        return f"{self // 100}.{self % 100:02d}"
