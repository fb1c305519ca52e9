"""Runs `idgrep query --for clickhouse` statements in chdb, the ClickHouse engine in-process.

Usage: chdb_query.py LINES.tsv STATEMENTS.txt

LINES.tsv holds `n<TAB>line` rows in ClickHouse's TabSeparated escaping; STATEMENTS.txt one
statement per line, each reading the table `logs` with the line in the column `body`. Prints,
per statement, the line numbers it selects as one JSON array per output line. Each statement is
run wrapped as a subquery, as a user would compose it.
"""

import json
import sys

import chdb
from chdb import session


def main() -> None:
    lines_path, statements_path = sys.argv[1], sys.argv[2]
    db = session.Session()
    db.query("CREATE TABLE logs (n UInt64, body String) ENGINE = MergeTree ORDER BY n")
    db.query(
        f"INSERT INTO logs SELECT n, body FROM file('{lines_path}', TabSeparated, "
        "'n UInt64, body String')"
    )
    total = int(str(db.query("SELECT count() FROM logs", "CSV")).strip())
    print(json.dumps({"engine": f"chdb {chdb.__version__}", "rows": total}))
    with open(statements_path, encoding="utf-8") as statements:
        for statement in statements:
            result = db.query(
                f"SELECT n FROM ({statement.strip()}) ORDER BY n", "JSONCompactEachRow"
            )
            numbers = [json.loads(row)[0] for row in str(result).splitlines() if row]
            print(json.dumps([int(n) for n in numbers]))


if __name__ == "__main__":
    main()
