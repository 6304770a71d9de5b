from setpoint.words import count_of


def test_one_thing_is_singular_and_every_other_count_plural():
    assert count_of(1, "step") == "1 step"
    assert count_of(2, "step") == "2 steps"
    assert count_of(0, "step") == "0 steps"


def test_an_irregular_plural():
    assert count_of(1, "analysis", "analyses") == "1 analysis"
    assert count_of(3, "analysis", "analyses") == "3 analyses"
