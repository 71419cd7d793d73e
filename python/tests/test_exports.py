"""The report as text and every export, through the package: what they
hold, the options, sections left open (a warning; the file is whole) and
unwritable paths (an exception; nothing left behind)."""

import csv
import json
import os
import time

import pytest

import ptkit

from conftest import span


@pytest.fixture
def run(timing, clock):
    span(timing, clock, "short", 1_000_000, flops=2e9)
    timing.start("long")
    span(timing, clock, "inner", 3_000_000, read=6e9)
    clock.now += 1_000_000
    timing.stop("long")
    return timing


def test_the_report_as_text(run):
    text = run.report()
    lines = text.splitlines()
    assert lines[0].startswith('ptkit report "test": 3 sections, 5.000 ms total')
    rows = [l.split()[0] for l in lines if l.strip() and l.split()[0] in ("short", "long", "inner")]
    assert rows == ["short", "long", "inner"], "order of first start"
    assert [l for l in lines if l.startswith("    inner") or l.startswith("  inner")], \
        "children are indented under their parent"
    by_time = run.report(sort="time", percentages=True)
    assert by_time.index("long") < by_time.index("short")
    assert "% parent" in by_time and "% parent" not in text
    top = run.report(max_depth=1)
    assert "long" in top and "inner" not in top


def test_report_views(run):
    table = run.report(view="table")
    assert "Calls" in table and "inner" in table
    assert "inner" in run.report(view="bottlenecks", top=1)
    kernels = run.report(view="kernels")
    assert "(no GPU launches)" in kernels and "inner" not in kernels, "launches only"
    with pytest.raises(ValueError, match="one of order, time, flops, name"):
        run.report(sort="size")
    with pytest.raises(ValueError, match="view"):
        run.report(view="pie")


def test_csv_json_html(run, tmp_path):
    run.export_csv(tmp_path / "perf.csv")
    rows = list(csv.DictReader(open(tmp_path / "perf.csv", newline="")))
    assert [r["path"] for r in rows] == ["short", "long", "long/inner"]
    assert [(r["id"], r["parent"]) for r in rows] == [("0", "-1"), ("1", "-1"), ("2", "1")]
    run.export_json(tmp_path / "perf.json")
    doc = json.load(open(tmp_path / "perf.json"))
    assert doc["name"] == "test" and doc["schema"] >= 1
    run.export_html(str(tmp_path / "perf.html"))
    page = (tmp_path / "perf.html").read_text()
    assert page.lstrip().lower().startswith("<!doctype html") and "inner" in page


def test_an_unwritable_path_raises_and_leaves_nothing(run, tmp_path):
    for export in (run.export_csv, run.export_json, run.export_html):
        with pytest.raises(ptkit.Error) as e:
            export(tmp_path / "missing" / "x.out")
        assert e.value.name == "PT_EIO" and "missing" in str(e.value)
    assert os.listdir(tmp_path) == []
    with pytest.raises(ptkit.Error, match="PT_EINVAL"):
        run.export_csv("")


def test_sections_left_open_warn_and_the_file_is_whole(run, tmp_path):
    run.start("still open")
    with pytest.warns(ptkit.PtkitWarning, match="PT_EOPEN: .*still open"):
        text = run.report()
    assert "still open" in text
    with pytest.warns(ptkit.PtkitWarning, match="PT_EOPEN"):
        run.export_json(tmp_path / "open.json")
    json.load(open(tmp_path / "open.json"))
    run.stop("still open")


def test_without_trace_on_the_trace_is_the_flame_chart(run, tmp_path):
    run.export_trace(tmp_path / "t.json")
    doc = json.load(open(tmp_path / "t.json"))
    assert "PT_TRACE" in doc["metadata"]["note_trace"], "it says why it is not a timeline"
    xs = {e["name"]: e for e in doc["traceEvents"] if e["ph"] == "X"}
    assert xs["long"]["dur"] == pytest.approx(4000) and xs["inner"]["dur"] == pytest.approx(3000)
    assert xs["long"]["ts"] <= xs["inner"]["ts"], "the child drawn inside its parent"
    assert xs["inner"]["ts"] + xs["inner"]["dur"] <= xs["long"]["ts"] + xs["long"]["dur"] + 1e-3


def test_the_trace_says_its_wall_clock_base(tmp_path):
    before = time.time_ns()
    t = ptkit.Timing("traced", trace=True)
    after = time.time_ns()
    with t.section("outer"):
        time.sleep(0.002)
        with t.section("inner"):
            pass
    t.export_trace(tmp_path / "trace.json")
    doc = json.load(open(tmp_path / "trace.json"))
    assert before <= doc["baseTimeNanoseconds"] <= after
    xs = {e["name"]: e for e in doc["traceEvents"] if e["ph"] == "X"}
    assert xs["outer"]["dur"] >= 2000 and xs["outer"]["ts"] <= xs["inner"]["ts"]
    assert doc["metadata"]["tool"] == "ptkit"
    t.close()
