"""Documents into a chat's files, by hand: python tests/bench/documents_bench.py [--only NAME...]

For real public documents of each format, in English, German and Chinese, a scanned PDF and a
book-length one (the PDFs from repositories fetched into /work/.mirror, see DOCUMENTS; the
others from tests/data/documents), prints:

- pages per second to markdown (the converter alone; pages, slides, sheets or chapters),
- peak resident memory of a process that converts it (and of one that only imports the libraries),
- seconds from the drop (a copy into the chat's folder, with the watcher and the outbox running
  as in the window, and the bundled embedding model) until a sentence of its last page is found
  by words, and until every chunk is embedded (found by meaning too), with the CPU seconds that
  took (all of this process's threads): on a machine other work keeps busy the wall-clock time
  grows with the load, the CPU time hardly does,
- recall@5 of 20 known sentences by their words (each sentence's own chunk in the top 5 of the
  files' hybrid search) and, for the documents with written paraphrases, by paraphrase.

Targets (issue 36): a 50-page text PDF searchable within 30 s of the drop; recall@5 >= 0.9 by
words and >= 0.7 by paraphrase.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "desktop"))

from engram.core.app import Engram  # noqa: E402
from engram.core.files.formats import SOURCES_DIR  # noqa: E402
from engram.core.files.provider import passages  # noqa: E402
from engram.core.files.watcher import FolderWatcher  # noqa: E402

MIRROR = Path("/work/.mirror")
DATA = ROOT / "tests" / "data" / "documents"
# (name, where it comes from: a file here, or (repository, commit or HEAD, path) in a mirror)
DOCUMENTS = {
    "paper-en.pdf": ("opendatalab/MinerU", "HEAD", "demo/pdfs/demo1.pdf"),        # 13 pages, a hydrology paper
    "report-zh.pdf": ("opendatalab/MinerU", "0e1371e8d0978a57aa7eeb224ea8acadd6b2996e",
                      "tests/test_cli/pdf_dev/pdf/test_rearch_report.pdf"),       # 4 pages, a broker's report
    "chemistry-zh.pdf": ("opendatalab/MinerU", "HEAD", "docs/chemical_knowledge_introduction/introduction.pdf"),
    "book-de.pdf": ("py-pdf/sample-files", "HEAD", "009-pdflatex-geotopo/GeoTopo-komprimiert.pdf"),  # 117 pages
    "scanned.pdf": ("opendatalab/MinerU", "0e1371e8d0978a57aa7eeb224ea8acadd6b2996e", "example/examples/scanned.pdf"),
    "test.docx": DATA / "test.docx", "test.pptx": DATA / "test.pptx", "test.xlsx": DATA / "test.xlsx",
    "test_blog.html": DATA / "test_blog.html", "test.epub": DATA / "test.epub",
}
# Made from the above: the first 50 pages of the book, and the book three times (351 pages).
DERIVED = {"book-50-pages.pdf": ("book-de.pdf", 1, 50), "book-351-pages.pdf": ("book-de.pdf", 3, 0)}
# Written paraphrases: (words of the sentence, so its chunk is known; the same said otherwise).
PARAPHRASES = {
    "paper-en.pdf": [
        ("represent flow variation for the majority of percentiles",
         "the model captured how streamflow varied across most percentiles in eight catchments"),
        ("FDCs were computed from the distribution of daily flows",
         "flow duration curves built each year from daily discharge over the water year"),
        ("immediate post-treatment period may be viewed as a non-forested condition",
         "right after planting the catchment can be treated as if it had no forest"),
        ("average baseflow index (BFI), the ratio of baseflow to total flow",
         "share of total streamflow that comes from baseflow, listed in a table"),
        ("receive 85% (1260 mm on average) of their rainfall in summer",
         "most of the yearly precipitation at Cathedral Peak falls during the summer months"),
        ("impact on flow intermittence can be evaluated",
         "counting days with no streamflow shows how planting trees makes rivers stop flowing"),
        ("flow reductions identified here probably represent a maximum effect",
         "the decreases in flow found are likely an upper bound because of small catchments and thin soils"),
        ("quantified the net impact of afforestation",
         "we measured the overall effect of planting forests on most parts of the flow curve"),
        ("Once annual rainfall exceeds 400–500 mm",
         "above roughly half a metre of yearly rain, forests evaporate more water than grassland does"),
        ("decreased a low flow index by a factor of two during the first rotation",
         "in India, replacing grass with eucalyptus halved the low-flow measure in the first rotation"),
        ("The net change in flow is obscured by rainfall variability",
         "year-to-year changes in rain hide the real effect of the trees on streamflow"),
        ("the paired-catchment (control versus treatment) experiment",
         "comparing a treated watershed with an untreated neighbour is the classic way to study this"),
        ("Annual rainfall was chosen as the rainfall statistic",
         "yearly precipitation totals were the best predictor of streamflow across all percentiles"),
        ("using an inverse sigmoidal function",
         "an S-shaped curve was fitted to how many days per year the stream was dry"),
        ("arbitrarily considered EO0.7 to indicate adequate model fits",
         "a Nash-Sutcliffe efficiency above 0.7 was taken as a good enough fit"),
        ("a one tailed t-test was applied",
         "because the rain and age terms must be positive, the significance test was one-sided"),
        ("Data on soil characteristics have been obtained from published reports",
         "information on soil depth came from the literature and from talking to researchers, and it is patchy"),
        ("The majority of fits (77%) returned EO0.7",
         "about three quarters of the model fits reached an efficiency of at least 0.7"),
        ("nine of the 10 catchment were pine species",
         "almost every catchment studied was planted with pines; hardwoods like eucalypts need more data"),
        ("The poorest model fits were gained for Lambrechtsbos A and B",
         "the model worked worst for the two Lambrechtsbos catchments in South Africa"),
    ],
    "report-zh.pdf": [
        ("金刚线产能快速扩产", "为了满足下游的需要，公司迅速扩大金刚石切割线的生产能力"),
        ("切片代工产能约 47GW", "公司替别人切硅片的产能大概有多少吉瓦"),
        ("采购电力的平均单价较青岛", "山西长治工厂的电费比青岛便宜，所以把生产线搬了过去"),
        ("金刚线越细", "切割线更细的话硅片表面损伤更小、质量更好"),
        ("光伏硅片切割三元布局", "公司在光伏切片上的三方面业务：设备、耗材和代工"),
        ("风险提示", "这份报告提到了哪些风险：扩产不达预期、代工利润波动、竞争加剧"),
        ("超额利润的核心", "高测为什么能赚到超出行业的利润：切片代工技术领先"),
        ("不构成投资建议", "报告内容只供参考，不能当作投资建议"),
        ("后续年产 8,000 万千米金刚线项目尚未具体约定", "二期八千万公里切割线的项目还没有谈定，不确定性很大"),
        ("1-5 月光伏装机同比 +24.4%", "今年头五个月太阳能装机量比去年多了两成多"),
        ("公司电力采购单价从 2019 年 0.8 元/kwh", "电费每度从八毛降到了不到四毛"),
        ("金刚线线径越细，锯缝越小", "线越细切口越窄，浪费的硅料越少，一根硅棒能切出更多硅片"),
        ("金刚线母线直径已由 2016 年的 80um", "这几年钢线的直径从八十微米降到了四十微米以下"),
        ("客户包括通威、京运通、美科", "切片代工的客户有哪些光伏企业"),
        ("每股净资产(元)： 5.50", "这家公司每一股对应的净资产是多少钱"),
        ("净资产收益率(%) 6.0%", "净资产回报率预计 2022 年会升到接近百分之二十八"),
        ("研发费用率% 7.5%", "研究开发投入占收入的比例每年都在百分之七点五左右"),
        ("资产负债率 64.3%", "公司的负债占总资产的比例大概七成"),
        ("拥有 5 年机械研究经验", "写这份报告的分析师研究机械行业几年了，在哪里读的书"),
        ("未经德邦证券研究所书面授权", "没有德邦的书面同意，不能复制或者转发这份报告"),
    ],
}


# Everyday messages about none of the documents: a passage they bring is noise in the reply's context.
UNRELATED = ["hello, how are you?", "Can you recommend a snack for a long hike?", "What is the capital of France?",
             "Thanks!", "Remind me to call my mother tomorrow", "What should I cook tonight?", "I am allergic to peanuts",
             "Tell me a joke", "How do I fix a flat bicycle tyre?", "What time is it in Tokyo?",
             "写一首关于秋天的诗", "我今天很累", "明天提醒我给妈妈打电话", "推荐一部好看的电影", "你好"]


def source_path(name: str, work: Path) -> Path | None:
    """The document's file, made in ``work`` when it comes from a mirror; None when not at hand."""
    if name in DERIVED:
        return _derive(name, work)
    where = DOCUMENTS[name]
    if isinstance(where, Path):
        return where
    repo, commit, path = where
    git = MIRROR / repo.replace("/", "+") / "repo"
    if not git.is_dir():
        return None
    out = work / name
    if not out.exists():
        data = subprocess.run(["git", "-C", str(git), "show", f"{commit}:{path}"], capture_output=True).stdout
        if not data:
            return None
        out.write_bytes(data)
    return out


