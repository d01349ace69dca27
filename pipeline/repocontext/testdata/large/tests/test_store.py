from inventory.store import Store, restock


def test_restock():
    store = Store("main")
    assert restock(store, "fr-apple", 3) == 3
