"""The table of majors, scripts/majors, is well formed, and the scripts
(scripts/lib.sh) read it as the runner (majors.py) does. Run by the core
layer of tests/run.py, or:

    python3 -m unittest discover -s tests/lib -p 'test_*.py'
"""
import os
import re
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import majors  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HEADER = " ".join(majors.COLUMNS)
ROW = "15 host debian debian oldest - - debian - - -"


def table(*lines):
    f = tempfile.NamedTemporaryFile("w", suffix="-majors", delete=False)
    f.write("# a comment\n\n" + "\n".join(lines) + "\n")
    f.close()
    return f.name


class TheTable(unittest.TestCase):
    def setUp(self):
        self.rows = majors.read()

    def test_every_field_is_one_the_scripts_know(self):
        token = {
            "runs": r"host|chroot",
            "server": r"debian|wheel:[\w.-]+==[\w.]+|apt(:\w+)?",
            "oldest": r"debian|wheel:[\w.-]+==[\w.]+",
            "headers": r"oldest|apt:\w+",
            "pgaudit": r"debian|apt(:\w+)?",
            "citus": r"yes|--[\w-]+(,--[\w-]+)*",
            "partman": r"apt",
            "explain": r"npm:[\w.-]+",
        }
        for major, row in self.rows.items():
            for column, pattern in token.items():
                if row[column] is not None:
                    self.assertRegex(row[column], f"^({pattern})$", f"PostgreSQL {major}, {column}")
            for server in row["debian12"]:
                self.assertRegex(server, r"^(npm:[\w.-]+|wheel:[\w.-]+==[\w.]+)$", f"PostgreSQL {major}, debian12")
            self.assertTrue(set(row["upgrade"]) <= set(self.rows) - {major}, f"PostgreSQL {major}, upgrade")
            if row["headers"] == "oldest":
                self.assertIsNotNone(row["oldest"], f"PostgreSQL {major}: built against an oldest it lacks")
            on_host = row["runs"] == "host"
            self.assertEqual(on_host, not row["server"].startswith("apt"), f"PostgreSQL {major}, server")

    def test_every_major_is_a_feature_of_the_crate(self):
        with open(os.path.join(ROOT, "Cargo.toml")) as f:
            features = set(re.findall(r"^pg(\d+) = ", f.read(), re.M))
        self.assertEqual({str(m) for m in self.rows}, features)

    def test_the_scripts_read_what_the_runner_reads(self):
        script = ('. scripts/lib.sh; for m in $(majors_where); do for c in ' + " ".join(majors.COLUMNS[1:])
                  + '; do printf "%s " "$(major_field "$m" "$c")"; done; echo; done')
        out = subprocess.run(["bash", "-c", script], cwd=ROOT, capture_output=True, text=True, check=True).stdout
        def field(v):
            return "-" if v is None or v == () else ",".join(map(str, v)) if isinstance(v, tuple) else v
        want = "".join(" ".join(field(row[c]) for c in majors.COLUMNS[1:]) + " \n" for row in self.rows.values())
        self.assertEqual(out, want)


class Reading(unittest.TestCase):
    def test_a_row_of_the_wrong_length_is_refused(self):
        with self.assertRaisesRegex(ValueError, "10 fields"):
            majors.read(table(HEADER, ROW.rsplit(" ", 1)[0]))

    def test_another_header_is_refused(self):
        with self.assertRaisesRegex(ValueError, "the columns are"):
            majors.read(table(HEADER.replace("citus", "cytus"), ROW))

    def test_a_major_twice_is_refused(self):
        with self.assertRaisesRegex(ValueError, "has a row already"):
            majors.read(table(HEADER, ROW, ROW))

    def test_pairs_are_those_the_table_names_among_those_given(self):
        rows = majors.read(table(HEADER, ROW, ROW.replace("15", "17", 1).replace("- - debian", "- 15 debian"),
                                 ROW.replace("15", "19", 1).replace("- - debian", "- 15,17 debian")))
        self.assertEqual(majors.upgrade_pairs([15, 17, 19], rows), [(15, 17), (15, 19), (17, 19)])
        self.assertEqual(majors.upgrade_pairs([17, 19], rows), [(17, 19)])
        self.assertEqual(majors.upgrade_pairs([15], rows), [])


if __name__ == "__main__":
    unittest.main()
