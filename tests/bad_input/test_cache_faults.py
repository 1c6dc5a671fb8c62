"""Bad-input catalogue, cache category: a provider cache that cannot be used. A compile
meets each fault and must go on (exit 0, LTO-IR written) with exactly one CoopWarning
naming the path and why; what the user asked of the cache explicitly (`coop cache clear`,
`coop cache stats`, `Engine.cache_stats()`) fails instead, as a CacheError.

Fragments may hold {home}, {root}, {shard}, {entry} and {outside}: paths made per run."""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from catalogue import Case, ids
from runners import CALL, check_compiled, check_one_warning, environment, expand, run_coop, run_engine, seed_cache

NOBODY = 65534


@dataclasses.dataclass
class Scene:
    """Where one case's fault lives: a cache home of its own and the key the call compiles to."""

    home: Path  # XDG_CACHE_HOME
    key: str
    outside: Path  # a directory outside the cache
    user: int | None = None  # run the command as this uid

    @property
    def root(self) -> Path:
        return self.home / "cccl" / "coop"

    @property
    def shard(self) -> Path:
        return self.root / self.key[:2]

    @property
    def entry(self) -> Path:
        return self.shard / f"{self.key}.entry"

    def places(self) -> dict:
        return {"home": self.home, "root": self.root, "shard": self.shard, "entry": self.entry, "outside": self.outside}


@dataclasses.dataclass(frozen=True)
class Fault:
    arrange: Callable[[Scene, object], None]  # (scene, seed): puts the fault in place
    run: str = "compile"  # compile | engine-compile | engine-stats | clear | clear-json | stats-json
    cache: str = "miss"  # what the compile must report: the fault never passes for a hit
    untouched: bool = False  # the compile must leave the planted entry as it was: nothing is written there


def _root_only(scene: Scene) -> None:
    if os.geteuid() != 0:
        pytest.skip("giving a directory to another user needs root")


def entry_directory(scene, seed):
    scene.entry.mkdir(parents=True)


def entry_fifo(scene, seed):
    scene.shard.mkdir(parents=True)
    os.mkfifo(scene.entry)


def entry_dev_zero(scene, seed):
    scene.shard.mkdir(parents=True)
    scene.entry.symlink_to("/dev/zero")


def entry_linked_to_valid_entry(scene, seed):
    seed.copy_to(scene.outside)  # a followed link would be a hit
    scene.shard.mkdir(parents=True)
    scene.entry.symlink_to(scene.outside / "cccl" / "coop" / scene.key[:2] / f"{scene.key}.entry")


def entry_oversized(scene, seed):
    scene.shard.mkdir(parents=True)
    with open(scene.entry, "wb") as entry:
        entry.truncate(300 << 20)  # sparse: costs no disk


def _resign(scene: Scene, body: bytes) -> None:
    """Writes `body` as the entry, with the MAC the user's own key gives it: only the checks
    after the MAC can refuse it."""
    key = (scene.root / "entry-key").read_bytes()
    scene.entry.write_bytes(body + hmac.new(key, body, hashlib.sha256).hexdigest().encode())


def _edit_signed(scene: Scene, edit: Callable[[dict, bytes], bytes]) -> None:
    """The seed's entry with its header fields and LTO-IR edited by `edit`, signed again."""
    seed_body = scene.entry.read_bytes()[:-64]
    magic, header, ltoir = seed_body.split(b"\n", 2)
    fields = json.loads(header)
    ltoir = edit(fields, ltoir)
    fields["ltoir_size"] = len(ltoir)
    _resign(scene, magic + b"\n" + json.dumps(fields, separators=(",", ":")).encode() + b"\n" + ltoir)


def entry_with_anothers_layouts(scene, seed):
    """The seed's entry (a call without scratch: no layouts) given a layout, signed with the user's key."""
    seed.copy_to(scene.home)
    _edit_signed(scene, lambda fields, ltoir: fields.update(layouts=[{"alignment": 16, "bytes": 4096}]) or ltoir)


def entry_with_impossible_scratch(scene, seed):
    """A scratch of 2^64 - 1 bytes, signed with the user's key: the entry is wrong, not the call."""
    seed.copy_to(scene.home)
    _edit_signed(scene, lambda fields, ltoir: fields.update(layouts=[{"alignment": 16, "bytes": 2**64 - 1}]) or ltoir)


def entry_holding_an_elf_binary(scene, seed):
    seed.copy_to(scene.home)
    _edit_signed(scene, lambda fields, ltoir: b"\x7fELF\x02\x01\x01" + bytes(200))


def entry_holding_garbage(scene, seed):
    seed.copy_to(scene.home)
    _edit_signed(scene, lambda fields, ltoir: b"\x5a" * 5000)


