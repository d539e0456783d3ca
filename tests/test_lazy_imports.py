"""`check --provider P` of a pi-ai file loads only what judging it needs: not every format's adapter (the formats
package's registry, integrity.formats.registry: some 50 ms of each process) nor the analysis (another 22 ms);
`check` with no provider asked loads no provider's rule set (the providers' registry: some 20 ms); and the names
of both packages still load on first use, from the package as before."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _pi_ai(path: Path) -> Path:
    call = {"type": "toolCall", "id": "call_1", "name": "f", "arguments": {}}
    messages = [{"role": "user", "content": "hi", "timestamp": 1},
                {"role": "assistant", "content": [call], "stopReason": "toolUse", "timestamp": 1},
                {"role": "toolResult", "toolCallId": "call_1", "toolName": "f", "content": [], "isError": False,
                 "timestamp": 1},
                {"role": "toolResult", "toolCallId": "call_1", "toolName": "f", "content": [], "isError": False,
                 "timestamp": 1}]
    path.write_text(json.dumps(messages))
    return path


def _loaded(code: str, *args: str) -> list[str]:
    said = subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, capture_output=True, text=True)
    assert said.returncode == 0, said.stderr
    return said.stderr.split()


def test_check_with_a_provider_loads_neither_every_format_nor_the_analysis(tmp_path: Path) -> None:
    probe = ("import sys; from integrity.cli import main; main(['check', '--provider', sys.argv[2], sys.argv[1]]); "
             "print(*('integrity.formats.registry' in sys.modules, 'integrity.formats.claude_code' in sys.modules,"
             " 'integrity.analysis' in sys.modules, 'integrity.providers.sparse' in sys.modules), file=sys.stderr)")
    path = _pi_ai(tmp_path / "t.json")
    for provider in ("gemini", "bedrock", "deepseek", "openai-responses"):
        assert _loaded(probe, str(path), provider) == ["False", "False", "False", "True"], provider  # judged sparsely


def test_check_with_no_provider_loads_no_rule_set(tmp_path: Path) -> None:
    probe = ("import sys; from integrity.cli import main; main(['check', sys.argv[1]]); "
             "print('integrity.providers.registry' in sys.modules, 'integrity.providers.gemini' in sys.modules, "
             "file=sys.stderr); import integrity.providers as p; "
             "print(p.spec('gemini') is p.SPECS['gemini'], 'integrity.providers.registry' in sys.modules, "
             "p.PROVIDERS + p.registry.VARIANTS == tuple(p.SPECS), file=sys.stderr)")
    assert _loaded(probe, str(_pi_ai(tmp_path / "t.json"))) == ["False", "False", "True", "True", "True"]


def test_the_formats_package_loads_its_names_on_first_use() -> None:
    probe = ("import sys, integrity.formats.skeleton as s, integrity.formats as f; "
             "print('integrity.formats.registry' in sys.modules, file=sys.stderr); "
             "from integrity.formats import FORMAT_SPECS, read_bytes; import integrity.formats.gemini as g; "
             "print('integrity.formats.registry' in sys.modules, 'gemini' in FORMAT_SPECS, callable(read_bytes), "
             "f.gemini is g, f.ADAPTERS is f.registry.ADAPTERS, hasattr(f, 'no_such_name'), file=sys.stderr)")
    assert _loaded(probe) == ["False", "True", "True", "True", "True", "True", "False"]


def test_the_formats_package_names_are_the_registry_s() -> None:
    """The package's face lists its names once (__all__), and each is the registry's own object."""
    import integrity.formats as formats
    import integrity.formats.registry as registry

    assert formats.__all__ and all(getattr(formats, name) is getattr(registry, name) for name in formats.__all__)
