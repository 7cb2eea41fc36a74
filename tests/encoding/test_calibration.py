"""The confidence a repair reports: the decoder's probability, corrected by the kind of place."""

from __future__ import annotations

import pytest

from metrics_registry.encoding import calibration, names


def test_the_kind_of_place_comes_from_the_token_that_holds_the_reading() -> None:
    assert calibration.kind("语", (3, "n"), rescored=False) == "word3"
    assert calibration.kind("语", (2, "n"), rescored=False) == "word2"
    assert calibration.kind("语", (1, "n"), rescored=False) == "single"
    assert calibration.kind("塞", (1, names.FIRST), rescored=False) == "name"
    assert calibration.kind("语", (3, "n"), rescored=True) == "rescored"
    # Letters, punctuation and emoji keep their probability, whatever chose them.
    assert calibration.kind("é", (1, "eng"), rescored=True) == "other"
    assert calibration.kind("、", None, rescored=False) == "other"


def test_a_reading_inside_a_long_word_is_sure() -> None:
    assert calibration.confidence(0.6, "word3") == calibration.WORD3_FLOOR >= 0.9
    assert calibration.confidence(0.97, "word3") == 0.97
    assert calibration.confidence(0.3, "word3") == 0.3  # the word itself was in doubt


def test_a_reading_the_second_pass_turned_is_doubtful_even_when_it_is_near_certain() -> None:
    assert calibration.confidence(0.999, "rescored") < 0.9
    assert calibration.confidence(0.5, "rescored") < 0.5
    low, high = calibration.confidence(0.9, "rescored"), calibration.confidence(0.99, "rescored")
    assert low < high  # still in the order of the probabilities


@pytest.mark.parametrize("place", ["word2", "name", "single", "other"])
def test_elsewhere_the_probability_stands(place: str) -> None:
    assert calibration.confidence(0.42, place) == 0.42