def entry_with_a_forged_checksum(scene, seed):
    """What someone who can write the entry but not read the key can make: an unkeyed SHA-256."""
    seed.copy_to(scene.home)
    body = scene.entry.read_bytes()[:-64].replace(b"\xed\x43\x4e\x7f", b"\x7fELF", 1)
    scene.entry.write_bytes(body + hashlib.sha256(body).hexdigest().encode())


def entry_writable_by_others(scene, seed):
    seed.copy_to(scene.home)
    scene.entry.chmod(0o666)


def entry_foreign(scene, seed):
    _root_only(scene)
    seed.copy_to(scene.home)
    os.chown(scene.entry, NOBODY, NOBODY)


def shard_writable_by_others(scene, seed):
    seed.copy_to(scene.home)
    scene.shard.chmod(0o777)


def key_readable_by_others(scene, seed):
    seed.copy_to(scene.home)
    (scene.root / "entry-key").chmod(0o644)


def root_writable_by_others_holding_a_planted_entry(scene, seed):
    """The user's cache root is 0777 (a shared XDG_CACHE_HOME); another user (nobody) plants
    a valid entry in it. The user's run must refuse the root, compile, and write nothing there."""
    _root_only(scene)
    scene.root.mkdir(parents=True)
    scene.root.chmod(0o777)
    planted = scene.outside / "planted.entry"
    shutil.copyfile(seed.home / "cccl" / "coop" / scene.key[:2] / f"{scene.key}.entry", planted)
    planted.chmod(0o644)
    as_nobody = {"user": NOBODY, "group": NOBODY, "extra_groups": []}
    subprocess.run(["mkdir", str(scene.shard)], check=True, **as_nobody)
    subprocess.run(["cp", str(planted), str(scene.entry)], check=True, **as_nobody)
    assert scene.entry.stat().st_uid == NOBODY


def root_linked_to_a_valid_cache(scene, seed):
    seed.copy_to(scene.outside)  # a followed link would be a hit
    scene.root.parent.mkdir(parents=True)
    scene.root.symlink_to(scene.outside / "cccl" / "coop", target_is_directory=True)


def shard_linked_elsewhere(scene, seed):
    seed.copy_to(scene.outside)
    scene.root.mkdir(parents=True)
    scene.shard.symlink_to(scene.outside / "cccl" / "coop" / scene.key[:2], target_is_directory=True)


def shard_loop(scene, seed):
    scene.root.mkdir(parents=True)
    scene.shard.symlink_to(scene.key[:2])


def shard_file(scene, seed):
    scene.root.mkdir(parents=True)
    scene.shard.write_text("a file where a shard directory belongs")


def root_file(scene, seed):
    scene.root.parent.mkdir(parents=True)
    scene.root.write_text("a file where the cache directory belongs")


def root_loop(scene, seed):
    scene.root.parent.mkdir(parents=True)
    scene.root.symlink_to("coop")


def root_name_too_long(scene, seed):
    """A component longer than NAME_MAX; the warning names it, the first directory that cannot be made."""
    scene.home = scene.home / ("x" * 300)


def root_foreign(scene, seed):
    _root_only(scene)
    scene.root.mkdir(parents=True)
    os.chown(scene.root, NOBODY, NOBODY)
    scene.root.chmod(0o777)  # writable by the caller: refused for its owner, not for lack of access


def root_without_permissions(scene, seed):
    """Root ignores mode bits, so the command runs as nobody, whose cache root is mode 000."""
    _root_only(scene)
    for directory in (scene.home.parent, scene.outside):
        os.chown(directory, NOBODY, NOBODY)
    scene.root.mkdir(parents=True)
    for directory in (scene.home, scene.home / "cccl", scene.root):
        os.chown(directory, NOBODY, NOBODY)
    scene.root.chmod(0)
    scene.user = NOBODY


def stuck_entry(scene, seed):
    """A non-empty directory at one entry path, which remove() refuses, beside an entry it can remove."""
    (scene.entry / "inside").mkdir(parents=True)
    removable = scene.root / "ff" / f"{'f' * 64}.entry"
    removable.parent.mkdir(exist_ok=True)
    removable.write_text("clear() goes by the name")


_NO_CACHE = "compiling without the disk cache"

