"""Finding a key in a server's log: every form a log may print 32 bytes in
(hex of either case, base64 and its URL-safe alphabet, bytea's escape format
as SQL literals and CSV quote it, the node printers' decimal byte lists,
signed or not, as pretty_format_node_dump wraps them), any run of WINDOW
bytes of it. The cluster test facade_logging searches its logs with it; its
own tests are tests/lib/test_keyscan.py.
"""
import base64
import bisect
import re

WINDOW = 12  # key bytes in a row that count as a leak
GRAM = 4  # the piece of a key looked up first
STRIDE = WINDOW - GRAM + 1  # every run of WINDOW bytes holds a GRAM that begins at a multiple of it


def escape_form(data):
    """bytea's escape output of `data` (byteaout with bytea_output = escape)."""
    out = []
    for b in data:
        if b == 0x5C:
            out.append("\\\\")
        elif 0x20 <= b <= 0x7E:
            out.append(chr(b))
        else:
            out.append(f"\\{b:03o}")
    return "".join(out)


def unescape(text, backslashes, quotes):
    """The bytes bytea's escape format stands for in `text` where a log
    quoted it so that each backslash became `backslashes` of them and each
    quote `quotes` (SQL literals, CSV inside CSV), with where each begins in
    `text`."""
    b, q = re.escape("\\" * backslashes), quotes
    out, anchors, last, size = [], [(0, 0)], 0, 0  # anchors: (offset in the bytes, offset in `text`)
    for m in re.finditer(rf"{b}([0-3][0-7]{{2}})|({b}{b})|('{{{q}}})|(\"{{{q}}})", text):
        octal, backslash, quote, _ = m.groups()
        out.append(text[last:m.start()])
        size += m.start() - last
        anchors.append((size, m.start()))
        out.append(chr(int(octal, 8)) if octal else "\\" if backslash else "'" if quote else '"')
        size += 1
        last = m.end()
        anchors.append((size, last))
    out.append(text[last:])

    def where(i):
        at, pos = anchors[bisect.bisect_right(anchors, (i, len(text))) - 1]
        return pos + i - at
    return "".join(out).encode("latin-1", "replace"), where


def escaped_lines(text, backslashes):
    """(where it begins, the line) for each line of `text` that holds an
    octal escape written with `backslashes` backslashes. bytea's escape
    format writes a newline as \\012: a key's bytes never span two lines,
    and the rest of a log of megabytes is not unescaped."""
    escape = re.compile(re.escape("\\" * backslashes) + "[0-3][0-7]{2}")
    end = -1
    for m in escape.finditer(text):
        if m.start() < end:
            continue
        start = text.rfind("\n", 0, m.start()) + 1
        end = text.find("\n", m.end())
        end = len(text) if end < 0 else end
        yield start, text[start:end]


