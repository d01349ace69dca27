from calc.fmt import fmt_number


def test_fmt_number():
    assert fmt_number(2.0) == "2"