CASES = [
    Case(
        "entry_is_a_directory",
        "CoopWarning",
        ("'{entry}' is a directory, not a regular file", "compiling instead of loading from it"),
        Fault(entry_directory),
    ),
    Case("entry_is_a_fifo", "CoopWarning", ("'{entry}' is a FIFO, not a regular file",), Fault(entry_fifo)),
    Case(
        "entry_links_to_dev_zero",
        "CoopWarning",
        ("'{entry}' is a symbolic link, which the cache never follows",),
        Fault(entry_dev_zero),
    ),
    Case(
        "entry_links_to_a_valid_entry",
        "CoopWarning",
        ("'{entry}' is a symbolic link, which the cache never follows",),
        Fault(entry_linked_to_valid_entry),
    ),
    Case(
        "entry_larger_than_any_bundle",
        "CoopWarning",
        ("'{entry}' holds 314572800 bytes, more than the", "any entry may have"),
        Fault(entry_oversized),
    ),
    Case(
        "entry_with_layouts_of_another_bundle",
        "CoopWarning",
        ("'{entry}' holds 1 layout(s) for 0 scratch specialization(s)", "compiling instead"),
        Fault(entry_with_anothers_layouts),
    ),
    Case(
        "shard_links_elsewhere",
        "CoopWarning",
        ("'{shard}' is a symbolic link, which the cache never follows",),
        Fault(shard_linked_elsewhere),
    ),
    Case("shard_link_loop", "CoopWarning", ("'{shard}' is a symbolic link",), Fault(shard_loop)),
    Case("shard_is_a_file", "CoopWarning", ("'{shard}' is a regular file, not a directory",), Fault(shard_file)),
    Case("root_is_a_file", "CoopWarning", ("'{root}' is a regular file, not a directory", _NO_CACHE), Fault(root_file)),
    Case("root_link_loop", "CoopWarning", ("'{root}' is a symbolic link", _NO_CACHE), Fault(root_loop)),
    Case(
        "root_name_longer_than_the_limit",
        "CoopWarning",
        ("cannot create directory '{home}'", "File name too long", _NO_CACHE, "XDG_CACHE_HOME"),
        Fault(root_name_too_long),
    ),
    Case(
        "root_owned_by_another_user",
        "CoopWarning",
        ("'{root}' belongs to uid 65534", "whoever can write it can put code into your kernels", "XDG_CACHE_HOME"),
        Fault(root_foreign),
    ),
    Case(
        "root_without_permissions",
        "CoopWarning",
        ("cannot open directory '{root}': Permission denied", _NO_CACHE),
        Fault(root_without_permissions),
    ),
    Case(
        "engine_root_is_a_file",
        "CoopWarning",
        ("'{root}' is a regular file, not a directory", _NO_CACHE),
        Fault(root_file, "engine-compile"),
    ),
    # Item 22.2: the cache trusts only what its user wrote.
    Case(
        "root_writable_by_others_holding_anothers_entry",
        "CoopWarning",
        ("'{root}' is writable by its group or by others (mode 0777)", "whoever can write it", _NO_CACHE),
        Fault(root_writable_by_others_holding_a_planted_entry, untouched=True),
    ),
    Case(
        "engine_root_writable_by_others_holding_anothers_entry",
        "CoopWarning",
        ("'{root}' is writable by its group or by others (mode 0777)", _NO_CACHE),
        Fault(root_writable_by_others_holding_a_planted_entry, "engine-compile", untouched=True),
    ),
    Case(
        "root_links_to_a_valid_cache",
        "CoopWarning",
        ("'{root}' is a symbolic link, which the cache never follows", _NO_CACHE),
        Fault(root_linked_to_a_valid_cache),
    ),
    Case(
        "shard_writable_by_others",
        "CoopWarning",
        ("'{shard}' is writable by its group or by others (mode 0777)", "compiling instead of loading from it"),
        Fault(shard_writable_by_others, untouched=True),
    ),
    Case(
        "entry_writable_by_others",
        "CoopWarning",
        ("'{entry}' is writable by its group or by others (mode 0666)", "whoever can write it"),
        Fault(entry_writable_by_others),
    ),
    Case("entry_owned_by_another_user", "CoopWarning", ("'{entry}' belongs to uid 65534",), Fault(entry_foreign)),
    Case(
        "key_readable_by_others",
        "CoopWarning",
        ("'{root}/entry-key' is open to its group or to others (mode 0644)", "whoever can read it can forge"),
        Fault(key_readable_by_others),
    ),
    Case(
        "entry_with_a_forged_checksum",
        "CoopWarning",
        ("'{entry}' does not carry a MAC made with this cache's key", "compiling instead (the compile replaces it)"),
        Fault(entry_with_a_forged_checksum),
    ),
    Case(
        "entry_signed_holding_an_elf_binary",
        "CoopWarning",
        ("'{entry}' holds an ELF binary, not LTO-IR", "compiling instead"),
        Fault(entry_holding_an_elf_binary),
    ),
    Case(
        "entry_signed_holding_garbage",
        "CoopWarning",
        ("'{entry}' holds bytes of an unknown kind, not LTO-IR",),
        Fault(entry_holding_garbage),
    ),
    # Item 22.3: a bad entry costs a compile, never the user's call.
    Case(
        "entry_signed_with_a_scratch_of_2_to_the_64_minus_1",
        "CoopWarning",
        ("'{entry}' holds a scratch layout of 18446744073709551615 bytes aligned to 16, which no compile gives",),
        Fault(entry_with_impossible_scratch),
    ),
    Case(
        "engine_root_owned_by_another_user",
        "CoopWarning",
        ("'{root}' belongs to uid 65534",),
        Fault(root_foreign, "engine-compile"),
    ),
    Case(
        "engine_root_name_longer_than_the_limit",
        "CoopWarning",
        ("cannot create directory '{home}'", "File name too long", _NO_CACHE),
        Fault(root_name_too_long, "engine-compile"),
    ),
    Case(
        "clear_cannot_remove_everything",
        "exit 1 CacheError",
        ("could not remove 1 file(s) from '{root}'", "'{entry}': Directory not empty"),
        Fault(stuck_entry, "clear"),
    ),
    Case(
        "clear_json_cannot_remove_everything",
        "exit 1 CacheError",
        ("could not remove 1 file(s)", "'{entry}': Directory not empty"),
        Fault(stuck_entry, "clear-json"),
    ),
    Case(
        "stats_json_of_a_root_that_is_a_file",
        "exit 1 CacheError",
        ("cannot list '{root}'", "Not a directory"),
        Fault(root_file, "stats-json"),
    ),
    Case(
        "engine_stats_of_a_root_that_is_a_file",
        "CacheError",
        ("cannot list '{root}'", "Not a directory"),
        Fault(root_file, "engine-stats"),
    ),
]