def _derive(name: str, work: Path) -> Path | None:
    import pypdfium2

    base, copies, pages = DERIVED[name]
    if (source := source_path(base, work)) is None:
        return None
    out = work / name
    if not out.exists():
        made = pypdfium2.PdfDocument.new()
        for _ in range(copies):
            made.import_pages(pypdfium2.PdfDocument(str(source)), list(range(pages)) if pages else None)
        made.save(str(out))
    return out


def convert_alone(path: Path) -> dict:
    """Convert in a fresh process: seconds, pages, and the peak memory above the imports'."""
    script = f"""
import json, sys, time
sys.path.insert(0, {str(ROOT / 'desktop')!r})
from pathlib import Path
from engram.core.errors import InvalidInput
from engram.core.files import converters, formats
import pypdfium2, docx, pptx, openpyxl, bs4, markdownify, psutil, threading
me = psutil.Process()
base = peak = me.memory_info().rss
running = True
def sample():
    global peak
    while running:
        peak = max(peak, me.memory_info().rss)
        time.sleep(0.005)
sampler = threading.Thread(target=sample)
sampler.start()
path = Path({str(path)!r})
start = time.perf_counter()
try:
    kind = formats.sniff(path, path.name, 10**9).kind
    done = converters.convert(path, path.name, kind, lambda d, t: None)
    result = {{"pages": done.pages, "chars": len(done.markdown), "note": done.note}}
except InvalidInput as e:
    result = {{"pages": 0, "chars": 0, "note": e.message}}
result["seconds"] = time.perf_counter() - start
running = False
sampler.join()
result["rss_mb"] = peak / 2**20
result["base_mb"] = base / 2**20
print(json.dumps(result))
"""
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    return json.loads(run.stdout.strip().splitlines()[-1])


