"""``torchLogs.diagnosticMode``: read from the wire name, a bad value reported and replaced."""

from __future__ import annotations

from torch_logs_lsp.server.settings import parse_settings


def test_diagnostic_mode_is_read_and_checked() -> None:
    assert parse_settings({})[0].diagnostic_mode == "workspace"
    settings, problems = parse_settings({"torchLogs": {"diagnosticMode": "openFilesOnly"}})
    assert (settings.diagnostic_mode, problems) == ("openFilesOnly", [])
    settings, problems = parse_settings({"diagnosticMode": "everything"})
    assert settings.diagnostic_mode == "workspace"
    assert len(problems) == 1 and "torchLogs.diagnosticMode" in problems[0]
    settings, problems = parse_settings({"diagnosticMode": 3})
    assert settings.diagnostic_mode == "workspace" and problems