@pytest.fixture(scope="module")
def seed(tmp_path_factory):
    return seed_cache(tmp_path_factory.mktemp("seed"))


@pytest.fixture
def scene(seed):
    # Not pytest's tmp_path: its parents are private to root, and one case runs as nobody.
    base = Path(tempfile.mkdtemp(prefix="coop-cache-fault-"))
    base.chmod(0o755)
    (base / "outside").mkdir()
    yield Scene(base / "xdg", seed.key, base / "outside")
    shutil.rmtree(base, ignore_errors=True)


def _entry_state(scene):
    """What is at the entry's path, for cases where nothing may be written there."""
    return scene.entry.read_bytes() if scene.entry.is_file() else None


def _compile(case, scene, fault):
    output = scene.outside / "bundle.ltoir"
    before = _entry_state(scene)
    outcome = run_coop([*CALL, "--json", "-o", str(output)], environment(scene.home), user=scene.user)
    check_compiled(outcome, output)
    assert outcome.report["cache"] == fault.cache, outcome.stdout
    check_one_warning(case, outcome, scene.places())
    if fault.untouched:
        assert _entry_state(scene) == before, "the compile wrote where the cache refused to look"


def _engine_compile(case, scene, fault):
    before = _entry_state(scene)
    outcome = run_engine("compile", environment(scene.home))
    assert outcome.status == 0, outcome.stderr
    assert "error" not in outcome.report, outcome.report
    assert outcome.report["ltoir_bytes"] > 0 and outcome.report["cache"] == fault.cache, outcome.report
    check_one_warning(case, outcome, scene.places())
    if fault.untouched:
        assert _entry_state(scene) == before, "the compile wrote where the cache refused to look"


def _explicit(case, scene, fault):
    arguments = {"clear": ["cache", "clear"], "clear-json": ["cache", "clear", "--json"]}
    outcome = run_coop(arguments.get(fault.run, ["cache", "stats", "--json"]), environment(scene.home))
    assert outcome.status == 1, f"exit {outcome.status}\n{outcome.stdout}{outcome.stderr}"
    if fault.run == "clear":
        assert "removed 1 entry" in outcome.stdout, outcome.stdout
        text = outcome.stderr
        assert text.startswith("coop: CacheError: "), text
    else:
        assert outcome.report["error"]["kind"] == "CacheError", outcome.stdout
        text = outcome.report["error"]["message"]
    expand(case, scene.places()).check(text)


def _engine_stats(case, scene, fault):
    outcome = run_engine("stats", environment(scene.home))
    assert outcome.status == 0, outcome.stderr
    error = outcome.report.get("error")
    assert error and error["class"] == case.error and error["kind"] == "Cache", outcome.report
    expand(case, scene.places()).check(error["message"])


_RUNS = {
    "compile": _compile,
    "engine-compile": _engine_compile,
    "engine-stats": _engine_stats,
    "clear": _explicit,
    "clear-json": _explicit,
    "stats-json": _explicit,
}


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_cache_fault(case, scene, seed):
    fault = case.detail
    fault.arrange(scene, seed)
    _RUNS[fault.run](case, scene, fault)
