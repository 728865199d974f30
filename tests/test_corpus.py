"""The corpus rules: the data-file rule, the split by path hash, the listing."""

from __future__ import annotations

import hashlib

import pytest

from tokenpath import corpus as C

CODE = '''"""A module."""

import os


def walk(root, depth=0):
    """Yield the files under root."""
    for name in sorted(os.listdir(root)):
        path = os.path.join(root, name)
        if os.path.isdir(path) and depth < 3:
            yield from walk(path, depth + 1)
        else:
            yield path
'''
TABLE = "decoding_table = (\n" + "".join(f"    '\\x{i:02x}'     #  0x{i:02X} -> CHAR {i}\n" for i in range(256)) + ")\n"


def test_a_table_of_literals_is_data_and_ordinary_code_is_not():
    assert C.is_data(TABLE) and not C.is_data(CODE)
    words, share = C.literal_share(TABLE)
    assert words >= C.DATA_MIN_WORDS and share >= C.DATA_LITERAL_SHARE


def test_literal_share_counts_names_strings_and_numbers_only():
    assert C.literal_share("f(x, 'a', 2.5)  # 'comment'\n") == (4, 0.5)
    assert C.literal_share("") == (0, 0.0)


def test_a_short_file_of_literals_is_not_data_and_an_untokenizable_file_is_code():
    short = "__all__ = [" + ", ".join(f"'m{i}'" for i in range(C.DATA_MIN_WORDS - 2)) + "]\n"
    assert C.literal_share(short)[1] >= C.DATA_LITERAL_SHARE and not C.is_data(short)
    assert not C.is_data("x = (\n" + "'a',\n" * 200)   # unclosed bracket: the tokenizer rejects it


def test_every_charmap_codec_table_of_this_interpreter_is_data_and_the_codecs_code_is_not():
    root = C.stdlib_root() / "encodings"
    tables = [p for p in sorted(root.glob("*.py")) if "decoding_table = (" in p.read_text(encoding="utf-8")]
    assert len(tables) > 20
    assert all(C.is_data(p.read_text(encoding="utf-8")) for p in tables)
    for name in ("__init__.py", "utf_8.py", "idna.py", "punycode.py"):
        assert not C.is_data((root / name).read_text(encoding="utf-8")), name


def test_the_held_out_rule_reads_the_path_hash_only():
    paths = [f"pkg{i // 10}/mod{i}.py" for i in range(4000)]
    held = [p for p in paths if C.is_held_out(p)]
    assert held == [p for p in paths if int(hashlib.sha256(p.encode()).hexdigest(), 16) % C.HELD_OUT_MOD == 0]
    assert 0.5 / C.HELD_OUT_MOD < len(held) / len(paths) < 1.5 / C.HELD_OUT_MOD
    assert all(C.is_held_out(p, 1) for p in paths[:5])


def test_the_split_does_not_move_a_file_when_another_is_added(tmp_path):
    for i in range(60):
        (tmp_path / f"m{i}.py").write_text(f"x = {i}\n")
    before = {f.relpath: f.held_out for f in C.load(tmp_path).files}
    index_before = {f.relpath: f.held_out for f in C.load(tmp_path, split="index").files}
    (tmp_path / "a_new_file.py").write_text("y = 1\n")   # sorts first
    after = {f.relpath: f.held_out for f in C.load(tmp_path).files}
    assert all(after[r] == h for r, h in before.items())
    # the committed model's rule (every 20th in sorted order) moves files when one is added
    index_after = {f.relpath: f.held_out for f in C.load(tmp_path, split="index").files}
    assert any(index_after[r] != h for r, h in index_before.items())


def test_load_flags_groups_and_sides_and_the_summary_adds_up(tmp_path):
    (tmp_path / "enc").mkdir()
    (tmp_path / "enc" / "table.py").write_text(TABLE)
    (tmp_path / "code.py").write_text(CODE)
    (tmp_path / "test").mkdir()
    (tmp_path / "test" / "t.py").write_text(CODE)
    c = C.load(tmp_path, split="index")
    assert [(f.relpath, f.group, f.held_out) for f in c.files] == [("code.py", "code", True),
                                                                  ("enc/table.py", "data", False)]
    assert sum(r[2] for r in c.summary()) == 2
    assert sum(r[3] for r in c.summary()) == len(TABLE.encode()) + len(CODE.encode())
    assert c.texts(held_out=False, group="data") == [TABLE]
    assert c.sha256 == C.corpus_sha256(C.corpus_files(tmp_path), tmp_path)


def test_held_out_by_index_is_every_nth_file():
    assert C.held_out_by_index(7, 3) == [True, False, False, True, False, False, True]


@pytest.mark.parametrize("call, match", [
    (lambda: C.is_held_out("a.py", 0), "mod"),
    (lambda: C.is_held_out("/abs/a.py"), "relpath"),
    (lambda: C.is_held_out(""), "relpath"),
    (lambda: C.literal_share(b"x = 1"), "text"),
    (lambda: C.held_out_by_index(3, 0), "every"),
    (lambda: C.load(split="random"), "split"),
    (lambda: C.corpus_files("/no/such/folder"), "root"),
    (lambda: C.package_files("no_such_package_xyz"), "name"),
])
def test_bad_input_names_the_argument(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()
