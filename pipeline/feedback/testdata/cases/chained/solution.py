PRICES = {"apple": 3, "pear": 4}


def price(item):
    try:
        return PRICES[item]
    except KeyError as err:
        raise ValueError(f"unknown item {item!r}") from err
