"""`adapter_files`: the one way the runner reads, copies and removes what an adapter made."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from conformance.runner.adapter_files import MAX_DEPTH, UnsafeFile, copy_tree, read_file, read_tree, remove_tree


def deep_tree(root: Path, levels: int) -> None:
    """`levels` nested directories, each holding a file: deeper than any path can name."""
    fd = os.open(root, os.O_RDONLY)
    for _ in range(levels):
        os.mkdir("d", dir_fd=fd)
        os.close(os.open("f", os.O_WRONLY | os.O_CREAT, dir_fd=fd))
        deeper = os.open("d", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = deeper
    os.close(fd)


def test_a_regular_file_is_read_and_a_missing_one_is_none(tmp_path):
    (tmp_path / "a").write_bytes(b"abc")
    assert read_file(tmp_path / "a") == b"abc"
    assert read_file(tmp_path / "missing") is None


@pytest.mark.parametrize("make, words", [
    (lambda path: path.symlink_to("/dev/zero"), "a symbolic link to '/dev/zero'"),
    (lambda path: os.mkfifo(path), "a FIFO (named pipe)"),
    (lambda path: path.mkdir(), "a directory"),
])
def test_links_fifos_and_directories_are_never_read(tmp_path, make, words):
    make(tmp_path / "x")
    with pytest.raises(UnsafeFile) as raised:
        read_file(tmp_path / "x", shown="store/x")
    assert raised.value.path == "store/x" and words in str(raised.value)


def test_a_file_over_the_limit_is_not_read(tmp_path):
    (tmp_path / "big").write_bytes(b"x" * 100)
    with pytest.raises(UnsafeFile, match="a file of 100 bytes, more than the limit of 10"):
        read_file(tmp_path / "big", limit=10)


def test_a_sparse_entry_of_1_gib_is_neither_read_nor_copied(tmp_path):
    # Issue 24, item 3: a 1 GiB sparse entry cost 3.1 GB and 49 s; its size is known before a byte is read.
    memory = tmp_path / "source" / "store" / "memory"
    memory.mkdir(parents=True)
    with open(memory / "big.md", "wb") as big:
        big.truncate(1024 ** 3)
    started = time.monotonic()
    with pytest.raises(UnsafeFile, match="store/memory/big.md: a file of 1073741824 bytes, more than the limit"):
        read_tree(tmp_path / "source" / "store", shown="store")
    left_out = copy_tree(tmp_path / "source", tmp_path / "copy")
    assert time.monotonic() - started < 5
    assert left_out == ["store/memory/big.md (a file of 1073741824 bytes, more than the limit of 16777216)"]
    assert not (tmp_path / "copy" / "store" / "memory" / "big.md").exists()


def test_a_tree_is_read_whole_but_not_past_a_link_or_its_depth(tmp_path):
    (tmp_path / "store" / "memory").mkdir(parents=True)
    (tmp_path / "store" / "memory" / "a.md").write_text("a")
    (tmp_path / "store" / "session.json").write_text("{}")
    assert read_tree(tmp_path / "store") == {"memory/a.md": b"a", "session.json": b"{}"}
    assert read_tree(tmp_path / "absent") == {}
    (tmp_path / "store" / "memory" / "host").symlink_to(tmp_path)
    with pytest.raises(UnsafeFile, match="a symbolic link"):
        read_tree(tmp_path / "store")
    deep = tmp_path / "deep"
    deep.mkdir()
    deep_tree(deep, MAX_DEPTH + 1)
    with pytest.raises(UnsafeFile, match=f"nested more than {MAX_DEPTH} levels"):
        read_tree(deep)


def test_copies_keep_links_as_links_and_leave_special_files_out(tmp_path):
    source = tmp_path / "source"
    (source / "store").mkdir(parents=True)
    (source / "store" / "session.json").symlink_to("/dev/zero")
    (source / "store" / "a.md").write_text("a")
    os.mkfifo(source / "store" / "pipe")
    left_out = copy_tree(source, tmp_path / "copy")
    assert os.readlink(tmp_path / "copy" / "store" / "session.json") == "/dev/zero"
    assert (tmp_path / "copy" / "store" / "a.md").read_text() == "a"
    assert left_out == ["store/pipe (a FIFO (named pipe))"]


def test_a_tree_deeper_than_the_recursion_limit_is_removed(tmp_path):
    deep = tmp_path / "deep"
    deep.mkdir()
    deep_tree(deep, 1200)
    with pytest.raises(RecursionError):  # what a recursive removal does with it
        shutil.rmtree(deep)
    removal = remove_tree(deep)
    assert not deep.exists() and removal.left == [] and removal.fault("x") is None


def test_links_are_removed_not_followed(tmp_path):
    keep = tmp_path / "keep"
    keep.mkdir()
    (keep / "precious").write_text("kept")
    (tmp_path / "scratch").mkdir()
    (tmp_path / "scratch" / "link").symlink_to(keep)
    remove_tree(tmp_path / "scratch")
    assert (keep / "precious").read_text() == "kept" and not (tmp_path / "scratch").exists()


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("chattr") is None, reason="setting the immutable flag needs root")
def test_an_immutable_directory_is_restored_removed_and_reported(tmp_path):
    stuck = tmp_path / "scratch" / "store" / "memory"
    stuck.mkdir(parents=True)
    (stuck / "a.md").write_text("a")
    subprocess.run(["chattr", "+i", str(stuck)], check=True)
    removal = remove_tree(tmp_path / "scratch", "w1/v-x")
    assert not (tmp_path / "scratch").exists()
    assert removal.repaired and "unremovable" in removal.fault("its scratch directory")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads and removes whatever the permissions say")
def test_a_directory_without_permissions_is_restored_and_removed(tmp_path):
    stuck = tmp_path / "scratch" / "memory"
    stuck.mkdir(parents=True)
    (stuck / "a.md").write_text("a")
    stuck.chmod(0)
    removal = remove_tree(tmp_path / "scratch")
    assert not (tmp_path / "scratch").exists() and removal.repaired
