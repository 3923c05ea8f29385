import struct

import numpy as np
import pytest

from paracomp.embeddings import from_glove_text, from_word2vec_binary
from paracomp.errors import DataError


def test_glove_text_with_spaces_in_words_and_fasttext_header(tmp_path):
    path = tmp_path / "vec.txt"
    path.write_text("3 2\nthe 0.5 -1\n. . . 1 2\nnew york 3 4\n")
    words, matrix = from_glove_text(path)
    assert words == ["the", ". . .", "new york"]
    np.testing.assert_array_equal(matrix, [[0.5, -1], [1, 2], [3, 4]])
    path.write_text("the 0.5 x\n")
    with pytest.raises(DataError, match="line 1"):
        from_glove_text(path)


def test_word2vec_binary(tmp_path):
    path = tmp_path / "vec.bin"
    body = (
        b"2 3\n"
        + b"cat "
        + struct.pack("<3f", 1, 2, 3)
        + b"\nNew_York "
        + struct.pack("<3f", 4, 5, 6)
    )
    path.write_bytes(body)
    words, matrix = from_word2vec_binary(path)
    assert words == ["cat", "New_York"]
    np.testing.assert_array_equal(matrix, [[1, 2, 3], [4, 5, 6]])
    path.write_bytes(body[:-10])
    with pytest.raises(DataError, match="truncated at vector 2"):
        from_word2vec_binary(path)
