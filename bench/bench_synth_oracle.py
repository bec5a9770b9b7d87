"""Is reveal-synth answerable from its decisive text? A no-model oracle: with the E+ text, pick the option whose content words the text contains most
(least, for negation; the number of E+ lines, for counting; the order of first mentions for global summary;
the span with the E+ line's timestamps for grounding). Reveal-synth small test split, seeds 0-2, 20 per type.

    .venv/bin/python bench/bench_synth_oracle.py
"""
import os
os.environ.setdefault("HF_HUB_OFFLINE", "1")
import numpy as np
from reveal_nb.studies.reading_study import study_questions
from reveal_nb.synth.questions import question_words
from reveal_nb.method.readings import evidence_lines
qs = study_questions("test", 20)
hits = {}
for q in qs:
    ev = q["evidence"]["O"]; words = question_words(ev.replace("(L1)", ""))
    opts = list(q["options"].items())
    if q["type"] == "global_summary":
        low = ev.lower(); pos = lambda p: low.find(" to the " + p) if (" to the " + p) in low else 10**9
        letter = next((l for l, o in opts if sorted(o.split(", then "), key=pos) == o.split(", then ")), None)
    elif q["type"] == "temporal_grounding":
        import re
        spans = {f"From {a} to {b}" for a, b in re.findall(r"\[(\d+:\d\d)-(\d+:\d\d)\]", ev)}
        m = [l for l, o in opts if o in spans]; letter = m[0] if len(m) == 1 else None
    elif q["type"] == "counting":
        pick = str(len(evidence_lines(ev)))
        letter = next((l for l, o in opts if o == pick), None)
    else:
        sc = [len(question_words(o) & words) / max(1, len(question_words(o))) for _, o in opts]
        if q["type"] == "negation": sc = [-s for s in sc]
        best = [l for (l, _), s in zip(opts, sc) if s == max(sc)]
        letter = best[0] if len(best) == 1 else None
    hits.setdefault(q["type"], []).append(letter == q["answer"])
allh = [h for v in hits.values() for h in v]
print("| type | n | oracle accuracy (chance 0.25) |\n|---|---|---|")
for t, v in sorted(hits.items()): print(f"| {t} | {len(v)} | {np.mean(v):.2f} |")
print(f"| all | {len(allh)} | {np.mean(allh):.3f} |")
