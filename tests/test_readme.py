"""The README promises two commands; CI must run exactly the README's test command."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def readme_commands() -> dict[str, str]:
    """The commands of the README's first bash block, keyed by their comment ("build", "test")."""
    block = re.search(r"```bash\n(.*?)```", (ROOT / "README.md").read_text(), re.S).group(1)
    commands = {}
    for line in block.strip().splitlines():
        command, _, comment = line.partition("#")
        commands["test" if "test" in comment else "build"] = command.strip()
    return commands


def test_ci_runs_the_readme_test_command() -> None:
    commands = readme_commands()
    assert commands["test"] == "bash scripts/test.sh"
    assert commands["build"] == "bash scripts/build.sh"
    ci = (ROOT / ".ci" / "run").read_text()
    assert re.search(r"^exec bash scripts/test\.sh$", ci, re.M), ci


def test_readme_scripts_exist_and_use_the_pinned_requirements() -> None:
    setup = (ROOT / "scripts" / "setup.sh").read_text()
    assert "requirements.txt" in setup and "-e ." in setup
    for name in ("build.sh", "test.sh"):
        assert ". scripts/setup.sh" in (ROOT / "scripts" / name).read_text()
    assert "--no-deps -r requirements-nodeps.txt" in setup
    for name in ("requirements.txt", "requirements-nodeps.txt"):
        pins = [
            line
            for line in (ROOT / name).read_text().splitlines()
            if line and not line.startswith("#")
        ]
        assert pins and all("==" in line for line in pins), (
            f"every requirement in {name} must be pinned exactly"
        )


def test_adding_a_chapter_names_files_and_tests_that_exist() -> None:
    """The README's "Adding a chapter" table: every concrete path it names exists (templates
    with <...> aside), and every check it cites is a test file of this repository."""
    text = (ROOT / "README.md").read_text()
    section = re.search(r"^## Adding a chapter\n(.*?)^\*\*Colab check", text, re.S | re.M)
    assert section, "README has no 'Adding a chapter' section"
    paths = set(re.findall(r"`([\w./-]+)`", section.group(1)))
    concrete = {p for p in paths if "/" in p or p.endswith((".yml", ".csv"))}
    missing = sorted(p for p in concrete if not (ROOT / p).exists())
    assert not missing, missing
    tests = {p for p in concrete if p.startswith("tests/")}
    assert len(tests) >= 6, tests
