"""The key search of keyscan.py (what the cluster test facade_logging looks
for in its logs) finds each form it claims to, in made-up text, and no run
shorter than WINDOW bytes. Run by the core layer of tests/run.py, or:

    python3 -m unittest discover -s tests/lib -p 'test_*.py'
"""
import base64
import os
import secrets
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from keyscan import LINELEN, STRIDE, WINDOW, Needles, escape_form, join_splits, unescape, wrap  # noqa: E402

KEY = bytes(range(0x70, 0x90))  # bytes above 127: signed and unsigned lists differ


def forms(needles, text):
    return {(name, form) for name, form, _ in needles.scan(text)}


class EachForm(unittest.TestCase):
    def setUp(self):
        self.n = Needles({"k": KEY})

    def found(self, form, text):
        got = forms(self.n, text)
        self.assertTrue(any(f.startswith(form) for _, f in got), f"{form} not found in {text!r}: {got}")

    def test_hex(self):
        self.found("hex (lower case, \\x", "x = '\\x" + KEY.hex() + "'")
        self.found("hex (upper case", KEY.hex().upper())

    def test_base64(self):
        self.found("base64", "abc" + base64.b64encode(b"12" + KEY).decode())
        high = bytes(range(0xE0, 0x100))  # its base64 has + and /, which the URL-safe alphabet changes
        url = base64.urlsafe_b64encode(b"1" + high).decode()
        self.assertTrue("-" in url and "_" in url)
        self.assertIn(("h", "base64 (URL-safe)"), forms(Needles({"h": high}), url))

    def test_bytea_escape(self):
        self.found("bytea escape format", "Output: '" + escape_form(KEY).replace("\\", "\\\\") + "'::bytea")

    def test_bytea_escape_among_lines(self):
        """Only the lines with an escape are unescaped: the key is found in
        the one it is on, at its place in the whole text."""
        form = escape_form(KEY)
        text = "a first line \\101\n" + "x" * 500 + "\nthe key: " + form + " and more\nlast \\\\102 line"
        got = {(name, f, pos) for name, f, pos in self.n.scan(text) if f.startswith("bytea escape")}
        self.assertEqual(got, {("k", "bytea escape format (all 32 bytes)", text.index(form))})

    def test_byte_lists(self):
        signed = " ".join(str(b - 256 if b > 127 else b) for b in KEY)
        pretty = ":constvalue 36 [ -112 0 0 0 " + signed + " ]"
        cut = pretty.index(str(KEY[20] - 256)) + 2  # a line break inside a number
        self.found("decimal byte list (signed", pretty[:cut] + "\n      " + pretty[cut:])
        self.found("decimal byte list (unsigned", "[ " + "\n".join(str(b) for b in KEY) + " ]")
        text_const = " ".join(str(c) for c in ("'\\x" + KEY.hex() + "'").encode())
        self.found("decimal byte list of text: hex", ":constvalue 69 [ " + text_const + " ]")

    def test_csv_in_csv(self):
        """A key with a quote and a backslash as pgaudit logs it: a CSV field in a CSV field."""
        quoted = b'"\\' + KEY[2:]
        text = '"3,""' + escape_form(quoted).replace('"', '""""') + '"",ab",1'
        self.assertIn(("q", "bytea escape format (all 32 bytes)"), forms(Needles({"q": quoted}), text))

    def test_wrapped_node_dump(self):
        """The pretty printer's wrapping at every indentation, for random keys: the whole key each time."""
        for indent in range(0, 61, 3):
            k = secrets.token_bytes(32)
            dump = ":constvalue 36 [ -112 0 0 0 " + " ".join(str(b - 256 if b > 127 else b) for b in k) + " ]"
            text = "{CONST\n" + wrap(":constlen -1", indent) + "\n" + wrap(dump, indent) + "\n}"
            self.assertIn(("k", "decimal byte list (signed, all 32 bytes)"), forms(Needles({"k": k}), text), text)

    def test_window(self):
        """A run of WINDOW key bytes is found; one byte fewer is not."""
        self.assertTrue(self.n.scan(KEY.hex()[:2 * WINDOW]))
        self.assertFalse(self.n.scan(KEY.hex()[:2 * WINDOW - 2]))
        self.assertFalse(self.n.scan(secrets.token_bytes(32).hex()))


class Parts(unittest.TestCase):
    def test_join_splits(self):
        line = "x" * LINELEN
        self.assertEqual(join_splits("  " + line[2:] + "\n  yz\nnext"), "  " + line[2:] + "yz\nnext")
        self.assertEqual(join_splits("short\n  yz"), "short\n  yz")

    def test_windows_at_every_offset(self):
        """Runs of key bytes at every offset and length in random bytes are
        found as a look at every position finds them (windows() looks first
        at every STRIDE-th byte only)."""
        keys = {"a": secrets.token_bytes(32), "b": secrets.token_bytes(32)}
        n = Needles(keys)

        def every_position(data):
            runs = []
            for i in range(len(data) - WINDOW + 1):
                name = n.bytes.get(data[i:i + WINDOW])
                if name and runs and runs[-1][0] == name and runs[-1][1] + runs[-1][2] >= i:
                    runs[-1][2] = i + WINDOW - runs[-1][1]
                elif name:
                    runs.append([name, i, WINDOW])
            return [tuple(r) for r in runs]
        for offset in range(2 * STRIDE):
            for start, length in ((0, 32), (3, WINDOW), (7, WINDOW - 1), (20, WINDOW), (5, 20)):
                for name, key in keys.items():
                    part = key[start:start + length]
                    data = secrets.token_bytes(offset) + part + secrets.token_bytes(5) + keys["a"][:WINDOW]
                    self.assertEqual(n.windows(data), every_position(data), (offset, start, length))
                    self.assertEqual(bool(n.windows(part)), length >= WINDOW)

    def test_unescape(self):
        data, where = unescape("a\\\\101\\\\\\\\''b", 2, 2)
        self.assertEqual(data, b"aA\\'b")
        self.assertEqual(where(1), 1)
        self.assertEqual(where(4), 12)


if __name__ == "__main__":
    unittest.main()