def flat(text: str) -> str:
    """Text on one line: line ends inside Chinese dropped, others made spaces."""
    return " ".join(re.sub(r"(?<=[\u4e00-\u9fff，])\n(?=[\u4e00-\u9fff])", "", text).split())


def sentences(text: str) -> list[str]:
    """Sentences of a chunk (after its first line, the place) long enough to be told apart."""
    flat_text = flat(text.split("\n", 1)[-1])
    found = [s.strip() for s in re.split(r"(?<=[.!?。！？])\s*", flat_text)]
    return [s for s in found if 40 <= len(s) <= 240 or (re.search(r"[\u4e00-\u9fff]", s) and 15 <= len(s) <= 120)]


def drop_and_measure(engram: Engram, folder: str, path: Path) -> dict:
    """Drop the document into the chat's folder; time until its last page's words are found,
    and until all its chunks are embedded."""
    target = engram.files.folder(folder).path / path.name
    started, cpu = time.perf_counter(), time.process_time()
    shutil.copy(path, target)
    markdown, searchable, deadline = f"{path.name}.md", None, started + 900
    while time.perf_counter() < deadline:
        status = engram.files.status(folder, f"{SOURCES_DIR}/{path.name}")
        if status.status == "problem":
            return {"problem": status.detail, "drop_to_words_s": None, "drop_to_meaning_s": None}
        chunks = engram.files.chunk_memories(folder, markdown)
        if chunks and searchable is None:
            probe = next((s for c in reversed(chunks) for s in sentences(c.text)), chunks[-1].text.split("\n")[-1])
            if engram.files.search(folder, probe, k=5, mode="words"):
                searchable = time.perf_counter() - started
        if searchable is not None and engram.store.pending_embeddings() == 0 and engram.outbox.health().pending == 0:
            return {"drop_to_words_s": searchable, "drop_to_meaning_s": time.perf_counter() - started,
                    "drop_to_meaning_cpu_s": time.process_time() - cpu}
        time.sleep(0.05)
    if searchable is None:
        raise SystemExit(f"{path.name} was not searchable within 900 s")
    return {"drop_to_words_s": searchable, "drop_to_meaning_s": None}     # still embedding after 900 s


