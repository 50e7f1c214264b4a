"""The table of PostgreSQL majors, scripts/majors: one row a major, saying
where its servers and headers come from and what runs beside them. The
scripts read it through scripts/lib.sh, the runner through this module."""
import os

TABLE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                     "scripts", "majors")
COLUMNS = ("major", "runs", "server", "oldest", "headers", "debian12", "upgrade", "pgaudit", "citus",
           "partman", "explain")


def read(path=TABLE):
    """{major: {column: field}}, "-" read as None and lists as tuples."""
    rows, header = {}, None
    with open(path) as f:
        lines = f.read().splitlines()
    for n, line in enumerate(lines, 1):
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        if header is None:
            if tuple(words) != COLUMNS:
                raise ValueError(f"{path}:{n}: the columns are {' '.join(COLUMNS)}, not {' '.join(words)}")
            header = words
            continue
        if len(words) != len(header):
            raise ValueError(f"{path}:{n}: {len(words)} fields, not {len(header)}")
        row = {c: (None if w == "-" else w) for c, w in zip(header, words)}
        for c in ("debian12", "upgrade"):
            row[c] = tuple(row[c].split(",")) if row[c] else ()
        row["upgrade"] = tuple(int(m) for m in row["upgrade"])
        major = int(row.pop("major"))
        if major in rows:
            raise ValueError(f"{path}:{n}: PostgreSQL {major} has a row already")
        rows[major] = row
    if header is None:
        raise ValueError(f"{path}: no header line")
    return rows


def upgrade_pairs(majors, table=None):
    """pg_upgrade's pairs among `majors`: (from, to) for each major the table
    says pg_upgrade starts from to reach another of them."""
    table = read() if table is None else table
    given = set(majors)
    return [(old, new) for new in sorted(given) if new in table
            for old in table[new]["upgrade"] if old in given]
