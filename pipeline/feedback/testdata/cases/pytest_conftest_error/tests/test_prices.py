def test_total(basket):
    from shop.prices import total
    assert total(basket) == 3
