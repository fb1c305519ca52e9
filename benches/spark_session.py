"""For benches/spark.sh: the idgrep job and spark.read.text + rlike timed inside one Spark
session (local[2]), so that the session's start, the same for both and paid once per session
(a notebook or a long-lived cluster pays it once a day), is left out. Prints the medians as
JSON, and fails when the two find different lines.

    python3 benches/spark_session.py ULID CORPUS RUNS IDGREP
"""

import json
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                "integrations", "spark"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import idgrep_spark  # noqa: E402
import spark_rlike  # noqa: E402


def main():
    ulid, corpus, runs, binary = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    os.environ["PYTHONWARNINGS"] = "ignore"
    from pyspark.sql import SparkSession
    from pyspark.sql.functions import col
    spark = (SparkSession.builder.master("local[2]").appName("idgrep-bench")
             .config("spark.ui.enabled", "false")
             .config("spark.executorEnv.PYTHONWARNINGS", "ignore").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    spark.sparkContext.addFile(binary)
    spark.sparkContext.addPyFile(idgrep_spark.__file__)
    job, rlike, job_lines, rlike_lines = [], [], None, None
    regex = spark_rlike.every_form(ulid)
    for _ in range(runs):
        with tempfile.TemporaryFile() as out:
            started = time.monotonic()
            code = idgrep_spark.run(spark, ["search", "--json", ulid, corpus], stdout=out)
            job.append(time.monotonic() - started)
            out.seek(0)
            job_lines = sorted(json.loads(l)["text"] for l in out.read().decode().splitlines())
        assert code == 0, code
        started = time.monotonic()
        rows = (spark.read.option("recursiveFileLookup", "true").text(corpus)
                .filter(col("value").rlike(regex)).collect())
        rlike.append(time.monotonic() - started)
        rlike_lines = sorted(r.value for r in rows)
    spark.stop()
    print(json.dumps({"job": statistics.median(job), "rlike": statistics.median(rlike),
                      "same_lines": job_lines == rlike_lines, "lines": len(job_lines)}))
    if job_lines != rlike_lines:
        sys.exit("the job and rlike found different lines")


if __name__ == "__main__":
    main()
