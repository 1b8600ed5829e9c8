"""wordpiece_ui/algorithm_code.py: the plain trainer's source, annotated with a step's values."""

from wordpiece_ui import algorithm_code


def test_every_anchor_of_the_code_view_is_a_line_of_the_reference_trainer():
    lines = algorithm_code.source().splitlines()
    for name, anchor in algorithm_code.ANCHORS.items():
        assert sum(anchor in line for line in lines) == 1, name
