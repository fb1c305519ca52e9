"""What a Spark user writes today to find an ID's lines, for benches/spark.sh: every line of
the files read with spark.read.text, kept by rlike with a regex of every written form of the
ID (ULID in any case, UUID dashed and undashed in any case; braced and urn: forms hold the
dashed one), bounded at tokens as idgrep bounds them (no ASCII letter or digit on either
side). Prints the matching lines.

    spark-submit --master 'local[2]' benches/spark_rlike.py ULID PATH
"""

import sys
import uuid

from pyspark.sql import SparkSession
from pyspark.sql.functions import col

CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz"


def ulid_value(text):
    value = 0
    for c in text.lower():
        value = value * 32 + CROCKFORD.index(c)
    return value


def every_form(ulid):
    u = uuid.UUID(int=ulid_value(ulid))
    forms = [ulid.lower(), str(u), u.hex]
    return "(?i)(?<![0-9a-z])(?:" + "|".join(forms) + ")(?![0-9a-z])"


def main():
    ulid, path = sys.argv[1], sys.argv[2]
    spark = SparkSession.builder.appName("rlike").getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    lines = (spark.read.option("recursiveFileLookup", "true").text(path)
             .filter(col("value").rlike(every_form(ulid))).collect())
    out = sys.stdout
    for row in lines:
        out.write(row.value + "\n")
    out.flush()
    spark.stop()


if __name__ == "__main__":
    main()
