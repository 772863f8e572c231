"""The command line's own behaviour: a reader that goes away, and a broken pipe of a command's."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import PLAYERS, fixed_board, play_random

from companion.journal import JournaledGame


def _journal(path: Path, steps: int) -> Path:
    jg = JournaledGame.create(path, fixed_board(), PLAYERS, seed=3)
    play_random(jg, steps, seed=5)
    jg.close()
    return path


@pytest.fixture(scope="module")
def journal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A closed journal of a game whose JSON replay is larger than stdout's buffer."""
    return _journal(tmp_path_factory.mktemp("cli") / "long.sqlite", 120)


@pytest.fixture(scope="module")
def short_journal(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A closed journal whose replay fits in stdout's buffer: written only by the last flush."""
    return _journal(tmp_path_factory.mktemp("cli") / "short.sqlite", 6)


def _cli(*args: str, stdout: int) -> subprocess.CompletedProcess[str]:
    # Block-buffered stdout, as in CI and at a shell, whatever the test runner's environment says.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    return subprocess.run(
        [sys.executable, "-m", "companion.cli", *args],
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        timeout=120,
    )


@pytest.mark.parametrize("extra", [(), ("--json",)], ids=["text", "json"])
@pytest.mark.parametrize("which", ["journal", "short_journal"])
def test_a_reader_that_went_away_ends_the_command_quietly(
    request: pytest.FixtureRequest, which: str, extra: tuple[str, ...]
) -> None:
    # `replay ... | head -1` once head has exited: the reading end is closed before any write,
    # so a write during the replay or the last flush meets a broken pipe, without any timing.
    path: Path = request.getfixturevalue(which)
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        done = _cli("replay", str(path), *extra, stdout=write_end)
    finally:
        os.close(write_end)
    assert done.returncode == 0
    assert done.stderr == ""


def test_the_same_command_into_an_open_pipe_prints_everything(journal: Path) -> None:
    done = _cli("replay", str(journal), stdout=subprocess.PIPE)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("-- founding phase\n")
    assert done.stdout.splitlines()[-1].startswith(("score: ", "winner: "))


def test_a_broken_pipe_of_the_commands_own_is_a_failure_not_a_quiet_end(tmp_path: Path) -> None:
    # A tower's or a page's pipe breaking must not pass for a reader of stdout going away.
    script = (
        "import sys\n"
        "import companion.commands.replay as replay\n"
        "def run(args):\n"
        "    raise BrokenPipeError(32, 'Broken pipe')\n"
        "replay.run = run\n"
        "from companion.cli import main\n"
        f"sys.exit(main(['replay', {str(tmp_path / 'any.sqlite')!r}]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    assert done.stderr.strip() == "catan-companion: [Errno 32] Broken pipe"


def test_a_command_imports_its_own_module_and_no_other_commands() -> None:
    # A fresh interpreter: what this test session imported already does not count.
    script = (
        "import sys\n"
        "from companion.cli import BENCHES, COMMANDS, build_parser\n"
        "build_parser(['-v', 'replay', 'game.sqlite', '--json'])\n"
        "modules = [m for m, _ in [*COMMANDS.values(), *BENCHES.values()]]\n"
        "print(' '.join(m for m in modules if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["companion.commands.replay"]


def test_the_helps_list_every_command_and_bench(capsys: pytest.CaptureFixture[str]) -> None:
    from companion.cli import BENCHES, COMMANDS, build_parser

    for argv, names in ((["--help"], COMMANDS), (["bench", "--help"], BENCHES)):
        with pytest.raises(SystemExit):
            build_parser(argv).parse_args(argv)
        listed = capsys.readouterr().out
        assert [name for name in names if name not in listed] == []


@pytest.mark.parametrize(("given", "kept"), [(None, "1"), ("2", "2")])
def test_numpys_blas_runs_on_one_thread_unless_the_environment_says_otherwise(
    given: str | None, kept: str
) -> None:
    # A fresh interpreter: NumPy reads the setting when it is first imported, which here is
    # by the command that main runs.
    script = (
        "import os, sys\n"
        "from companion.cli import main\n"
        "main(['check-setup', '/nonexistent/board.json'])\n"
        "import numpy\n"
        "numpy.ones((200, 324), numpy.float32) @ numpy.ones((324, 128), numpy.float32)\n"
        "print(os.environ['OPENBLAS_NUM_THREADS'], len(os.listdir('/proc/self/task')))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if given is not None:
        env["OPENBLAS_NUM_THREADS"] = given
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    setting, threads = done.stdout.split()
    assert setting == kept
    if given is None:
        # No BLAS worker threads beside the main one.
        assert threads == "1"
