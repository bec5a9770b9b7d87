"""Memory benchmarks: prints Markdown tables.

    .venv/bin/python bench/bench_memory.py [--minutes 30 60] [--sizes 1000 10000 100000] [--skip-build]

1. Frame throughput on generated reveal-synth videos: decord's raw 1-fps decode (the ceiling) against
   the full scan (decode + quality filter + frame descriptor) and segmentation.
2. Memory build time by stage (scan, caption, summarise with the bundled LLM, index) and disk size per
   hour of video.
3. Retrieval latency per query at 1k, 10k and 100k L1 items: numpy brute force, FAISS exact (flat),
   FAISS HNSW, with HNSW's recall@8 against the exact answer.
Numbers depend on the machine; run it on an idle one.
"""
import argparse, os, shutil, tempfile, time
from pathlib import Path
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
import numpy as np

from reveal_nb.config import RevealConfig
from reveal_nb.synth.world import simulate, narration_track, subtitles_srt
from reveal_nb.synth.render import write_video
from reveal_nb.memory.video import open_video, sample_indices, scan_video
from reveal_nb.memory.segment import segment_video
from reveal_nb.backends.encoders import FrameDescriptorEncoder, TextEncoder
from reveal_nb.memory.build import build_memory, make_index
from reveal_nb.backends.transformers_backend import TransformersBackend
from reveal_nb.core import atomic_write_json, atomic_write_text


def make_video(work: Path, minutes: int):
    truth = simulate(f"bench-{minutes}min", minutes * 60, seed=11)
    video = work / f"bench-{minutes}.mp4"
    write_video(truth, video)
    atomic_write_json(work / f"bench-{minutes}.narration.json", narration_track(truth, 0.05, 0.3))
    atomic_write_text(work / f"bench-{minutes}.srt", subtitles_srt(truth))
    return video, work / f"bench-{minutes}.narration.json", work / f"bench-{minutes}.srt"


def raw_decode_rate(video, cfg):
    vr, info = open_video(video, cfg.decode_max_side)
    idx = sample_indices(info, cfg.fps)
    t0 = time.perf_counter()
    for b in range(0, len(idx), cfg.decode_batch): vr.get_batch(idx[b:b + cfg.decode_batch].tolist()).asnumpy()
    return len(idx) / (time.perf_counter() - t0), len(idx)


def retrieval_table(sizes, dim=384, queries=200, k=8):
    rng = np.random.default_rng(0)
    rows = []
    for n in sizes:
        X = rng.normal(size=(n, dim)).astype(np.float32); X /= np.linalg.norm(X, axis=1, keepdims=True)
        Q = rng.normal(size=(queries, dim)).astype(np.float32); Q /= np.linalg.norm(Q, axis=1, keepdims=True)
        t0 = time.perf_counter()
        for q in Q: np.argpartition(-(X @ q), k)[:k]
        t_np = (time.perf_counter() - t0) / queries
        flat = make_index(X, flat_max=n + 1)
        t0 = time.perf_counter()
        for q in Q: flat.search(q[None], k)
        t_flat = (time.perf_counter() - t0) / queries
        t0 = time.perf_counter(); hnsw = make_index(X, flat_max=0); t_build = time.perf_counter() - t0
        t0 = time.perf_counter()
        for q in Q: hnsw.search(q[None], k)
        t_hnsw = (time.perf_counter() - t0) / queries
        _, I_exact = flat.search(Q, k); _, I_h = hnsw.search(Q, k)
        recall = np.mean([len(set(a) & set(b)) / k for a, b in zip(I_exact, I_h)])
        rows.append((n, t_np * 1e3, t_flat * 1e3, t_hnsw * 1e3, recall, t_build))
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=int, nargs="+", default=[30, 60])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    ap.add_argument("--skip-build", action="store_true", help="skip the memory builds (LLM summaries)")
    a = ap.parse_args(argv)
    cfg = RevealConfig(reply_cache=False)
    work = Path(tempfile.mkdtemp(prefix="bench-memory-"))
    try:
        scan_rows, build_rows = [], []
        llm = None if a.skip_build else TransformersBackend(cfg)
        text_enc = TextEncoder()
        for minutes in a.minutes:
            video, narration, subs = make_video(work, minutes)
            raw, n = raw_decode_rate(video, cfg)
            t0 = time.perf_counter(); scan = scan_video(video, cfg, FrameDescriptorEncoder()); t_scan = time.perf_counter() - t0
            t0 = time.perf_counter(); segs = segment_video(scan, cfg); t_seg = time.perf_counter() - t0
            scan_rows.append((minutes, n, raw, n / t_scan, n / (t_scan + t_seg), len(segs)))
            if llm is not None:
                mcfg = RevealConfig(memory_dir=str(work / "memories"), reply_cache=False)
                mem = build_memory(video, mcfg, captions=narration, subtitles=subs, llm=llm, text_encoder=text_enc, progress=False)
                size = sum(p.stat().st_size for p in mem.folder.iterdir())
                build_rows.append((minutes, mem.meta["timings"], mem.meta["counts"], size / 2**20, size / 2**20 * 60 / minutes))
        print("\n### Frame throughput (1 fps sampling, 160x120 reveal-synth video)\n")
        print("| video | sampled frames | decord raw decode (frames/s) | decode + filter + descriptor (frames/s) | + segmentation (frames/s) | L1 segments |")
        print("|---|---|---|---|---|---|")
        for m, n, raw, scan_fps, all_fps, nseg in scan_rows:
            print(f"| {m} min | {n} | {raw:.0f} | {scan_fps:.0f} | {all_fps:.0f} | {nseg} |")
        if build_rows:
            print("\n### Memory build (bundled SmolLM2-135M summaries, provided narration)\n")
            print("| video | scan s | caption s | summarise s | index s | L1 / L2 / L3 | disk MiB | MiB per hour |")
            print("|---|---|---|---|---|---|---|---|")
            for m, t, c, mib, per_h in build_rows:
                print(f"| {m} min | {t['scan']:.1f} | {t['caption']:.2f} | {t['summarise']:.1f} | {t['index']:.2f} | {c['L1']} / {c['L2']} / {c['L3']} | {mib:.2f} | {per_h:.2f} |")
        print("\n### Retrieval latency per query (384-d, top 8)\n")
        print("| L1 items | numpy brute force (ms) | FAISS flat (ms) | FAISS HNSW (ms) | HNSW recall@8 | HNSW build (s) |")
        print("|---|---|---|---|---|---|")
        for n, t_np, t_flat, t_h, rec, tb in retrieval_table(a.sizes):
            print(f"| {n:,} | {t_np:.3f} | {t_flat:.3f} | {t_h:.3f} | {rec:.3f} | {tb:.1f} |")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
