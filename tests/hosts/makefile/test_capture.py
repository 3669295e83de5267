"""A makefile's recipe lines keep the stderr of their commands (TL411): each line is its
own shell script (:func:`.embedded.embedded_captured`)."""

from __future__ import annotations

from torch_logs_lsp.hosts.makefile import host as makefile


def test_recipe_lines() -> None:
    text = (
        "export TORCH_LOGS = output_code\n"  # make exports it to every recipe: not known
        "all:\n"
        "\tTORCH_LOGS=output_code python a.py 2>&1 | tee log.txt\n"
        "\tTORCH_LOGS=output_code python a.py > run.log\n"
        "\t@TORCH_LOGS=output_code python a.py &> run.log\n"
    )
    spans = makefile.extract(text)
    assert makefile.stderr_captured(text, spans) == [False, True, False, True]


def test_a_line_does_not_see_the_next_one() -> None:
    text = "all:\n\texport TORCH_LOGS=output_code\n\tpython a.py 2> err.log\n"
    spans = makefile.extract(text)
    assert makefile.stderr_captured(text, spans) == [False]  # its own shell runs nothing
    oneshell = ".ONESHELL:\n" + text
    assert makefile.stderr_captured(oneshell, makefile.extract(oneshell)) == [True]
