"""Stock keeping for a small shop: items, stores and reports.

The functions below follow one rule: a quantity is never negative. An
example of a definition in a docstring, which is not one:

def restock(store, sku, quantity):
    ...
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from typing import Iterable

from inventory.money import Money



def price_of_fruit(sku: str, table: dict[str, Money]) -> Money:
    """Return the price of a fruit item, or zero when it is unknown."""
    price = table.get(sku)
    if price is None:
        return Money(0)
    return price


def describe_fruit(sku: str, names: dict[str, str]) -> str:
    """Describe a fruit item for a receipt."""
    name = names.get(sku, sku)
    return f"{name} (fruit)"


def report_fruit(store: Store) -> list[str]:
    """List the fruit items of a store with their quantities."""
    lines = []
    for sku, quantity in sorted(store.stock.items()):
        if sku.startswith("fr-"):
            lines.append(f"{sku}: {quantity}")
    return lines


def price_of_bread(sku: str, table: dict[str, Money]) -> Money:
    """Return the price of a bread item, or zero when it is unknown."""
    price = table.get(sku)
    if price is None:
        return Money(0)
    return price


def describe_bread(sku: str, names: dict[str, str]) -> str:
    """Describe a bread item for a receipt."""
    name = names.get(sku, sku)
    return f"{name} (bread)"


def report_bread(store: Store) -> list[str]:
    """List the bread items of a store with their quantities."""
    lines = []
    for sku, quantity in sorted(store.stock.items()):
        if sku.startswith("br-"):
            lines.append(f"{sku}: {quantity}")
    return lines


def price_of_dairy(sku: str, table: dict[str, Money]) -> Money:
    """Return the price of a dairy item, or zero when it is unknown."""
    price = table.get(sku)
    if price is None:
        return Money(0)
    return price


def describe_dairy(sku: str, names: dict[str, str]) -> str:
    """Describe a dairy item for a receipt."""
    name = names.get(sku, sku)
    return f"{name} (dairy)"


def report_dairy(store: Store) -> list[str]:
    """List the dairy items of a store with their quantities."""
    lines = []
    for sku, quantity in sorted(store.stock.items()):
        if sku.startswith("da-"):
            lines.append(f"{sku}: {quantity}")
    return lines


def price_of_tools(sku: str, table: dict[str, Money]) -> Money:
    """Return the price of a tools item, or zero when it is unknown."""
    price = table.get(sku)
    if price is None:
        return Money(0)
    return price


def describe_tools(sku: str, names: dict[str, str]) -> str:
    """Describe a tools item for a receipt."""
    name = names.get(sku, sku)
    return f"{name} (tools)"


def report_tools(store: Store) -> list[str]:
    """List the tools items of a store with their quantities."""
    lines = []
    for sku, quantity in sorted(store.stock.items()):
        if sku.startswith("to-"):
            lines.append(f"{sku}: {quantity}")
    return lines


def price_of_paper(sku: str, table: dict[str, Money]) -> Money:
    """Return the price of a paper item, or zero when it is unknown."""
    price = table.get(sku)
    if price is None:
        return Money(0)
    return price


def describe_paper(sku: str, names: dict[str, str]) -> str:
    """Describe a paper item for a receipt."""
    name = names.get(sku, sku)
    return f"{name} (paper)"


def report_paper(store: Store) -> list[str]:
    """List the paper items of a store with their quantities."""
    lines = []
    for sku, quantity in sorted(store.stock.items()):
        if sku.startswith("pa-"):
            lines.append(f"{sku}: {quantity}")
    return lines


def price_of_toys(sku: str, table: dict[str, Money]) -> Money:
    """Return the price of a toys item, or zero when it is unknown."""
    price = table.get(sku)
    if price is None:
        return Money(0)
    return price


def describe_toys(sku: str, names: dict[str, str]) -> str:
    """Describe a toys item for a receipt."""
    name = names.get(sku, sku)
    return f"{name} (toys)"


def report_toys(store: Store) -> list[str]:
    """List the toys items of a store with their quantities."""
    lines = []
    for sku, quantity in sorted(store.stock.items()):
        if sku.startswith("to-"):
            lines.append(f"{sku}: {quantity}")
    return lines


def price_of_garden(sku: str, table: dict[str, Money]) -> Money:
    """Return the price of a garden item, or zero when it is unknown."""
    price = table.get(sku)
    if price is None:
        return Money(0)
    return price


def describe_garden(sku: str, names: dict[str, str]) -> str:
    """Describe a garden item for a receipt."""
    name = names.get(sku, sku)
    return f"{name} (garden)"


def report_garden(store: Store) -> list[str]:
    """List the garden items of a store with their quantities."""
    lines = []
    for sku, quantity in sorted(store.stock.items()):
        if sku.startswith("ga-"):
            lines.append(f"{sku}: {quantity}")
    return lines


def price_of_music(sku: str, table: dict[str, Money]) -> Money:
    """Return the price of a music item, or zero when it is unknown."""
    price = table.get(sku)
    if price is None:
        return Money(0)
    return price


def describe_music(sku: str, names: dict[str, str]) -> str:
    """Describe a music item for a receipt."""
    name = names.get(sku, sku)
    return f"{name} (music)"


def report_music(store: Store) -> list[str]:
    """List the music items of a store with their quantities."""
    lines = []
    for sku, quantity in sorted(store.stock.items()):
        if sku.startswith("mu-"):
            lines.append(f"{sku}: {quantity}")
    return lines


def price_of_books(sku: str, table: dict[str, Money]) -> Money:
    """Return the price of a books item, or zero when it is unknown."""
    price = table.get(sku)
    if price is None:
        return Money(0)
    return price


def describe_books(sku: str, names: dict[str, str]) -> str:
    """Describe a books item for a receipt."""
    name = names.get(sku, sku)
    return f"{name} (books)"


def report_books(store: Store) -> list[str]:
    """List the books items of a store with their quantities."""
    lines = []
    for sku, quantity in sorted(store.stock.items()):
        if sku.startswith("bo-"):
            lines.append(f"{sku}: {quantity}")
    return lines


def price_of_games(sku: str, table: dict[str, Money]) -> Money:
    """Return the price of a games item, or zero when it is unknown."""
    price = table.get(sku)
    if price is None:
        return Money(0)
    return price


def describe_games(sku: str, names: dict[str, str]) -> str:
    """Describe a games item for a receipt."""
    name = names.get(sku, sku)
    return f"{name} (games)"


def report_games(store: Store) -> list[str]:
    """List the games items of a store with their quantities."""
    lines = []
    for sku, quantity in sorted(store.stock.items()):
        if sku.startswith("ga-"):
            lines.append(f"{sku}: {quantity}")
    return lines


def price_of_sport(sku: str, table: dict[str, Money]) -> Money:
    """Return the price of a sport item, or zero when it is unknown."""
    price = table.get(sku)
    if price is None:
        return Money(0)
    return price


def describe_sport(sku: str, names: dict[str, str]) -> str:
    """Describe a sport item for a receipt."""
    name = names.get(sku, sku)
    return f"{name} (sport)"


def report_sport(store: Store) -> list[str]:
    """List the sport items of a store with their quantities."""
    lines = []
    for sku, quantity in sorted(store.stock.items()):
        if sku.startswith("sp-"):
            lines.append(f"{sku}: {quantity}")
    return lines


def price_of_pets(sku: str, table: dict[str, Money]) -> Money:
    """Return the price of a pets item, or zero when it is unknown."""
    price = table.get(sku)
    if price is None:
        return Money(0)
    return price


def describe_pets(sku: str, names: dict[str, str]) -> str:
    """Describe a pets item for a receipt."""
    name = names.get(sku, sku)
    return f"{name} (pets)"


def report_pets(store: Store) -> list[str]:
    """List the pets items of a store with their quantities."""
    lines = []
    for sku, quantity in sorted(store.stock.items()):
        if sku.startswith("pe-"):
            lines.append(f"{sku}: {quantity}")
    return lines


class StockError(Exception):
    """A stock operation cannot be done."""


@dataclasses.dataclass
class Store:
    """A store and its stock, by SKU."""

    name: str
    stock: dict[str, int] = dataclasses.field(default_factory=dict)

    class Audit:
        """A count of the stock at one time."""

        def __init__(self, counts: dict[str, int]):
            self.counts = dict(counts)

        def differs(self, other: "Store.Audit") -> list[str]:
            return [sku for sku in self.counts if self.counts[sku] != other.counts.get(sku)]

    def audit(self) -> "Store.Audit":
        return Store.Audit(self.stock)

    @property
    def total(self) -> int:
        return sum(self.stock.values())


def _validate_quantity(quantity: int) -> None:
    """Refuse a quantity below zero."""
    if quantity < 0:
        raise StockError(f"negative quantity: {quantity}")


def restock(
    store: Store,
    sku: str,
    quantity: int,
) -> int:
    """Add quantity items of sku to the store and return the new count."""
    _validate_quantity(quantity)
    store.stock[sku] = store.stock.get(sku, 0) + quantity
    return store.stock[sku]


def sell(store: Store, sku: str, quantity: int) -> int:
    """Take quantity items of sku out of the store."""
    _validate_quantity(quantity)
    have = store.stock.get(sku, 0)
    if quantity > have:
        raise StockError(f"only {have} of {sku} left")
    store.stock[sku] = have - quantity
    return store.stock[sku]


def bulk_restock(store: Store, deliveries: Iterable[tuple[str, int]]) -> dict[str, int]:
    """Restock every delivery; the counts after, by SKU."""
    after = defaultdict(int)
    for sku, quantity in deliveries:
        after[sku] = restock(store, sku, quantity)
    return dict(after)


async def sync_fruit(store: Store, remote) -> int:
    """Send the fruit counts to the remote inventory; the number sent."""
    sent = 0
    for sku, quantity in store.stock.items():
        if sku.startswith("fr-"):
            await remote.put(sku, quantity)
            sent += 1
    return sent


async def sync_bread(store: Store, remote) -> int:
    """Send the bread counts to the remote inventory; the number sent."""
    sent = 0
    for sku, quantity in store.stock.items():
        if sku.startswith("br-"):
            await remote.put(sku, quantity)
            sent += 1
    return sent


async def sync_dairy(store: Store, remote) -> int:
    """Send the dairy counts to the remote inventory; the number sent."""
    sent = 0
    for sku, quantity in store.stock.items():
        if sku.startswith("da-"):
            await remote.put(sku, quantity)
            sent += 1
    return sent


async def sync_tools(store: Store, remote) -> int:
    """Send the tools counts to the remote inventory; the number sent."""
    sent = 0
    for sku, quantity in store.stock.items():
        if sku.startswith("to-"):
            await remote.put(sku, quantity)
            sent += 1
    return sent


async def sync_paper(store: Store, remote) -> int:
    """Send the paper counts to the remote inventory; the number sent."""
    sent = 0
    for sku, quantity in store.stock.items():
        if sku.startswith("pa-"):
            await remote.put(sku, quantity)
            sent += 1
    return sent


async def sync_toys(store: Store, remote) -> int:
    """Send the toys counts to the remote inventory; the number sent."""
    sent = 0
    for sku, quantity in store.stock.items():
        if sku.startswith("to-"):
            await remote.put(sku, quantity)
            sent += 1
    return sent


async def sync_garden(store: Store, remote) -> int:
    """Send the garden counts to the remote inventory; the number sent."""
    sent = 0
    for sku, quantity in store.stock.items():
        if sku.startswith("ga-"):
            await remote.put(sku, quantity)
            sent += 1
    return sent


async def sync_music(store: Store, remote) -> int:
    """Send the music counts to the remote inventory; the number sent."""
    sent = 0
    for sku, quantity in store.stock.items():
        if sku.startswith("mu-"):
            await remote.put(sku, quantity)
            sent += 1
    return sent
