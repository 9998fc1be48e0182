"""API keys: shown once, stored hashed, revocable; concurrent issuers lose nothing."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from memdir.cli import main
from memdir.errors import ConfigError, NotFoundError, ValidationError
from memdir.http.keys import KeyRing, check_user, default_data_dir


@pytest.fixture
def ring(tmp_path: Path) -> KeyRing:
    return KeyRing(tmp_path / "server")


def test_a_key_names_its_user_and_is_stored_only_as_a_salted_hash(ring: KeyRing) -> None:
    info, key = ring.create("alice")
    assert key.startswith("mdk_") and info.user == "alice" and info.revoked is None
    assert ring.user_for(key) == "alice"
    stored = ring.path.read_text(encoding="utf-8")
    secret = key.split("_", 2)[2]  # mdk_<id>_<secret>: the secret may hold "_" itself
    assert secret not in stored and key not in stored
    entry = json.loads(stored)["keys"][0]
    assert set(entry) == {"id", "user", "salt", "hash", "created", "revoked"}
    assert stat.S_IMODE(ring.path.stat().st_mode) == 0o600
    # two keys for one user have different salts and hashes
    _, other = ring.create("alice")
    entries = json.loads(ring.path.read_text(encoding="utf-8"))["keys"]
    assert entries[0]["salt"] != entries[1]["salt"] and ring.user_for(other) == "alice"


@pytest.mark.parametrize(
    "presented",
    ["", "mdk_", "Bearer x", "mdk_00000000_" + "A" * 43, "mdk_zzzzzzzz_" + "A" * 43, "\x00" * 60],
)
def test_malformed_or_unknown_keys_name_nobody(ring: KeyRing, presented: str) -> None:
    ring.create("alice")
    assert ring.user_for(presented) is None


def test_a_key_with_one_character_changed_is_refused(ring: KeyRing) -> None:
    _, key = ring.create("alice")
    flipped = key[:-1] + ("A" if key[-1] != "A" else "B")
    assert ring.user_for(flipped) is None


def test_revoke_by_id_or_by_user_takes_effect_for_a_reader_at_once(tmp_path: Path) -> None:
    writer, reader = KeyRing(tmp_path / "s"), KeyRing(tmp_path / "s")
    a1, key1 = writer.create("alice")
    _, key2 = writer.create("alice")
    _, key3 = writer.create("bob")
    assert reader.user_for(key1) == "alice"  # the reader has cached the file now
    assert [i.id for i in writer.revoke(a1.id)] == [a1.id]
    assert reader.user_for(key1) is None and reader.user_for(key2) == "alice"
    assert len(writer.revoke("alice")) == 1  # the one still active
    assert writer.revoke("alice") == []  # already revoked: nothing new
    assert reader.user_for(key2) is None and reader.user_for(key3) == "bob"
    assert [i.revoked is not None for i in writer.list()] == [True, True, False]
    with pytest.raises(NotFoundError, match="memdir keys list"):
        writer.revoke("carol")


@pytest.mark.parametrize("user", ["", "Alice", "../bob", "a/b", "a b", ".hidden", "-x", "x" * 65])
def test_user_names_are_never_paths(ring: KeyRing, user: str) -> None:
    with pytest.raises(ValidationError, match="lowercase letters"):
        ring.create(user)
    with pytest.raises(ValidationError):
        check_user(user)


def test_a_corrupt_keys_file_is_an_error_that_says_what_to_do(ring: KeyRing) -> None:
    ring.data_dir.mkdir(parents=True)
    ring.path.write_bytes(b"{not json")
    with pytest.raises(ConfigError, match="memdir keys create"):
        ring.list()


def test_the_data_dir_follows_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert default_data_dir() == Path(os.environ["MEMDIR_HOME"]) / "server"
    monkeypatch.setenv("MEMDIR_SERVER_DIR", str(tmp_path / "elsewhere"))
    assert default_data_dir() == tmp_path / "elsewhere"


def test_concurrent_issuers_in_separate_processes_lose_no_key(tmp_path: Path) -> None:
    data = tmp_path / "server"
    script = (
        "import sys; from pathlib import Path; from memdir.http.keys import KeyRing\n"
        "ring = KeyRing(Path(sys.argv[1]))\n"
        "for _ in range(15): print(ring.create(sys.argv[2])[1])\n"
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", script, str(data), user], stdout=subprocess.PIPE, text=True
        )
        for user in ("alice", "bob", "carol")
    ]
    issued = {
        user: p.communicate(timeout=120)[0].split()
        for user, p in zip(("alice", "bob", "carol"), procs, strict=True)
    }
    ring = KeyRing(data)
    assert len(ring.list()) == 45
    for user, keys in issued.items():
        assert len(keys) == 15 and all(ring.user_for(k) == user for k in keys)


def test_the_cli_issues_lists_and_revokes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = str(tmp_path / "server")
    assert main(["keys", "create", "alice", "--data", data]) == 0
    out = capsys.readouterr()
    key = out.out.strip()
    assert key.startswith("mdk_") and "not shown again" in out.err
    assert main(["keys", "create", "bob", "--data", data, "--json"]) == 0
    bob = json.loads(capsys.readouterr().out)
    assert bob["user"] == "bob" and bob["key"].startswith("mdk_")
    assert main(["keys", "list", "--data", data, "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [k["user"] for k in listed] == ["alice", "bob"]
    assert all("key" not in k and "hash" not in k for k in listed)
    assert main(["keys", "revoke", bob["id"], "--data", data]) == 0
    assert "revoked" in capsys.readouterr().out
    assert KeyRing(Path(data)).user_for(bob["key"]) is None
    assert KeyRing(Path(data)).user_for(key) == "alice"
    assert main(["keys", "revoke", "nobody", "--data", data]) == 1
    assert "memdir keys list" in capsys.readouterr().err
    assert main(["keys", "create", "../etc", "--data", data]) == 1
    assert "lowercase" in capsys.readouterr().err