def b64_windows(key, alphabet):
    """Every 16-character run of the base64 of `key` at each of the three
    alignments that depends on key bits only (16 characters: 12 bytes)."""
    out = set()
    for k in range(3):
        enc = base64.b64encode(b"\0" * k + key + b"\0\0").decode()
        if alphabet == "url":
            enc = enc.replace("+", "-").replace("/", "_")
        first = -(-8 * k // 6)  # the first character made of key bits only
        last = (8 * (k + len(key))) // 6  # one past the last
        det = enc[first:last]
        out |= {det[i:i + 16] for i in range(len(det) - 15)}
    return out


class Needles:
    """The keys searched for, indexed by every run of WINDOW bytes in each form."""

    def __init__(self, keys):
        self.keys = keys  # name -> 32 bytes
        self.hex, self.b64, self.bytes, self.grams = {}, {"std": {}, "url": {}}, {}, set()
        for name, key in keys.items():
            h = key.hex()
            for i in range(len(key) - WINDOW + 1):
                self.hex[h[2 * i:2 * (i + WINDOW)]] = name
                self.bytes[key[i:i + WINDOW]] = name
            self.grams.update(key[i:i + GRAM] for i in range(len(key) - GRAM + 1))
            for alphabet in ("std", "url"):
                for w in b64_windows(key, alphabet):
                    self.b64[alphabet][w] = name

    def scan_text(self, t, found, via=""):
        """Hex, base64 and escape forms in `t`: adds (name, form, pos) to `found`."""
        for m in re.finditer(r"[0-9a-fA-F]{%d,}" % (2 * WINDOW), t):
            run, low = m.group(), m.group().lower()
            names = {self.hex[low[i:i + 2 * WINDOW]] for i in range(len(run) - 2 * WINDOW + 1)
                     if low[i:i + 2 * WINDOW] in self.hex}
            for name in names:
                letters = [c for c in run if c.isalpha()]
                case = "lower case" if all(c.islower() for c in letters) else \
                    "upper case" if all(c.isupper() for c in letters) else "mixed case"
                whole = self.keys[name].hex() in low
                prefix = ", \\x" if t[max(0, m.start() - 2):m.start()].lower() == "\\x" else ""
                found.add((name, f"{via}hex ({case}{prefix}, {'all 32 bytes' if whole else 'a part'})", m.start()))
        for pattern, alphabet in ((r"[A-Za-z0-9+/]{16,}", "std"), (r"[A-Za-z0-9_-]{16,}", "url")):
            for m in re.finditer(pattern, t):
                run = m.group()
                for i in range(len(run) - 15):
                    name = self.b64[alphabet].get(run[i:i + 16])
                    if name:
                        found.add((name, f"{via}base64{' (URL-safe)' if alphabet == 'url' else ''}", m.start()))
                        break
        for backslashes in (1, 2):
            for start, line in escaped_lines(t, backslashes):
                for quotes in (1, 2, 4):
                    data, where = unescape(line, backslashes, quotes)
                    for name, first, count in self.windows(data):
                        whole = "all 32 bytes" if count >= len(self.keys[name]) else "a part"
                        found.add((name, f"{via}bytea escape format ({whole})", start + where(first)))

    def windows(self, data):
        """Where runs of WINDOW or more bytes of a key are in `data`: (name,
        where the run begins, how many bytes it has) for each."""
        # A run of WINDOW key bytes holds a GRAM-byte piece of a key that
        # begins at a multiple of STRIDE: only there is the dictionary asked
        # first (the logs are megabytes; a look at every byte took minutes).
        starts = set()
        for p in range(0, len(data) - GRAM + 1, STRIDE):
            if data[p:p + GRAM] in self.grams:
                starts.update(i for i in range(max(0, p - STRIDE + 1), min(p, len(data) - WINDOW) + 1)
                              if data[i:i + WINDOW] in self.bytes)
        runs = []
        for i in sorted(starts):
            name = self.bytes[data[i:i + WINDOW]]
            if runs and runs[-1][0] == name and runs[-1][1] + runs[-1][2] >= i:
                runs[-1][2] = i + WINDOW - runs[-1][1]
            else:
                runs.append([name, i, WINDOW])
        return [tuple(r) for r in runs]

    def scan(self, text):
        """Every key in `text`, in every form: a set of (name, form, position)."""
        found = set()
        for t in {text, join_splits(text)}:
            self.scan_text(t, found)
            # Byte lists: runs of small integers (a Const's bytes, signed or not).
            for m in re.finditer(r"-?\d{1,3}(?:\s+-?\d{1,3}){%d,}" % (WINDOW - 1), t):
                nums = [int(x) for x in m.group().split()]
                if not all(-128 <= x <= 255 for x in nums):
                    continue
                data = bytes(x & 0xFF for x in nums)
                for name, first, count in self.windows(data):
                    part = nums[first:first + count]
                    sign = "signed" if any(x < 0 for x in part) else \
                        "unsigned" if any(x > 127 for x in part) else "either sign"
                    whole = "all 32 bytes" if count >= len(self.keys[name]) else "a part"
                    found.add((name, f"decimal byte list ({sign}, {whole})", m.start()))
                # A text Const's bytes: the key written as text inside it.
                if all(32 <= x < 127 or x in (9, 10) for x in nums):
                    inner = set()
                    self.scan_text(data.decode("ascii"), inner, via="decimal byte list of text: ")
                    found |= {(name, form, m.start()) for name, form, _ in inner}
        # A part where the whole was found too (the text as wrapped, and joined): the whole.
        whole = {(n, f.replace("all 32 bytes", "")) for n, f, _ in found if "all 32 bytes" in f}
        return {x for x in found if "a part" not in x[1] or (x[0], x[1].replace("a part", "")) not in whole}


LINELEN = 78  # where elog_node_display's printers wrap a node dump


def join_splits(text):
    """A pretty-printed node dump as it was before pretty_format_node_dump
    wrapped it: a line of LINELEN characters goes on in the next one, anywhere
    (inside a number too), after the indentation of the line it began on.
    (The flat printer breaks only at a space it drops: whitespace, which the
    search takes as it comes.)"""
    out, indent = [], 0
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if out and len(lines[i - 1]) == LINELEN and not line[:indent].strip():
            out[-1] += line[indent:]
        else:
            out.append(line)
            indent = len(line) - len(line.lstrip(" "))
    return "\n".join(out)


def wrap(text, indent):
    """`text` as the pretty printer wraps one long field at `indent`."""
    lines, line = [], " " * indent + text[0]
    for ch in text[1:]:
        if len(line) == LINELEN:
            lines.append(line)
            line = " " * indent
        line += ch
    return "\n".join(lines + [line])