def recall(engram: Engram, folder: str, name: str) -> dict:
    """Share of 20 sentences whose own chunk is in the top 5, by their words; and of the written
    paraphrases, by paraphrase."""
    chunks = engram.files.chunk_memories(folder, f"{name}.md")
    picked = []
    for step in range(20):
        chunk = chunks[step * len(chunks) // 20] if len(chunks) >= 20 else chunks[step % len(chunks)]
        options = sentences(chunk.text)
        if options:
            picked.append((options[step % len(options)], chunk.id))
    picked = list(dict.fromkeys(picked))[:20]

    def found(query: str, wanted: set[int]) -> bool:
        return bool(wanted & {hit.memory.id for hit in engram.files.search(folder, query, k=5)})

    by_words = sum(found(sentence, {chunk_id}) for sentence, chunk_id in picked) / max(1, len(picked))
    result = {"sentences": len(picked), "recall_words": by_words}
    if name in PARAPHRASES:
        k = engram.memory_options.recall_max_results
        scores, brought = [], []
        for anchor, paraphrase in PARAPHRASES[name]:
            wanted = {c.id for c in chunks if anchor.replace(" ", "") in flat(c.text).replace(" ", "")}
            assert wanted, f"{anchor!r} is in no chunk of {name}"
            scores.append(found(paraphrase, wanted))
            # What a question in the chat brings before the reply (files/provider.py).
            brought.append(bool(wanted & {hit.memory.id for hit in passages(engram.files, folder, paraphrase, k)}))
        result |= {"paraphrases": len(scores), "recall_paraphrase": sum(scores) / len(scores),
                   "brought_to_reply": sum(brought) / len(brought),
                   "unrelated_brought": sum(bool(passages(engram.files, folder, message, k)) for message in UNRELATED)}
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", nargs="*", help="only these documents (names as in DOCUMENTS, DERIVED)")
    args = parser.parse_args()
    names = args.only or [*DOCUMENTS, *DERIVED]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "docs").mkdir()
        engram = Engram(work / "data", work / "config")
        folder = engram.sessions.get_or_create("bench", engram.user, title="Documents").folder
        engram.files.folder(folder).path.mkdir(parents=True, exist_ok=True)
        engram.outbox.start()
        rows = []
        with FolderWatcher(engram.files):
            for name in names:
                path = source_path(name, work / "docs")
                if path is None:
                    print(f"{name}: not at hand (fetch its repository into {MIRROR})")
                    continue
                row = {"document": name, "bytes": path.stat().st_size} | convert_alone(path)
                row["pages_per_s"] = row["pages"] / row["seconds"] if row["pages"] else None
                row |= drop_and_measure(engram, folder, path)
                if row.get("drop_to_words_s") is not None:
                    row |= recall(engram, folder, path.name)
                rows.append(row)
                print(json.dumps(row, ensure_ascii=False), flush=True)
        engram.close()
    print("\n| document | pages | pages/s | peak MB | drop→words s | drop→meaning s (CPU s) | recall@5 words |"
          f" paraphrase | paraphrase brought to the reply | unrelated that brought one (of {len(UNRELATED)}) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        def num(key, fmt, r=r):
            return format(r[key], fmt) if r.get(key) is not None else "–"
        print(f"| {r['document']} | {r['pages']} | {num('pages_per_s', '.0f')} | {num('rss_mb', '.0f')} |"
              f" {num('drop_to_words_s', '.1f')} | {num('drop_to_meaning_s', '.1f')} ({num('drop_to_meaning_cpu_s', '.1f')}) | {num('recall_words', '.2f')} |"
              f" {num('recall_paraphrase', '.2f')} | {num('brought_to_reply', '.2f')} | {num('unrelated_brought', 'd')} |"
              + (f" {r['problem']}" if r.get("problem") else ""))


if __name__ == "__main__":
    main()
